import { ServiceError } from '../../../../services/platform/errors';
import { parseSearchQuery, QUERY_MAX } from '../../../../services/core/meetings';

/** The error a query raises, or a failure naming the query when it parses. */
function errorOf(query: string): ServiceError {
  try {
    parseSearchQuery(query);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

describe('svc_search grammar', () => {
  it('parses every token into the structured filters of svc_get_transcripts', () => {
    expect(
      parseSearchQuery(
        'keyword:"quarterly budget" scope:sentences from:2026-01-01 to:2026-02-28 limit:20 skip:40 ' +
          'organizers:ana@example.com,bo@example.com participants:cy@example.com mine:true',
      ),
    ).toEqual({
      keyword: '"quarterly budget"',
      scope: 'sentences',
      fromDate: '2026-01-01',
      toDate: '2026-02-28',
      limit: 20,
      skip: 40,
      organizers: ['ana@example.com', 'bo@example.com'],
      participants: ['cy@example.com'],
      mine: true,
    });
  });

  it('treats an empty or blank query as no filters', () => {
    expect(parseSearchQuery('')).toEqual({});
    expect(parseSearchQuery(' \t\n ')).toEqual({});
  });

  it('takes bare words and quoted phrases as keyword terms that must all match', () => {
    expect(parseSearchQuery('budget roadmap')).toEqual({ keyword: 'budget roadmap' });
    expect(parseSearchQuery('"pricing page" keyword:launch  keyword:"go live"')).toEqual({
      keyword: '"pricing page" launch "go live"',
    });
    // A one-word quoted term needs no phrase quotes; inner whitespace is collapsed.
    expect(parseSearchQuery('keyword:"  budget  "')).toEqual({ keyword: 'budget' });
    expect(parseSearchQuery('keyword:"a \t b"')).toEqual({ keyword: '"a b"' });
    // Words that look like numbers or times are words, not tokens.
    expect(parseSearchQuery('10:30 2026')).toEqual({ keyword: '10:30 2026' });
  });

  it('reads \\" and \\\\ escapes inside quotes and keeps other backslashes', () => {
    expect(parseSearchQuery('keyword:"say \\"hi\\""')).toEqual({ keyword: 'say "hi"' });
    expect(parseSearchQuery('keyword:"a\\\\b"')).toEqual({ keyword: 'a\\b' });
    expect(parseSearchQuery('keyword:"c:\\temp"')).toEqual({ keyword: 'c:\\temp' });
  });

  it('accepts quoted values for every token, and token names in any case', () => {
    expect(
      parseSearchQuery('LIMIT:"5" Scope:Title MINE:False participants:" ana@example.com , bo@example.com "'),
    ).toEqual({
      limit: 5,
      scope: 'title',
      mine: false,
      participants: ['ana@example.com', 'bo@example.com'],
    });
  });

  it('accumulates organizers and participants across repeats (any of them matches)', () => {
    expect(
      parseSearchQuery('organizers:a@x.io organizers:b@x.io,c@x.io participants:d@x.io participants:e@x.io'),
    ).toEqual({
      organizers: ['a@x.io', 'b@x.io', 'c@x.io'],
      participants: ['d@x.io', 'e@x.io'],
    });
  });

  it.each([
    'scope:title scope:all',
    'from:2026-01-01 from:2026-01-02',
    'to:2026-01-01 to:2026-01-01',
    'limit:5 limit:5',
    'skip:0 skip:10',
    'mine:true mine:false',
  ])('refuses a repeated scalar as ambiguous: %s', (q) => {
    const e = errorOf(q);
    expect(e.code).toBe('invalid_arguments');
    expect(e.details).toEqual({ field: q.split(':')[0], rule: 'at most once' });
  });

  it('bounds limit to 1..50 and skip to 0..100000', () => {
    expect(parseSearchQuery('limit:50')).toEqual({ limit: 50 });
    expect(parseSearchQuery('limit:1')).toEqual({ limit: 1 });
    expect(parseSearchQuery('limit:007')).toEqual({ limit: 7 });
    expect(parseSearchQuery('skip:0')).toEqual({ skip: 0 });
    expect(parseSearchQuery('skip:100000')).toEqual({ skip: 100000 });
    for (const q of [
      'limit:51',
      'limit:0',
      'limit:-1',
      'limit:5.5',
      'limit:ten',
      'limit:+5',
      'limit:99999999999999999999',
    ]) {
      const e = errorOf(q);
      expect({ q, code: e.code, field: e.details.field }).toEqual({ q, code: 'invalid_arguments', field: 'limit' });
    }
    expect(errorOf('limit:51').details.rule).toBe('a whole number from 1 to 50');
    for (const q of ['skip:-1', 'skip:100001', 'skip:1e3']) expect(errorOf(q).details.field).toBe('skip');
  });

  it('accepts real calendar dates only, and from no later than to', () => {
    expect(parseSearchQuery('from:2024-02-29 to:2024-02-29')).toEqual({ fromDate: '2024-02-29', toDate: '2024-02-29' });
    for (const [q, field] of [
      ['from:2026-02-30', 'from'],
      ['to:2025-02-29', 'to'],
      ['from:2026-13-01', 'from'],
      ['from:2026-1-01', 'from'],
      ['to:0000-01-01', 'to'],
      ['to:2026-01-01T00:00', 'to'],
      ['from:yesterday', 'from'],
    ]) {
      const e = errorOf(q);
      expect({ q, field: e.details.field, rule: e.details.rule }).toEqual({
        q,
        field,
        rule: 'a real calendar date written YYYY-MM-DD',
      });
    }
    const order = errorOf('to:2026-01-01 from:2026-01-02');
    expect(order.details).toEqual({ field: 'from', rule: 'must not be after to' });
  });

  it('refuses malformed emails naming the token', () => {
    for (const q of [
      'organizers:ana',
      'participants:ana@example',
      'participants:a@x.io,',
      'organizers:a@x.io,,b@x.io',
      'participants:"a b@x.io"',
    ]) {
      const e = errorOf(q);
      expect({ q, field: e.details.field, rule: e.details.rule }).toEqual({
        q,
        field: q.split(':')[0],
        rule: 'comma-separated email addresses',
      });
    }
  });

  it('caps the emails of one filter at 50 across repeats', () => {
    const list = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}@x.io`).join(',');
    expect(parseSearchQuery(`participants:${list(50)}`).participants).toHaveLength(50);
    expect(errorOf(`participants:${list(30)} participants:${list(21, 30)}`).details).toEqual({
      field: 'participants',
      rule: 'at most 50 emails',
    });
  });

  it('refuses unknown tokens, empty values and bad scalars naming the token', () => {
    expect(errorOf('foo:bar').details).toEqual({
      field: 'foo',
      rule: expect.stringMatching(/^a known token: keyword, question, scope/),
    });
    expect(errorOf('https://example.com').details.field).toBe('https');
    expect(errorOf('limit:').details).toEqual({ field: 'limit', rule: 'needs a value' });
    expect(errorOf('keyword: budget').details).toEqual({ field: 'keyword', rule: 'needs a value' });
    expect(errorOf('keyword:""').details).toEqual({ field: 'keyword', rule: 'needs a value' });
    expect(errorOf('scope:everything').details).toEqual({ field: 'scope', rule: 'one of title, sentences, all' });
    expect(errorOf('mine:yes').details).toEqual({ field: 'mine', rule: 'true or false' });
  });

  it('refuses unterminated quotes and text glued to a closing quote', () => {
    expect(errorOf('keyword:"budget').details).toEqual({ field: 'keyword', rule: 'quotes must be closed' });
    expect(errorOf('"budget review').details).toEqual({ field: 'keyword', rule: 'quotes must be closed' });
    expect(errorOf('participants:"a@x.io').details).toEqual({ field: 'participants', rule: 'quotes must be closed' });
    expect(errorOf('keyword:"ends with escape\\"').details.rule).toBe('quotes must be closed');
    expect(errorOf('keyword:"a"b').details).toEqual({ field: 'keyword', rule: 'a space after the closing quote' });
  });

  it('holds the joined keyword to 255 characters, like svc_get_transcripts', () => {
    const a = 'a'.repeat(127);
    expect(parseSearchQuery(`${a} ${a}`).keyword).toHaveLength(255);
    expect(errorOf(`${a} ${a}b`).details).toEqual({ field: 'keyword', rule: 'at most 255 characters' });
    expect(parseSearchQuery(`keyword:"${'x'.repeat(255)}"`).keyword).toHaveLength(255);
    expect(errorOf(`keyword:"${'x'.repeat(256)}"`).details.field).toBe('keyword');
  });

  it('refuses control characters in keywords (PostgreSQL text cannot hold NUL)', () => {
    expect(errorOf('budget\u0000x').details).toEqual({ field: 'keyword', rule: 'no control characters' });
  });

  it('refuses a query longer than 4096 characters', () => {
    expect(parseSearchQuery(' '.repeat(QUERY_MAX))).toEqual({});
    expect(errorOf(' '.repeat(QUERY_MAX + 1)).details).toEqual({ field: 'query', rule: 'at most 4096 characters' });
  });
});
