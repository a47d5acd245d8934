/**
 * A question in the caller's own words, answered with the moments that answer it best across the
 * meetings the caller may see (svc_get_transcripts and svc_search with a question, GraphQL
 * `transcripts(question:)`, the meetings page's Ask box).
 *
 * Sentences are ranked by meaning and by the question's words (question-rank.ts); a moment is a
 * sentence with the sentences either side of it, its meeting's title and a link to the moment.
 * Filters (dates, people, channel, mine) and the visibility rule narrow every ranking before it
 * ranks (question-sql.ts). Where the server has no embedding model or its PostgreSQL no pgvector,
 * the words alone answer, and the answer says so.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { recordReads } from '../audit';
import type { Principal } from '../access';
import { estimateJsonTokens } from '../limits';
import { type TextEmbedder, vectorTablesExist } from '../passages';
import type { ResolvedFilters } from './filters';
import { QUESTION_POOL } from './filters';
import type { MeetingList, MeetingListRecord } from './list';
import type { MeetingListRow } from './list-sql';
import { listedAndVisible } from './list-sql';
import { fitMoments, LIST_TOKENS, momentLink, type MomentRecord } from './moments';
import { answerPageSql } from './question-sql';
import { rankingByMeaning, rankingByWords } from './question-rank';
import { toMeetingRecord } from './records';

/** The neighbours a moment shows are cut to this many characters. */
const CONTEXT_CHARS = 200;

/** How a question was answered, and why not by meaning when it was not. */
export type AnsweredBy = 'meaning' | 'words';

/** A moment that answers a question: the sentence, where it was said, and the sentences around it. */
export interface AnswerMoment extends MomentRecord {
  title: string;
  /** The sentence before and after, cut to CONTEXT_CHARS ('' at a meeting's start or end). */
  before: string;
  after: string;
}

/** Whether each database's vector tables exist, looked up once a minute (an operator may add pgvector while roles run). */
const tablesKnown = new WeakMap<Knex, { at: number; ready: boolean }>();
async function vectorStoreReady(db: Knex): Promise<boolean> {
  const known = tablesKnown.get(db);
  if (known && Date.now() - known.at < 60_000) return known.ready;
  const ready = await vectorTablesExist(db);
  tablesKnown.set(db, { at: Date.now(), ready });
  return ready;
}

/** Why a question cannot be answered by meaning here, or null when it can. */
async function meaningUnavailable(db: Knex, embedder: TextEmbedder | null | undefined): Promise<string | null> {
  if (!embedder) return 'this server has no embedding model (EMBEDDING_MODEL_DIR=off)';
  if (!(await vectorStoreReady(db))) return "this server's PostgreSQL lacks the pgvector extension";
  return null;
}

/** A row of answerPageSql: a ranked sentence, and on the page its sentence, neighbours and meeting. */
type AnswerRow = { meeting_id: string; idx: number } & (
  | { text: null }
  | (MeetingListRow & {
      speaker_name: string;
      start_time: number;
      text: string;
      before: string | null;
      after: string | null;
    })
);

const cut = (s: string | null) => (!s ? '' : s.length <= CONTEXT_CHARS ? s : `${s.slice(0, CONTEXT_CHARS - 1)}…`);

/** The page's moments, and their meetings in the order of their best moment, from answerPageSql's rows. */
function answerPage(
  config: Pick<Config, 'publicBaseUrl'>,
  rows: AnswerRow[],
): { moments: AnswerMoment[]; meetings: MeetingListRecord[]; teamOf: Map<string, string> } {
  const moments: AnswerMoment[] = [];
  const meetings = new Map<string, MeetingListRecord>();
  const teamOf = new Map<string, string>();
  for (const r of rows) {
    if (r.text === null) continue; // ranked, not on the page
    let meeting = meetings.get(r.id);
    if (!meeting) {
      meeting = { ...toMeetingRecord(config, r, r.participants), summary: r.short_summary || null };
      meetings.set(r.id, meeting);
      teamOf.set(r.id, r.team_id);
    }
    const start = Number(r.start_time);
    moments.push({
      meeting_id: r.meeting_id,
      title: meeting.title,
      index: r.idx,
      speaker_name: r.speaker_name,
      start_time: start,
      text: r.text,
      before: cut(r.before),
      after: cut(r.after),
      link: momentLink(meeting.transcript_url, start),
    });
  }
  return { moments, meetings: [...meetings.values()], teamOf };
}

/**
 * The moments that answer `f.question` best among the meetings the caller may see that pass the
 * filters: `f.limit` of them from `f.skip`, within the QUESTION_POOL best.
 */
export async function answerQuestion(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  f: ResolvedFilters,
  embedder: TextEmbedder | null | undefined,
): Promise<MeetingList> {
  const question = f.question!;
  const visible = listedAndVisible(p, f);
  const unavailable = await meaningUnavailable(db, embedder);
  const ranking = unavailable
    ? await rankingByWords(db, visible, question)
    : await rankingByMeaning(embedder!, visible, question, QUESTION_POOL);
  const page = ranking && answerPageSql(ranking, f.skip, f.limit);
  const rows = page ? (await db.raw<{ rows: AnswerRow[] }>(page.sql, page.bindings)).rows : [];
  const { moments, meetings, teamOf } = answerPage(config, rows);
  const hasMore = rows.length > f.skip + f.limit;
  const list: MeetingList = {
    meetings,
    total: rows.length,
    total_is_lower_bound: rows.length === QUESTION_POOL,
    has_more: hasMore,
    next_skip: hasMore ? f.skip + f.limit : null,
    answered_by: unavailable ? 'words' : 'meaning',
    ...(unavailable ? { note: `Answered by the question's words only: ${unavailable}.` } : {}),
  };
  const fitted = fitMoments([moments], LIST_TOKENS - estimateJsonTokens(list));
  recordReads(
    db,
    p,
    [...new Set(fitted.moments.map((m) => m.meeting_id))].map((id) => ({ id, teamId: teamOf.get(id)! })),
  );
  return { ...list, moments: fitted.moments, moments_omitted: fitted.omitted };
}
