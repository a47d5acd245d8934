import { encode } from '@toon-format/toon';
import { encodeToon, type ToonDelimiter } from '../../../services/mcp/toon';

/** A small seeded generator, so a failure names a case that can be run again. */
function random(seed: number) {
  let s = Math.imul(seed, 0x9e3779b1) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}

/** Strings on both sides of every quoting rule. */
const STRINGS = [
  '',
  'plain',
  'two words',
  ' lead',
  'trail ',
  '\tlead',
  'trail\t',
  '-dash',
  'mid-dash',
  '#hash',
  'mid#hash',
  'true',
  'false',
  'null',
  'True',
  '12',
  '-3',
  '+1.5e3',
  '1.',
  '1.5',
  '0.25E-2',
  '007',
  '1e',
  '12abc',
  'a:b',
  'say "hi"',
  'back\\slash',
  '[x]',
  'a{b}',
  'line\nbreak',
  'cr\rhere',
  'bell\u0007',
  ',',
  'a,b',
  'a\tb',
  'a|b',
  '\uFEFFbom',
  'emoji 🎉',
  'ünïcödé',
  'https://x.test/a?b=c',
  '2026-11-28T10:00:00.000Z',
  'x'.repeat(40),
] as const;
const KEYS = ['id', 'name', 'start_time', 'a.b', '_x', '1', '10', 'two words', '', 'a:b', 'ключ', '-k'] as const;
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER];

function value(r: ReturnType<typeof random>, depth: number): unknown {
  const kind = depth > 3 ? r.int(4) : r.int(13);
  switch (kind) {
    case 0:
      return r.pick(STRINGS);
    case 1:
      return r.pick(NUMBERS);
    case 2:
      return r.pick([true, false, null, undefined]);
    case 3:
      return r.pick([new Date(Date.UTC(2026, 10, r.int(28) + 1)), new Date(NaN), 12n, 2n ** 70n]);
    case 4:
    case 5:
      return table(r, depth);
    case 6: {
      // A keyed table: an object of objects with the same keys (or nearly).
      const row = () => Object.fromEntries(KEYS.slice(0, 2).map((k) => [k, value(r, 5)]));
      const out: Record<string, unknown> = {};
      for (let i = 0; i < r.int(4); i++) out[r.pick(KEYS)] = r.int(5) ? row() : { other: 1 };
      return out;
    }
    case 7:
      return Array.from({ length: r.int(4) }, () => Array.from({ length: r.int(3) }, () => value(r, 5)));
    case 8:
      return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
    case 9:
      return r.int(2) ? new Set([r.pick(STRINGS), r.pick(NUMBERS)]) : new Map([[r.int(3), value(r, depth + 1)]]);
    default: {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < r.int(5); i++) out[r.pick(KEYS)] = value(r, depth + 1);
      return out;
    }
  }
}

/** Rows with the same keys, sometimes a nested object column, sometimes one row that breaks the table. */
function table(r: ReturnType<typeof random>, depth: number): unknown[] {
  const keys = Array.from({ length: r.int(4) + 1 }, () => r.pick(KEYS));
  const nested = r.int(3) === 0;
  const rows = Array.from({ length: r.int(5) }, () => {
    const row: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, value(r, 5)]));
    if (nested) row.inner = { a: r.pick(STRINGS), b: r.pick(NUMBERS) };
    return row;
  });
  if (rows.length && r.int(4) === 0) rows[r.int(rows.length)] = r.int(2) ? {} : { [r.pick(KEYS)]: value(r, depth + 1) };
  return rows;
}

const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).message}`;
  }
};

describe('encodeToon', () => {
  it('writes what the library writes, for 4,000 generated answers and both delimiters', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const v = value(random(seed), 0);
      for (const delimiter of [',', '\t'] as ToonDelimiter[]) {
        const expected = outcome(() => encode(v, { delimiter }));
        expect({ seed, delimiter, text: outcome(() => encodeToon(v, delimiter)) }).toEqual({
          seed,
          delimiter,
          text: expected,
        });
      }
    }
  });

  it('writes the shapes the tools answer with as the library does', () => {
    const page = {
      meetings: [
        {
          id: 'm1',
          title: 'Budget, Q3',
          date: new Date(Date.UTC(2026, 10, 1)),
          participants: 'a@x.test; b@x.test',
          duration: 61.5,
        },
        {
          id: 'm2',
          title: 'Retro: "what went well"',
          date: new Date(Date.UTC(2026, 10, 2)),
          participants: '',
          duration: 0,
        },
      ],
      moments: [{ meeting_id: 'm1', start_time: 12.5, text: 'we spent, well, too much\ton it' }],
      has_more: true,
      next_skip: 10,
      total: { count: 42, exact: false },
      notes: [],
    };
    for (const delimiter of [',', '\t'] as ToonDelimiter[])
      expect(encodeToon(page, delimiter)).toBe(encode(page, { delimiter }));
  });

  it('refuses a lone surrogate as the library does, in a value and in a key', () => {
    expect(() => encodeToon({ text: 'a\uD800b' })).toThrow(
      new TypeError('Cannot encode string value containing an unpaired surrogate U+D800 at index 1'),
    );
    expect(() => encodeToon({ ['k\uDC00']: 1 })).toThrow(
      new TypeError('Cannot encode object key containing an unpaired surrogate U+DC00 at index 1'),
    );
    expect(encodeToon({ text: 'pair 🎉' })).toBe(encode({ text: 'pair 🎉' }));
  });

  it('leaves the answer it reads as it was', () => {
    const answer = { when: new Date(0), n: -0, rows: [{ a: undefined, b: NaN }] };
    const copy = { ...answer, rows: [{ ...answer.rows[0] }] };
    encodeToon(answer);
    expect(answer).toEqual(copy);
    expect(Object.is(answer.n, -0)).toBe(true);
  });
});
