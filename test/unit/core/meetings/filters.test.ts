/**
 * The checks core applies to every meeting list, whichever transport asked (GraphQL and automation
 * rules call listMeetings without the MCP tool's zod schema in front).
 */
import { ServiceError } from '../../../../services/platform/errors';
import { isCalendarDate, MeetingFilters } from '../../../../services/core/meetings';
import { resolveFilters } from '../../../../services/core/meetings/filters';

function refusal(f: unknown): { code: string; field?: string; rule?: string } {
  try {
    resolveFilters(f as MeetingFilters);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    const err = e as ServiceError;
    return { code: err.code, field: err.details.field, rule: err.details.rule };
  }
  throw new Error(`expected ${JSON.stringify(f)} to be refused`);
}

describe('resolveFilters', () => {
  it('fills in the defaults: all scope, 10 per page from the first, no keyword, no channel, by date, 3 moments', () => {
    expect(resolveFilters({})).toEqual({
      keyword: null,
      question: null,
      scope: 'all',
      fromDate: null,
      toDate: null,
      limit: 10,
      skip: 0,
      organizers: [],
      participants: [],
      mine: false,
      channelId: null,
      sort: 'date',
      moments: 3,
    });
  });

  it('checks sort, moments and channelId', () => {
    expect(resolveFilters({ sort: 'relevance', moments: 0, channelId: ' c1 ' })).toMatchObject({
      sort: 'relevance',
      moments: 0,
      channelId: 'c1',
    });
    expect(() => resolveFilters({ sort: 'best' as never })).toThrow(/sort must be one of date, relevance/);
    expect(() => resolveFilters({ moments: 11 })).toThrow(/moments must be a whole number from 0 to 10/);
    expect(() => resolveFilters({ moments: -1 })).toThrow(/moments/);
    expect(() => resolveFilters({ channelId: ' ' })).toThrow(/channelId must be a channel id/);
  });

  it('trims the keyword and treats a blank one as none', () => {
    expect(resolveFilters({ keyword: '  budget  ' }).keyword).toBe('budget');
    expect(resolveFilters({ keyword: ' \t ' }).keyword).toBeNull();
  });

  it('lower-cases emails and drops duplicates', () => {
    expect(resolveFilters({ organizers: ['Ana@X.io', 'ana@x.io', 'bo@x.io'], participants: ['C@X.IO'] })).toMatchObject(
      {
        organizers: ['ana@x.io', 'bo@x.io'],
        participants: ['c@x.io'],
      },
    );
  });

  it('holds every limit on both sides of its boundary, naming the structured parameter', () => {
    expect(resolveFilters({ keyword: 'k'.repeat(255) }).keyword).toHaveLength(255);
    expect(refusal({ keyword: 'k'.repeat(256) })).toEqual({
      code: 'invalid_arguments',
      field: 'keyword',
      rule: 'at most 255 characters',
    });
    expect(resolveFilters({ limit: 50 }).limit).toBe(50);
    expect(resolveFilters({ limit: 1 }).limit).toBe(1);
    expect(refusal({ limit: 51 })).toMatchObject({ field: 'limit', rule: 'a whole number from 1 to 50' });
    expect(refusal({ limit: 0 })).toMatchObject({ field: 'limit' });
    expect(refusal({ limit: 1.5 })).toMatchObject({ field: 'limit' });
    expect(resolveFilters({ skip: 100000 }).skip).toBe(100000);
    expect(refusal({ skip: 100001 })).toMatchObject({ field: 'skip' });
    expect(refusal({ skip: -1 })).toMatchObject({ field: 'skip' });
    const emails = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.io`);
    expect(resolveFilters({ participants: emails(50) }).participants).toHaveLength(50);
    expect(refusal({ participants: emails(51) })).toMatchObject({ field: 'participants', rule: 'at most 50 emails' });
  });

  it('refuses malformed emails, dates, order and scope', () => {
    expect(refusal({ organizers: ['a@b.co', 'nope'] })).toMatchObject({
      field: 'organizers',
      rule: 'every item an email address like name@example.com',
    });
    expect(refusal({ participants: ['a\u0000@b.co'] })).toMatchObject({ field: 'participants' });
    expect(refusal({ fromDate: '2026-02-30' })).toMatchObject({
      field: 'fromDate',
      rule: 'a real calendar date written YYYY-MM-DD',
    });
    expect(refusal({ toDate: '26-02-01' })).toMatchObject({ field: 'toDate' });
    expect(refusal({ fromDate: '2026-02-02', toDate: '2026-02-01' })).toMatchObject({
      field: 'fromDate',
      rule: 'must not be after toDate',
    });
    expect(resolveFilters({ fromDate: '2026-02-01', toDate: '2026-02-01' })).toMatchObject({
      fromDate: '2026-02-01',
      toDate: '2026-02-01',
    });
    expect(refusal({ scope: 'body' })).toMatchObject({ field: 'scope', rule: 'one of title, sentences, all' });
    expect(refusal({ keyword: 'a\u0007b' })).toMatchObject({ field: 'keyword', rule: 'no control characters' });
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2000-02-29', true],
    ['1900-02-29', false],
    ['2026-04-31', false],
    ['2026-12-31', true],
    ['0001-01-01', true],
    ['0099-02-28', true],
    ['0000-01-01', false],
    ['9999-12-31', true],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['2026-1-1', false],
    [' 2026-01-01', false],
  ])('%s → %s', (s, ok) => expect(isCalendarDate(s)).toBe(ok));
});
