/**
 * Property tests of the svc_search grammar: whatever a model or a person types, the parser answers
 * filters that respect every limit or an invalid_arguments error naming a field; and well-formed
 * queries, however they are spelled, parse to exactly the filters they describe.
 */
import fc from 'fast-check';
import { ServiceError } from '../../../../services/platform/errors';
import { isCalendarDate, isSearchEmail, MeetingFilters, SCOPES } from '../../../../services/core/meetings';
import { parseSearchQuery } from '../../../../services/core/meetings';
import { TOKENS } from '../../../../services/core/meetings/grammar';

const RUNS = 2000;

/** Parse, and check that a refusal is an invalid_arguments ServiceError naming a field and a rule. */
function parseOrRefusal(query: string): MeetingFilters | ServiceError {
  try {
    return parseSearchQuery(query);
  } catch (e) {
    if (!(e instanceof ServiceError))
      throw new Error(`threw a non-ServiceError for ${JSON.stringify(query)}: ${String(e)}`);
    if (e.code !== 'invalid_arguments') throw new Error(`code ${e.code} for ${JSON.stringify(query)}`);
    if (!e.details.field || !e.details.rule) throw new Error(`no field/rule for ${JSON.stringify(query)}`);
    return e;
  }
}

/** Whatever parses is within every limit of the list (services/core/meetings/filters.ts). */
function assertWithinLimits(f: MeetingFilters): void {
  if (f.keyword !== undefined) expect(f.keyword.length).toBeLessThanOrEqual(255);
  if (f.keyword !== undefined) expect(f.keyword.trim()).not.toBe('');
  if (f.scope !== undefined) expect(SCOPES).toContain(f.scope);
  if (f.fromDate !== undefined) expect(isCalendarDate(f.fromDate)).toBe(true);
  if (f.toDate !== undefined) expect(isCalendarDate(f.toDate)).toBe(true);
  if (f.fromDate && f.toDate) expect(f.fromDate <= f.toDate).toBe(true);
  if (f.limit !== undefined) expect(Number.isInteger(f.limit) && f.limit >= 1 && f.limit <= 50).toBe(true);
  if (f.skip !== undefined) expect(Number.isInteger(f.skip) && f.skip >= 0).toBe(true);
  for (const e of [...(f.organizers ?? []), ...(f.participants ?? [])]) expect(isSearchEmail(e)).toBe(true);
  expect((f.organizers ?? []).length).toBeLessThanOrEqual(50);
  expect((f.participants ?? []).length).toBeLessThanOrEqual(50);
}

const check = (query: string) => {
  const r = parseOrRefusal(query);
  if (!(r instanceof ServiceError)) assertWithinLimits(r);
};

