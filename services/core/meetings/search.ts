/**
 * Lists of meetings the caller may see: svc_get_transcripts (structured filters), svc_search (the
 * query grammar) and GraphQL `transcripts` all end in listMeetings, so the limits, the visibility
 * rule and the record shape are the same whichever way a caller asks.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { MeetingFilters, resolveFilters } from './filters';
import { parseSearchQuery } from './grammar';
import { findMeetings } from './query';
import type { Principal } from '../principal';
import { MeetingRecord, Page, toMeetingRecord } from './records';

/** A meeting in a list: its record and short summary; never transcript content. */
export interface MeetingListRecord extends MeetingRecord {
  summary: string | null;
}

export interface MeetingList extends Page {
  meetings: MeetingListRecord[];
  has_more: boolean;
  next_skip: number | null;
}

export type { MeetingFilters } from './filters';

/** Meetings visible to the caller that match the filters, newest first, one page at a time. */
export async function listMeetings(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  filters: MeetingFilters,
): Promise<MeetingList> {
  const f = resolveFilters(filters);
  const { rows, hasMore } = await findMeetings(db, p, f);
  return {
    meetings: rows.map((r) => ({
      ...toMeetingRecord(config, r, r.participants),
      // An empty short summary says nothing; null tells the reader there is none.
      summary: r.short_summary || null,
    })),
    has_more: hasMore,
    next_skip: hasMore ? f.skip + rows.length : null,
  };
}

/** svc_search: the same list, with the filters written in the query grammar. */
export async function searchMeetings(db: Knex, config: Pick<Config, 'publicBaseUrl'>, p: Principal, query: string): Promise<MeetingList> {
  return listMeetings(db, config, p, parseSearchQuery(query));
}
