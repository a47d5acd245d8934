/**
 * A question in the caller's own words, answered with the moments that answer it best across the
 * meetings the caller may see (svc_get_transcripts and svc_search with a question, GraphQL
 * `transcripts(question:)`).
 *
 * Two rankings of sentences, fused by reciprocal rank (each sentence scores the sum of 1 / (K + its
 * rank) in each list): by meaning, the passages nearest the question's vector and, inside each, its
 * sentences scored on their own vectors, so a passage that answers cites the one sentence that
 * answers best; by words, the sentences that hold the question's words. A moment is a sentence with
 * the sentences either side of it; a moment right next to a better one of the same meeting is left
 * out, since it cites the same place. Filters (dates, people, channel, mine) and the visibility rule
 * narrow every ranking before it ranks (question-sql.ts). Where the server has no embedding model or
 * its PostgreSQL no pgvector, the words alone answer, and the answer says so.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { recordReads } from '../read-audit';
import type { Principal } from '../principal';
import { estimateJsonTokens } from '../tokens';
import { type TextEmbedder, vectorLiteral, vectorTablesExist } from '../passages';
import type { ResolvedFilters } from './filters';
import { QUESTION_POOL } from './filters';
import type { MeetingList, MeetingListRecord } from './list';
import type { MeetingListRow } from './list-sql';
import { listedAndVisible } from './list-sql';
import { fitMoments, LIST_TOKENS, momentLink, type MomentRecord } from './moments';
import {
  momentMeetingsSql,
  momentSentencesSql,
  nearestPassagesSql,
  sentenceSimilaritySql,
  wordSentencesSql,
} from './question-sql';
import { toMeetingRecord } from './records';

/** Passages read from the vector index for a question. */
const PASSAGE_CANDIDATES = 40;
/** Sentences of the word ranking fused; and the most word matches read to rank them. */
const WORD_CANDIDATES = 40;
const WORD_POOL = 5000;
/** Reciprocal rank fusion's constant: a larger one flattens the difference between the top ranks. */
const RRF_K = 30;
/** A sentence's meaning score: its passage's similarity and its own, weighted so. */
const PASSAGE_WEIGHT = 0.5;
/** HNSW's candidate list while searching: more finds nearer passages, slower. */
const EF_SEARCH = 100;
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

interface Ranked {
  meeting_id: string;
  idx: number;
}

const key = (r: Ranked) => `${r.meeting_id}\u0000${r.idx}`;

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
  if (!embedder) return 'this server has no embedding model (EMBEDDING_MODEL_DIR)';
  if (!(await vectorStoreReady(db))) return "this server's PostgreSQL lacks the pgvector extension";
  return null;
}

/** Sentences ranked by meaning: each sentence of the nearest passages, by its passage's similarity and its own. */
async function byMeaning(
  db: Knex,
  embedder: TextEmbedder,
  visible: ReturnType<typeof listedAndVisible>,
  question: string,
): Promise<Ranked[]> {
  const { name, dims } = embedder.info;
  const vector = vectorLiteral(await embedder.embedQuery(question));
  const passages = await db.transaction(async (trx) => {
    await trx.raw(`set local hnsw.ef_search = ${EF_SEARCH}`);
    await trx.raw("set local hnsw.iterative_scan = 'relaxed_order'");
    const q = nearestPassagesSql(visible, name, dims, vector, PASSAGE_CANDIDATES);
    return (
      await trx.raw<{ rows: { meeting_id: string; first_idx: number; last_idx: number; distance: number }[] }>(
        q.sql,
        q.bindings,
      )
    ).rows;
  });
  if (!passages.length) return [];
  const s = sentenceSimilaritySql(dims, vector, passages);
  const sentences = (
    await db.raw<{ rows: { meeting_id: string; idx: number; similarity: number }[] }>(s.sql, s.bindings)
  ).rows;
  const own = new Map(sentences.map((r) => [key(r), Number(r.similarity)]));
  const score = new Map<string, { r: Ranked; score: number }>();
  for (const p of passages) {
    const passage = 1 - Number(p.distance);
    for (let idx = p.first_idx; idx <= p.last_idx; idx++) {
      const r = { meeting_id: p.meeting_id, idx };
      const alone = own.get(key(r));
      if (alone === undefined) continue;
      const s2 = PASSAGE_WEIGHT * passage + (1 - PASSAGE_WEIGHT) * alone;
      const had = score.get(key(r));
      if (!had || had.score < s2) score.set(key(r), { r, score: s2 });
    }
  }
  return [...score.values()].sort((a, b) => b.score - a.score).map((x) => x.r);
}

async function byWords(db: Knex, visible: ReturnType<typeof listedAndVisible>, question: string): Promise<Ranked[]> {
  const q = wordSentencesSql(visible, question, WORD_POOL, WORD_CANDIDATES);
  return (await db.raw<{ rows: Ranked[] }>(q.sql, q.bindings)).rows;
}

