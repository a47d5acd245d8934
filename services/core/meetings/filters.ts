/**
 * The filters of a meeting list, shared by every way of asking for one: svc_get_transcripts builds
 * them from its structured parameters, svc_search parses them from its query grammar, GraphQL
 * `transcripts` from its arguments. The checks below are the list's limits (svc_get_transcripts in
 * docs/tools.md), written once; each takes
 * the name the caller used for the value (`limit` in the grammar, `fromDate` in the structured
 * tool), so an error names what the caller actually wrote.
 */
import { invalid } from '../../platform/errors';
import { isEmail } from '../input';

export const SCOPES = ['title', 'sentences', 'all'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEYWORD_MAX = 255;
export const LIMIT_MAX = 50;
export const LIMIT_DEFAULT = 10;
/** Deep offsets get slow and no person pages that far; narrow the search instead. */
export const SKIP_MAX = 100_000;
/** Emails per organizers/participants filter. */
export const EMAILS_MAX = 50;

/** Orders of a list: newest first (default), or how well the meeting matches the keyword. */
export const SORTS = ['date', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];

/** Matching moments (sentences) shown per meeting of a keyword list. */
export const MOMENTS_DEFAULT = 3;
export const MOMENTS_MAX = 10;
/** A question in plain language (search by meaning): a sentence or two, not a document. */
export const QUESTION_MAX = 500;
/** A question answers moments, not meetings: `limit` counts them, and the first QUESTION_POOL are ranked. */
export const QUESTION_LIMIT_DEFAULT = 5;
export const QUESTION_LIMIT_MAX = 20;
export const QUESTION_POOL = 100;
/** Channel ids are the service's ids; anything longer than this is no channel of ours. */
export const CHANNEL_ID_MAX = 64;

/** What a caller asked for; absent keys mean "no filter" (or the default). */
export interface MeetingFilters {
  keyword?: string;
  /** A question in the caller's own words: answered with the moments that answer it best (question.ts). */
  question?: string;
  scope?: Scope;
  fromDate?: string;
  toDate?: string;
  limit?: number;
  skip?: number;
  organizers?: string[];
  participants?: string[];
  mine?: boolean;
  /** Only meetings of this channel (which the caller must be able to see). */
  channelId?: string;
  sort?: Sort;
  /** Matching sentences per meeting when there is a keyword (0: none). */
  moments?: number;
}

/** The filters checked and completed with defaults: what the query builder runs. */
export interface ResolvedFilters {
  keyword: string | null;
  question: string | null;
  scope: Scope;
  fromDate: string | null;
  toDate: string | null;
  limit: number;
  skip: number;
  /** Lower-cased, without duplicates. */
  organizers: string[];
  participants: string[];
  mine: boolean;
  channelId: string | null;
  sort: Sort;
  moments: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// NUL cannot be stored in PostgreSQL text, and other control characters are never meant in a search.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A real calendar date written YYYY-MM-DD (years 0001 to 9999): 2026-02-30 is not one. */
export function isCalendarDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  // Day 0 of the next month is the last day of this one (setUTCFullYear keeps years below 100 as written).
  const last = new Date(0);
  last.setUTCFullYear(y, mo, 0);
  return d <= last.getUTCDate();
}

export function checkDate(field: string, s: string): string {
  if (!isCalendarDate(s)) {
    throw invalid(
      field,
      'a real calendar date written YYYY-MM-DD',
      `${field} must be a real calendar date written YYYY-MM-DD; got ${JSON.stringify(s)}`,
    );
  }
  return s;
}

/** from after to can never match anything: almost always swapped values, so say so. */
export function checkDateOrder(field: string, from: string | undefined, to: string | undefined, toName: string): void {
  if (from && to && from > to) {
    throw invalid(
      field,
      `must not be after ${toName}`,
      `${field} (${from}) is after ${toName} (${to}); the range is inclusive, so put the earlier date first`,
    );
  }
}

export function checkLimit(field: string, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > LIMIT_MAX) {
    throw invalid(
      field,
      `a whole number from 1 to ${LIMIT_MAX}`,
      `${field} must be a whole number from 1 to ${LIMIT_MAX}; got ${n}. Page with skip for more.`,
    );
  }
  return n;
}

export function checkSkip(field: string, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > SKIP_MAX) {
    throw invalid(
      field,
      `a whole number from 0 to ${SKIP_MAX}`,
      `${field} must be a whole number from 0 to ${SKIP_MAX}; got ${n}`,
    );
  }
  return n;
}

export function checkKeyword(field: string, s: string): string {
  if (s.length > KEYWORD_MAX) {
    throw invalid(
      field,
      `at most ${KEYWORD_MAX} characters`,
      `${field} must be at most ${KEYWORD_MAX} characters; got ${s.length}`,
    );
  }
  if (CONTROL.test(s)) throw invalid(field, 'no control characters', `${field} must not contain control characters`);
  return s;
}

export function checkQuestion(field: string, s: string): string {
  if (s.length > QUESTION_MAX) {
    throw invalid(
      field,
      `at most ${QUESTION_MAX} characters`,
      `${field} must be at most ${QUESTION_MAX} characters; got ${s.length}`,
    );
  }
  if (CONTROL.test(s)) throw invalid(field, 'no control characters', `${field} must not contain control characters`);
  if (!s.trim()) throw invalid(field, 'not empty', `${field} must not be empty`);
  return s.trim();
}

