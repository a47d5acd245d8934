/**
 * Lists of meetings the caller may see: svc_get_transcripts (structured filters), svc_search (the
 * query grammar) and GraphQL `transcripts` all end in listMeetings, so the limits, the visibility
 * rule and the record shape are the same whichever way a caller asks.
 */
import type { Knex } from 'knex';
import { recordReads } from '../audit';
import type { Config } from '../../platform/config';
import { notFound } from '../../platform/errors';
import { channelVisibleTo, type Principal } from '../access';
import { MeetingFilters, resolveFilters } from './filters';
import { parseSearchQuery } from './grammar';
import { estimateJsonTokens } from '../limits';
import { findMoments, fitMoments, LIST_TOKENS, MomentRecord } from './moments';
import { findMeetings } from './list-plan';
import { momentTsquery, momentWords } from './keyword-query';
import { MeetingRecord, Page, toMeetingRecord } from './records';
import { answerQuestion, type AnsweredBy } from './question';
import type { TextEmbedder } from '../passages';

/** A meeting in a list: its record and short summary; never transcript content. */
export interface MeetingListRecord extends MeetingRecord {
  summary: string | null;
}

export interface MeetingList extends Page {
  meetings: MeetingListRecord[];
  /**
   * With a keyword (scope sentences or all): the page's matching sentences, at most `moments` a
   * meeting, best first, keyed by meeting_id. Absent without a keyword or with scope title.
   */
  moments?: MomentRecord[];
  /** Moments left out to keep the answer within its token budget (read them with svc_get_transcript and keyword). */
  moments_omitted?: number;
  /** Meetings that match, exact up to TOTAL_BOUND (100); past it 100 with total_is_lower_bound true. Every list answers both. */
  total?: number;
  total_is_lower_bound?: boolean;
  has_more: boolean;
  next_skip: number | null;
  /** With a question: whether it was answered by meaning, or by its words alone (and then `note` says why). */
  answered_by?: AnsweredBy;
  note?: string;
}

export type { MeetingFilters } from './filters';

/** A channel filter names a channel the caller can see, or the list is object_not_found (as a read of it would be). */
async function requireVisibleChannel(db: Knex, p: Principal, channelId: string): Promise<void> {
  const row = await db('channels as c').modify(channelVisibleTo(p, 'c')).where('c.id', channelId).first('c.id');
  if (!row) throw notFound('channel', channelId);
}

/** Meetings visible to the caller that match the filters, newest first (or by relevance), one page at a time. */
export async function listMeetings(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  filters: MeetingFilters,
  embedder?: TextEmbedder | null,
): Promise<MeetingList> {
  const f = resolveFilters(filters);
  if (f.channelId) await requireVisibleChannel(db, p, f.channelId);
  if (f.question !== null) return answerQuestion(db, config, p, f, embedder);
  const { rows, hasMore, total, totalIsLowerBound, keyword } = await findMeetings(db, p, f);
  const meetings = rows.map((r) => ({
    ...toMeetingRecord(config, r, r.participants),
    // An empty short summary says nothing; null tells the reader there is none.
    summary: r.short_summary || null,
  }));
  const list: MeetingList = {
    meetings,
    total,
    total_is_lower_bound: totalIsLowerBound,
    has_more: hasMore,
    next_skip: hasMore ? f.skip + rows.length : null,
  };
  const said = keyword && f.scope !== 'title' ? keyword : null;
  const sentenceQuery = said && momentTsquery(said);
  if (!said || !sentenceQuery || f.moments === 0) return list;
  const words = momentWords(
    said,
    rows.map((r) => r.search_config),
  );
  const found = await findMoments(db, meetings, sentenceQuery, f.moments, words);
  const { moments, omitted } = fitMoments(found, LIST_TOKENS - estimateJsonTokens(list));
  // Moments are what was said: the read audit records one read of each meeting whose moments are answered.
  const teamOf = new Map(rows.map((r) => [r.id, r.team_id]));
  recordReads(
    db,
    p,
    moments.map((m) => ({ id: m.meeting_id, teamId: teamOf.get(m.meeting_id)! })),
  );
  return { ...list, moments, moments_omitted: omitted };
}

/** svc_search: the same list, with the filters written in the query grammar. */
export async function searchMeetings(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  query: string,
  embedder?: TextEmbedder | null,
): Promise<MeetingList> {
  return listMeetings(db, config, p, parseSearchQuery(query), embedder);
}
