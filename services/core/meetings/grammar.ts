/**
 * The svc_search query grammar (svc_search in docs/tools.md), parsed into the same MeetingFilters that
 * svc_get_transcripts builds from its structured parameters, so both tools list meetings alike.
 *
 *   query   := chunk (whitespace chunk)*
 *   chunk   := name ':' value      a token, e.g. limit:20, keyword:"weekly sync"
 *            | value              a bare word or "quoted phrase": a keyword term
 *   value   := '"' (char | '\"' | '\\')* '"'  |  non-whitespace characters
 *
 * Tokens: keyword, question, scope, from, to, limit, skip, organizers, participants, mine, channel, sort, moments.
 * Token names and the words title/sentences/all/true/false/date/relevance are case-insensitive. Keyword terms combine (all must match);
 * organizers and participants accumulate (any of them matches); any other token given twice is
 * ambiguous and refused. Every problem is an invalid_arguments error whose field is the token name.
 */
import { invalid } from '../../platform/errors';
import {
  checkChannelId,
  checkDate,
  checkDateOrder,
  checkEmails,
  checkKeyword,
  checkLimit,
  checkMoments,
  checkScope,
  checkQuestion,
  checkSkip,
  checkSort,
  isSearchEmail,
  MeetingFilters,
  Scope,
  Sort,
} from './filters';

export const TOKENS = [
  'keyword',
  'question',
  'scope',
  'from',
  'to',
  'limit',
  'skip',
  'organizers',
  'participants',
  'mine',
  'channel',
  'sort',
  'moments',
] as const;
export type TokenName = (typeof TOKENS)[number];

/** Room for a 255-character keyword and long email lists, not for an unbounded string. */
export const QUERY_MAX = 4096;

/** A chunk of the query: a token with its value, or a bare keyword term (name null). */
interface Chunk {
  name: string | null;
  value: string;
  quoted: boolean;
}

const TOKEN_NAME = /[A-Za-z][A-Za-z0-9_]*:/y;
const SPACE = /\s/;

/** Split the query into chunks, reading quoted values with their escapes. */
export function tokenize(query: string): Chunk[] {
  const chunks: Chunk[] = [];
  let i = 0;
  const n = query.length;
  while (i < n) {
    if (SPACE.test(query[i])) {
      i++;
      continue;
    }
    TOKEN_NAME.lastIndex = i;
    const named = TOKEN_NAME.exec(query);
    const name = named ? named[0].slice(0, -1) : null;
    if (named) i += named[0].length;
    if (query[i] === '"') {
      const { value, end } = readQuoted(query, i, name ?? 'keyword');
      chunks.push({ name, value, quoted: true });
      i = end;
      continue;
    }
    const start = i;
    while (i < n && !SPACE.test(query[i])) i++;
    chunks.push({ name, value: query.slice(start, i), quoted: false });
  }
  return chunks;
}

/** A double-quoted value starting at `open`; `\"` and `\\` are escapes, any other backslash is kept. */
function readQuoted(query: string, open: number, field: string): { value: string; end: number } {
  let value = '';
  let i = open + 1;
  while (i < query.length) {
    const c = query[i];
    if (c === '\\' && (query[i + 1] === '"' || query[i + 1] === '\\')) {
      value += query[i + 1];
      i += 2;
    } else if (c === '"') {
      i++;
      if (i < query.length && !SPACE.test(query[i])) {
        throw invalid(
          field,
          'a space after the closing quote',
          `${field}: put a space after the closing quote (or escape the quote as \\")`,
        );
      }
      return { value, end: i };
    } else {
      value += c;
      i++;
    }
  }
  throw invalid(
    field,
    'quotes must be closed',
    `${field}: the quoted value has no closing quote; close it with " (write \\" for a quote inside)`,
  );
}

/**
 * One keyword term as it goes into the keyword string. Keyword strings use web-search syntax, so a
 * quoted term with several words is kept as a phrase by quoting it again.
 */
export function keywordTerm(raw: string): string {
  const t = raw.trim().replace(/\s+/g, ' ');
  if (!t) throw needsValue('keyword');
  return t.includes(' ') && !t.includes('"') ? `"${t}"` : t;
}

const needsValue = (name: string) =>
  invalid(
    name,
    'needs a value',
    `${name}: needs a value after the colon, e.g. ${EXAMPLES[name as TokenName] ?? 'keyword:budget'}`,
  );

const EXAMPLES: Record<TokenName, string> = {
  keyword: 'keyword:"quarterly budget"',
  question: 'question:"when is the pilot supposed to start?"',
  scope: 'scope:title',
  from: 'from:2026-01-31',
  to: 'to:2026-02-28',
  limit: 'limit:20',
  skip: 'skip:10',
  organizers: 'organizers:ana@example.com,bo@example.com',
  participants: 'participants:ana@example.com',
  mine: 'mine:true',
  channel: 'channel:<id from svc_list_channels>',
  sort: 'sort:relevance',
  moments: 'moments:5',
};