describe('svc_search grammar (fuzz)', () => {
  it('never crashes on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), check), { numRuns: RUNS });
    fc.assert(fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), check), { numRuns: RUNS });
  });

  // Pieces that sit near the grammar's edges: token names, quotes, escapes, colons, commas, numbers.
  const name = fc.oneof(
    fc.constantFrom(...TOKENS),
    fc.constantFrom('KEYWORD', 'Limit', 'foo', 'x', 'from_', 'to2'),
    fc.stringMatching(/^[a-z]{1,6}$/),
  );
  const rawValue = fc.oneof(
    fc.constantFrom(
      '',
      '"',
      '""',
      '"\\"',
      '\\',
      ',',
      ',,',
      'title',
      'all',
      'TRUE',
      'false',
      '0',
      '50',
      '51',
      '-1',
      '1e3',
      '2026-02-30',
      '2024-02-29',
    ),
    fc.constantFrom('a@b.co', 'A@B.CO,c@d.io', 'a@b', '@b.co', 'a@b.co,', ' a@b.co'),
    fc.integer({ min: -5, max: 200000 }).map(String),
    fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
  );
  const quoted = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const value = fc.oneof(
    rawValue,
    rawValue.map(quoted),
    rawValue.map((v) => `"${v}`),
  );
  const chunk = fc.oneof(
    fc.tuple(name, value).map(([n, v]) => `${n}:${v}`),
    value,
    fc.constantFrom(':', '::', 'a:b:c', '"', '\\"'),
  );
  const separator = fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '');

  it('never crashes on token soups, and what parses is within the limits', () => {
    const soup = fc
      .array(fc.tuple(chunk, separator), { maxLength: 12 })
      .map((parts) => parts.map(([c, s]) => c + s).join(''));
    fc.assert(fc.property(soup, check), { numRuns: RUNS * 2 });
  });

  // ---- well-formed queries round-trip --------------------------------------------------------------

  const word = fc
    .stringMatching(/^[a-z][a-z0-9]{0,9}$/)
    .filter((w) => !/^(keyword|scope|from|to|limit|skip|organizers|participants|mine)$/.test(w));
  const term = fc.oneof(
    word.map((w) => ({ spelled: [w, `keyword:${w}`, `keyword:"${w}"`], expected: w })),
    fc
      .array(word, { minLength: 2, maxLength: 3 })
      .map((ws) => ({ spelled: [`"${ws.join(' ')}"`, `keyword:"${ws.join('  ')}"`], expected: `"${ws.join(' ')}"` })),
  );
  const email = fc
    .tuple(
      fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._+-]{0,8}$/),
      fc.stringMatching(/^[a-z]{1,8}$/),
      fc.constantFrom('com', 'io', 'co.uk', 'test'),
    )
    .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
  const date = fc
    .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));
  const spell = <T>(variants: T[]) => fc.constantFrom(...variants);

  interface Piece {
    text: string;
    apply(f: MeetingFilters): void;
  }

  const termPiece = term.chain((t) =>
    spell(t.spelled).map((text): Piece => ({
      text,
      apply: (f) => void (f.keyword = f.keyword ? `${f.keyword} ${t.expected}` : t.expected),
    })),
  );
  const emailPiece = (key: 'organizers' | 'participants') =>
    fc
      .tuple(fc.array(email, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.constantFrom(key, key.toUpperCase()))
      .map(([list, quote, tokenName]): Piece => ({
        text: `${tokenName}:${quote ? `" ${list.join(' , ')} "` : list.join(',')}`,
        apply: (f) => void (f[key] = [...(f[key] ?? []), ...list]),
      }));
  const scalarPieces = fc.record(
    {
      scope: fc.constantFrom(...SCOPES).map((s): Piece => ({ text: `scope:${s}`, apply: (f) => void (f.scope = s) })),
      limit: fc
        .integer({ min: 1, max: 50 })
        .map((n): Piece => ({ text: `limit:${n}`, apply: (f) => void (f.limit = n) })),
      skip: fc
        .integer({ min: 0, max: 100000 })
        .map((n): Piece => ({ text: `skip:"${n}"`, apply: (f) => void (f.skip = n) })),
      mine: fc.boolean().map((b): Piece => ({ text: `Mine:${b}`, apply: (f) => void (f.mine = b) })),
      dates: fc.tuple(date, date, fc.constantFrom('both', 'from', 'to')).map(([a, b, which]): Piece[] => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const pieces: Piece[] = [];
        if (which !== 'to') pieces.push({ text: `from:${from}`, apply: (f) => void (f.fromDate = from) });
        if (which !== 'from') pieces.push({ text: `to:${to}`, apply: (f) => void (f.toDate = to) });
        return pieces;
      }),
    },
    { requiredKeys: [] },
  );

  const wellFormed = fc
    .tuple(
      scalarPieces,
      fc.array(termPiece, { maxLength: 6 }),
      fc.array(fc.oneof(emailPiece('organizers'), emailPiece('participants')), { maxLength: 4 }),
      fc.array(fc.constantFrom(' ', '   ', '\t', '\n'), { minLength: 30, maxLength: 30 }),
    )
    .chain(([scalars, terms, emails, gaps]) => {
      const pieces = [...Object.values(scalars).flat(), ...terms, ...emails] as Piece[];
      return fc
        .shuffledSubarray(pieces, { minLength: pieces.length, maxLength: pieces.length })
        .map((order) => ({ order, gaps }));
    })
    .map(({ order, gaps }) => {
      // Expected filters follow the query's order: keyword terms and email lists accumulate left to right.
      const expected: MeetingFilters = {};
      for (const p of order) p.apply(expected);
      const query = gaps[0] + order.map((p, i) => p.text + gaps[(i + 1) % gaps.length]).join('');
      return { query, expected };
    });

  it('parses well-formed queries to exactly the filters they describe', () => {
    fc.assert(
      fc.property(wellFormed, ({ query, expected }) => {
        expect(parseSearchQuery(query)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
