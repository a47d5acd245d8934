/**
 * A question's limits, whichever transport asked: its length, what it cannot be combined with, and
 * its page of moments (limit 1 to 20, skip + limit within the 100 ranked), each on both sides of the
 * boundary.
 */
import { ServiceError } from '../../../../services/platform/errors';
import { MeetingFilters, parseSearchQuery } from '../../../../services/core/meetings';
import { resolveFilters } from '../../../../services/core/meetings/filters';

function refusal(f: MeetingFilters): { field?: string; rule?: string; message: string } {
  try {
    resolveFilters(f);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    const err = e as ServiceError;
    return { field: err.details.field, rule: err.details.rule, message: err.message };
  }
  throw new Error(`expected ${JSON.stringify(f)} to be refused`);
}

describe('a question', () => {
  it('defaults to five moments from the first, trimmed', () => {
    expect(resolveFilters({ question: '  who owns the rollout?  ' })).toMatchObject({
      question: 'who owns the rollout?',
      keyword: null,
      limit: 5,
      skip: 0,
    });
  });

  it('holds 500 characters, not 501', () => {
    expect(resolveFilters({ question: 'q'.repeat(500) }).question).toHaveLength(500);
    expect(refusal({ question: 'q'.repeat(501) })).toMatchObject({ field: 'question', rule: 'at most 500 characters' });
  });

  it('is not empty and holds no control characters', () => {
    expect(refusal({ question: '  ' })).toMatchObject({ field: 'question', rule: 'not empty' });
    expect(refusal({ question: 'a\u0000b' })).toMatchObject({ field: 'question', rule: 'no control characters' });
  });

  it('answers 1 to 20 moments', () => {
    expect(resolveFilters({ question: 'q', limit: 1 }).limit).toBe(1);
    expect(resolveFilters({ question: 'q', limit: 20 }).limit).toBe(20);
    expect(refusal({ question: 'q', limit: 21 })).toMatchObject({ field: 'limit' });
    expect(refusal({ question: 'q', limit: 0 })).toMatchObject({ field: 'limit' });
  });

  it('pages within the 100 best: skip + limit at most 100', () => {
    expect(resolveFilters({ question: 'q', skip: 80, limit: 20 })).toMatchObject({ skip: 80, limit: 20 });
    expect(refusal({ question: 'q', skip: 81, limit: 20 })).toMatchObject({ field: 'skip' });
    expect(refusal({ question: 'q', skip: -1 })).toMatchObject({ field: 'skip' });
  });

  it.each(['keyword', 'scope', 'sort', 'moments'] as const)('does not go with %s', (name) => {
    const value = { keyword: 'budget', scope: 'title', sort: 'relevance', moments: 3 }[name];
    expect(refusal({ question: 'q', [name]: value } as MeetingFilters)).toMatchObject({
      field: name,
      rule: 'not with question',
    });
  });

  it('keeps the other filters', () => {
    expect(
      resolveFilters({ question: 'q', fromDate: '2026-10-01', participants: ['Ana@Example.com'], mine: true }),
    ).toMatchObject({ fromDate: '2026-10-01', participants: ['ana@example.com'], mine: true });
  });
});

describe('question:"…" in the svc_search grammar', () => {
  it('is the question, with the other tokens', () => {
    expect(parseSearchQuery('question:"who owns the rollout?" from:2026-10-01 limit:3')).toEqual({
      question: 'who owns the rollout?',
      fromDate: '2026-10-01',
      limit: 3,
    });
  });

  it('appears at most once, and bare words beside it are a keyword it does not go with', () => {
    expect(() => parseSearchQuery('question:a question:b')).toThrow(/question appears more than once/);
    expect(() => resolveFilters(parseSearchQuery('question:"who owns it" budget'))).toThrow(
      /keyword cannot be combined with question/,
    );
  });

  it('needs a value', () => {
    expect(() => parseSearchQuery('question:')).toThrow(/question: needs a value/);
  });
});