const WHOLE_NUMBER = /^\d+$/;

function wholeNumber(name: string, value: string): number {
  if (!WHOLE_NUMBER.test(value)) {
    throw invalid(
      name,
      'a whole number',
      `${name} must be a whole number, e.g. ${EXAMPLES[name as TokenName]}; got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

function emailList(name: string, value: string): string[] {
  const emails = value.split(',').map((e) => e.trim());
  for (const e of emails) {
    if (!isSearchEmail(e)) {
      throw invalid(
        name,
        'comma-separated email addresses',
        `${name}: ${JSON.stringify(e)} is not an email address; write ${EXAMPLES[name as TokenName]}`,
      );
    }
  }
  return emails;
}

function boolean(name: string, value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalid(name, 'true or false', `${name} must be true or false; got ${JSON.stringify(value)}`);
}

/** Parse a svc_search query into meeting filters, or throw invalid_arguments naming the token. */
export function parseSearchQuery(query: string): MeetingFilters {
  if (query.length > QUERY_MAX) {
    throw invalid(
      'query',
      `at most ${QUERY_MAX} characters`,
      `query must be at most ${QUERY_MAX} characters; got ${query.length}`,
    );
  }
  const terms: string[] = [];
  const scalars: {
    question?: string;
    scope?: Scope;
    from?: string;
    to?: string;
    limit?: number;
    skip?: number;
    mine?: boolean;
    channel?: string;
    sort?: Sort;
    moments?: number;
  } = {};
  const organizers: string[] = [];
  const participants: string[] = [];
  const once = (name: keyof typeof scalars) => {
    if (scalars[name] !== undefined)
      throw invalid(name, 'at most once', `${name} appears more than once; give it once`);
  };

  for (const chunk of tokenize(query)) {
    if (chunk.name === null) {
      terms.push(keywordTerm(chunk.value));
      continue;
    }
    const name = chunk.name.toLowerCase();
    if (!(TOKENS as readonly string[]).includes(name)) {
      throw invalid(
        chunk.name,
        `a known token: ${TOKENS.join(', ')}`,
        `unknown token ${chunk.name}: use one of ${TOKENS.join(', ')}; to search for words containing a colon, put them in quotes, e.g. "${chunk.name}:..."`,
      );
    }
    if (chunk.value === '' && name !== 'keyword') throw needsValue(name);
    switch (name as TokenName) {
      case 'keyword':
        terms.push(keywordTerm(chunk.value));
        break;
      case 'question':
        once('question');
        scalars.question = checkQuestion('question', chunk.value);
        break;
      case 'scope':
        once('scope');
        scalars.scope = checkScope('scope', chunk.value.toLowerCase());
        break;
      case 'from':
      case 'to':
        once(name as 'from' | 'to');
        scalars[name as 'from' | 'to'] = checkDate(name, chunk.value);
        break;
      case 'limit':
        once('limit');
        scalars.limit = checkLimit('limit', wholeNumber('limit', chunk.value));
        break;
      case 'skip':
        once('skip');
        scalars.skip = checkSkip('skip', wholeNumber('skip', chunk.value));
        break;
      case 'organizers':
        organizers.push(...emailList('organizers', chunk.value));
        break;
      case 'participants':
        participants.push(...emailList('participants', chunk.value));
        break;
      case 'mine':
        once('mine');
        scalars.mine = boolean('mine', chunk.value);
        break;
      case 'channel':
        once('channel');
        scalars.channel = checkChannelId('channel', chunk.value);
        break;
      case 'sort':
        once('sort');
        scalars.sort = checkSort('sort', chunk.value.toLowerCase());
        break;
      case 'moments':
        once('moments');
        scalars.moments = checkMoments('moments', wholeNumber('moments', chunk.value));
        break;
    }
  }

  checkDateOrder('from', scalars.from, scalars.to, 'to');
  const filters: MeetingFilters = {};
  if (terms.length) filters.keyword = checkKeyword('keyword', terms.join(' '));
  if (scalars.question !== undefined) filters.question = scalars.question;
  if (scalars.scope !== undefined) filters.scope = scalars.scope;
  if (scalars.from !== undefined) filters.fromDate = scalars.from;
  if (scalars.to !== undefined) filters.toDate = scalars.to;
  if (scalars.limit !== undefined) filters.limit = scalars.limit;
  if (scalars.skip !== undefined) filters.skip = scalars.skip;
  if (organizers.length) filters.organizers = checkEmails('organizers', organizers);
  if (participants.length) filters.participants = checkEmails('participants', participants);
  if (scalars.mine !== undefined) filters.mine = scalars.mine;
  if (scalars.channel !== undefined) filters.channelId = scalars.channel;
  if (scalars.sort !== undefined) filters.sort = scalars.sort;
  if (scalars.moments !== undefined) filters.moments = scalars.moments;
  return filters;
}