/** Reciprocal rank fusion of the rankings, then every moment next to a better one of its meeting left out. */
export function fuse(rankings: Ranked[][], pool = QUESTION_POOL): Ranked[] {
  const scores = new Map<string, { r: Ranked; score: number }>();
  for (const ranking of rankings) {
    ranking.forEach((r, rank) => {
      const had = scores.get(key(r)) ?? { r, score: 0 };
      had.score += 1 / (RRF_K + rank + 1);
      scores.set(key(r), had);
    });
  }
  const order = [...scores.values()].sort(
    (a, b) => b.score - a.score || a.r.meeting_id.localeCompare(b.r.meeting_id) || a.r.idx - b.r.idx,
  );
  const chosen: Ranked[] = [];
  for (const { r } of order) {
    if (chosen.some((c) => c.meeting_id === r.meeting_id && Math.abs(c.idx - r.idx) <= 1)) continue;
    chosen.push(r);
    if (chosen.length === pool) break;
  }
  return chosen;
}

interface SentenceRow {
  meeting_id: string;
  idx: number;
  speaker_name: string;
  start_time: number;
  text: string;
}

const cut = (s: string | undefined) => (!s ? '' : s.length <= CONTEXT_CHARS ? s : `${s.slice(0, CONTEXT_CHARS - 1)}…`);

/** The page's moments with their sentences and neighbours, and their meetings in the order of their best moment. */
async function answerPage(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  page: Ranked[],
): Promise<{ moments: AnswerMoment[]; meetings: MeetingListRecord[]; rows: MeetingListRow[] }> {
  if (!page.length) return { moments: [], meetings: [], rows: [] };
  const s = momentSentencesSql(page);
  const m = momentMeetingsSql([...new Set(page.map((r) => r.meeting_id))]);
  const [sentences, meetingRows] = await Promise.all([
    db.raw<{ rows: SentenceRow[] }>(s.sql, s.bindings),
    db.raw<{ rows: MeetingListRow[] }>(m.sql, m.bindings),
  ]);
  const sentence = new Map(sentences.rows.map((r) => [key(r), r]));
  const byId = new Map(meetingRows.rows.map((r) => [r.id, r]));
  const records = new Map(
    meetingRows.rows.map((r) => [
      r.id,
      { ...toMeetingRecord(config, r, r.participants), summary: r.short_summary || null },
    ]),
  );
  const moments: AnswerMoment[] = [];
  for (const r of page) {
    const at = sentence.get(key(r));
    const meeting = records.get(r.meeting_id);
    if (!at || !meeting) continue; // deleted since it was ranked
    const start = Number(at.start_time);
    moments.push({
      meeting_id: r.meeting_id,
      title: meeting.title,
      index: r.idx,
      speaker_name: at.speaker_name,
      start_time: start,
      text: at.text,
      before: cut(sentence.get(key({ meeting_id: r.meeting_id, idx: r.idx - 1 }))?.text),
      after: cut(sentence.get(key({ meeting_id: r.meeting_id, idx: r.idx + 1 }))?.text),
      link: momentLink(meeting.transcript_url, start),
    });
  }
  const order = [...new Set(moments.map((x) => x.meeting_id))];
  return {
    moments,
    meetings: order.map((id) => records.get(id)!),
    rows: order.map((id) => byId.get(id)!),
  };
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
  const [meaning, words] = await Promise.all([
    unavailable ? Promise.resolve([]) : byMeaning(db, embedder!, visible, question),
    byWords(db, visible, question),
  ]);
  const ranked = fuse(unavailable ? [words] : [meaning, words]);
  const page = ranked.slice(f.skip, f.skip + f.limit);
  const { moments, meetings, rows } = await answerPage(db, config, page);
  const hasMore = ranked.length > f.skip + f.limit;
  const list: MeetingList = {
    meetings,
    total: ranked.length,
    total_is_lower_bound: ranked.length === QUESTION_POOL,
    has_more: hasMore,
    next_skip: hasMore ? f.skip + f.limit : null,
    answered_by: unavailable ? 'words' : 'meaning',
    ...(unavailable ? { note: `Answered by the question's words only: ${unavailable}.` } : {}),
  };
  const fitted = fitMoments([moments], LIST_TOKENS - estimateJsonTokens(list));
  const teamOf = new Map(rows.map((r) => [r.id, r.team_id]));
  recordReads(
    db,
    p,
    [...new Set(fitted.moments.map((m) => m.meeting_id))].map((id) => ({ id, teamId: teamOf.get(id)! })),
  );
  return { ...list, moments: fitted.moments, moments_omitted: fitted.omitted };
}