/** A question pages its moments within QUESTION_POOL: limit 1 to QUESTION_LIMIT_MAX, skip + limit within the pool. */
function checkQuestionPage(f: MeetingFilters): { limit: number; skip: number } {
  const limit = f.limit ?? QUESTION_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > QUESTION_LIMIT_MAX) {
    throw invalid(
      'limit',
      `a whole number from 1 to ${QUESTION_LIMIT_MAX} with a question`,
      `limit must be a whole number from 1 to ${QUESTION_LIMIT_MAX} with a question (moments to answer); got ${limit}`,
    );
  }
  const skip = f.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0 || skip + limit > QUESTION_POOL) {
    throw invalid(
      'skip',
      `skip + limit at most ${QUESTION_POOL} with a question`,
      `skip must be a whole number with skip + limit at most ${QUESTION_POOL} with a question (the best ${QUESTION_POOL} moments are ranked); got ${skip}`,
    );
  }
  return { limit, skip };
}

/** What a question cannot be combined with: it finds moments by meaning, ranked by how well they answer. */
function checkQuestionAlone(f: MeetingFilters): void {
  const clash = (['keyword', 'scope', 'sort', 'moments'] as const).find((k) => f[k] !== undefined);
  if (clash) {
    throw invalid(
      clash,
      'not with question',
      `${clash} cannot be combined with question: a question is answered with the moments that answer it best; pass either keyword or question`,
    );
  }
}

export function isSearchEmail(s: string): boolean {
  return isEmail(s) && !CONTROL.test(s);
}

export function checkEmails(field: string, emails: readonly string[]): string[] {
  if (emails.length > EMAILS_MAX) {
    throw invalid(
      field,
      `at most ${EMAILS_MAX} emails`,
      `${field} takes at most ${EMAILS_MAX} emails; got ${emails.length}`,
    );
  }
  for (const e of emails) {
    if (!isSearchEmail(e)) {
      throw invalid(
        field,
        'every item an email address like name@example.com',
        `${field}: ${JSON.stringify(e)} is not an email address`,
      );
    }
  }
  return [...emails];
}

export function checkScope(field: string, s: string): Scope {
  if (!(SCOPES as readonly string[]).includes(s)) {
    throw invalid(
      field,
      `one of ${SCOPES.join(', ')}`,
      `${field} must be one of ${SCOPES.join(', ')}; got ${JSON.stringify(s)}`,
    );
  }
  return s as Scope;
}

export function checkSort(field: string, s: string): Sort {
  if (!(SORTS as readonly string[]).includes(s)) {
    throw invalid(
      field,
      `one of ${SORTS.join(', ')}`,
      `${field} must be one of ${SORTS.join(', ')}; got ${JSON.stringify(s)}`,
    );
  }
  return s as Sort;
}

export function checkMoments(field: string, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > MOMENTS_MAX) {
    throw invalid(
      field,
      `a whole number from 0 to ${MOMENTS_MAX}`,
      `${field} must be a whole number from 0 to ${MOMENTS_MAX}; got ${n}. Read more of one meeting with svc_get_transcript and keyword.`,
    );
  }
  return n;
}

export function checkChannelId(field: string, s: string): string {
  const v = s.trim();
  if (!v || v.length > CHANNEL_ID_MAX || CONTROL.test(v)) {
    throw invalid(
      field,
      `a channel id (1 to ${CHANNEL_ID_MAX} characters)`,
      `${field} must be a channel id as svc_list_channels answers it; got ${JSON.stringify(s)}`,
    );
  }
  return v;
}

const unique = (emails: string[]) => [...new Set(emails.map((e) => e.trim().toLowerCase()))];

/**
 * Check structured filters (the names of svc_get_transcripts) and fill in defaults. Every transport
 * ends here, so a limit holds whether or not the transport's own schema checked it first.
 */
export function resolveFilters(f: MeetingFilters): ResolvedFilters {
  const question = f.question === undefined ? null : checkQuestion('question', f.question);
  if (question !== null) checkQuestionAlone(f);
  const page = question !== null ? checkQuestionPage(f) : null;
  const keyword = f.keyword === undefined ? '' : checkKeyword('keyword', f.keyword).trim();
  if (f.fromDate !== undefined) checkDate('fromDate', f.fromDate);
  if (f.toDate !== undefined) checkDate('toDate', f.toDate);
  checkDateOrder('fromDate', f.fromDate, f.toDate, 'toDate');
  return {
    keyword: keyword || null,
    question,
    scope: f.scope === undefined ? 'all' : checkScope('scope', f.scope),
    fromDate: f.fromDate ?? null,
    toDate: f.toDate ?? null,
    limit: page ? page.limit : f.limit === undefined ? LIMIT_DEFAULT : checkLimit('limit', f.limit),
    skip: page ? page.skip : f.skip === undefined ? 0 : checkSkip('skip', f.skip),
    organizers: unique(checkEmails('organizers', f.organizers ?? [])),
    participants: unique(checkEmails('participants', f.participants ?? [])),
    mine: f.mine === true,
    channelId: f.channelId === undefined ? null : checkChannelId('channelId', f.channelId),
    sort: f.sort === undefined ? 'date' : checkSort('sort', f.sort),
    moments: f.moments === undefined ? MOMENTS_DEFAULT : checkMoments('moments', f.moments),
  };
}
