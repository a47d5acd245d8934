/**
 * The two shapes of the list statement (query.ts, ListShape): walking the meetings newest first, or
 * reading every match from the keyword's indexes. They must answer the same pages and totals for
 * every keyword form, scope, filter and caller; findMeetings takes the one the planner's estimate
 * calls for (find.ts).
 */
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../../support/factory';
import { newId } from '../../../../services/core/input';
import { authenticateApiKey } from '../../../../services/core/people';
import type { Principal } from '../../../../services/core/access';
import { runSql } from '../../../../services/platform/sql';
import { createDb } from '../../../../services/platform/db';
import { keywordQuery, MeetingFilters, TOTAL_BOUND } from '../../../../services/core/meetings';
import {
  estimatedMatches,
  findMeetings,
  listShape,
  listStatement,
  MATERIALIZE_BOUND,
  PREPARED_WALK_ROWS,
} from '../../../../services/core/meetings/list-plan';
import { listQuery, ListShape, MeetingListRow, type WalkAccess } from '../../../../services/core/meetings/list-sql';
import { resolveFilters } from '../../../../services/core/meetings/filters';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

const lines = (...texts: string[]) =>
  texts.map((text, i) => ({ speaker: 'Ana', text, start: i * 10, end: i * 10 + 9 }));

/** Titles only, in bulk: `n` completed meetings of `u` named `<word> <i>`, an hour apart. */
async function titled(u: TestUser, word: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    team_id: u.teamId,
    organizer_id: u.id,
    organizer_email: u.email,
    title: `${word} ${i}`,
    date: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000),
    status: 'completed',
    privacy: i % 3 === 0 ? 'owner' : 'teammates',
  }));
  for (let i = 0; i < rows.length; i += 500) await t.db('meetings').insert(rows.slice(i, i + 500));
}

describe('walk and materialize answer alike', () => {
  const callers: Record<string, Principal> = {};
  let channelId: string;
  let memberEmail: string;

  beforeAll(async () => {
    const tm = await makeTeam(t.db);
    const admin = await makeUser(t.db, tm, { role: 'admin' });
    const owner = await makeUser(t.db, tm);
    const member = await makeUser(t.db, tm);
    const lonely = await makeUser(t.db, tm);
    const other = await makeTeam(t.db);
    const outsider = await makeUser(t.db, other, { role: 'admin' });
    memberEmail = member.email;
    channelId = (await makeChannel(t.db, tm.id, 'Sales', [member])).id;
    const said = [
      lines('Alpha launch went well.', 'Beta numbers are late.'),
      lines('Alpha only here.', 'The gamma delta review is done.'),
      lines('Delta gamma, the other order.', 'Beta and alpha together.'),
      lines('Nothing of note was said.'),
      lines('Gamma then delta, apart.', 'Zeta appears once.'),
    ];
    const privacies = ['teammates', 'owner', 'participants', 'teammatesandparticipants', 'link'];
    for (let i = 0; i < 25; i++) {
      const spec = {
        organizer: i % 4 === 0 ? member : owner,
        title: i % 5 === 0 ? `Alpha planning ${i}` : `Weekly ${i}`,
        date: new Date(Date.UTC(2026, 2, 1 + i, 10)),
        privacy: privacies[i % privacies.length],
        channelId: i % 6 === 0 ? channelId : null,
        participants: i % 3 === 0 ? [{ email: member.email }] : [{ email: lonely.email }],
        sentences: said[i % said.length],
        summary: { short_summary: `Summary ${i}` },
      };
      await makeMeeting(t.db, spec);
    }
    // Read sentence by sentence: a live meeting (no lexeme sets yet).
    await makeMeeting(t.db, {
      organizer: owner,
      title: 'Live one',
      date: '2026-04-01T10:00:00Z',
      isLive: true,
      liveState: 'active',
      sentences: lines('Alpha beta live.', 'Gamma delta live.'),
    });
    // Other teams' meetings, shared with the member or not.
    const shared = await makeMeeting(t.db, {
      organizer: outsider,
      title: 'Alpha shared',
      date: '2026-03-15T12:00:00Z',
      privacy: 'owner',
      sentences: said[0],
    });
    await makeMeeting(t.db, {
      organizer: outsider,
      title: 'Alpha not shared',
      date: '2026-03-16T12:00:00Z',
      sentences: said[0],
    });
    await shareMeeting(t.db, shared.id, member.email);
    // Past the total's bound for one word.
    await titled(owner, 'Quasar', TOTAL_BOUND + 5);
    for (const [name, u] of Object.entries({ admin, owner, member, outsider }))
      callers[name] = await authenticateApiKey(t.db, u.key);
  });

  const keywords = [
    'alpha',
    'beta',
    'alpha beta',
    'alpha -beta',
    '"gamma delta"',
    '"delta gamma"',
    'beta or zeta',
    '"the gamma delta review"',
    'the',
    'quasar',
    'nothingmatches',
    'alpha "gamma delta" -zeta',
  ];

  /** What a caller is answered: the page's rows and the total as a list reports it. */
  async function answer(p: Principal, filters: MeetingFilters, shape: ListShape, walk?: WalkAccess) {
    const f = resolveFilters(filters);
    const rows = await runSql<MeetingListRow>(t.db, listQuery(p, f, await keywordQuery(t.db, f.keyword!), shape, walk));
    const n = rows.length ? Number(rows[0].matched) : null;
    return {
      rows: rows.map((r) => [r.id, r.participants, r.short_summary]),
      total: n === null ? null : [Math.min(n, TOTAL_BOUND), n > TOTAL_BOUND],
    };
  }

  it('for every keyword form, scope and caller, page by page', async () => {
    let compared = 0;
    for (const keyword of keywords) {
      for (const scope of ['all', 'title', 'sentences'] as const) {
        for (const [name, p] of Object.entries(callers)) {
          for (const sort of ['date', 'relevance'] as const) {
            for (const skip of [0, 4, 8, 100]) {
              const args = { keyword, scope, sort, limit: 4, skip };
              const walk = await answer(p, args, 'walk');
              expect({ ...args, name, ...(await answer(p, args, 'materialize')) }).toEqual({ ...args, name, ...walk });
              compared += walk.rows.length;
              // A prepared walk finds the keyword's matches by rows (its total either way): the same answer.
              if (sort === 'date') {
                for (const ownTotal of ['rows', 'index'] as const) {
                  const access: WalkAccess = { page: 'rows', ownTotal, othersTotal: 'rows' };
                  expect({ ...args, name, ownTotal, ...(await answer(p, args, 'walk', access)) }).toEqual({
                    ...args,
                    name,
                    ownTotal,
                    ...walk,
                  });
                }
              }
            }
          }
        }
      }
    }
    // The comparison saw pages with rows, not only empty ones.
    expect(compared).toBeGreaterThan(600);
  });

  it('with the other filters: dates, people, mine, channel', async () => {
    const filters: MeetingFilters[] = [
      { fromDate: '2026-03-05', toDate: '2026-03-12' },
      { participants: [memberEmail] },
      { mine: true },
      { channelId },
      { organizers: [memberEmail], fromDate: '2026-03-02' },
    ];
    for (const keyword of keywords) {
      for (const extra of filters) {
        for (const [name, p] of Object.entries(callers)) {
          const args = { keyword, limit: 50, ...extra };
          expect({ name, args, ...(await answer(p, args, 'materialize')) }).toEqual({
            name,
            args,
            ...(await answer(p, args, 'walk')),
          });
        }
      }
    }
  });

  it('prepared, on their generic plans, as unprepared', async () => {
    // One connection, so the same prepared statement runs on it again and again.
    const one = createDb({ url: t.url, poolMax: 1 });
    try {
      const words = ['alpha', 'beta', 'zeta', 'gamma', 'delta', 'quasar', 'nothingmatches', 'launch'];
      for (const [name, p] of Object.entries(callers)) {
        for (const sort of ['date', 'relevance'] as const) {
          let statementName: string | undefined;
          for (const keyword of [...words, ...words]) {
            const f = resolveFilters({ keyword, sort, limit: 4 });
            const statement = await listStatement(one, p, f, await keywordQuery(one, keyword));
            if (!statement.name) continue;
            statementName = statement.name;
            const found = await findMeetings(one, p, f);
            const walk = await answer(p, { keyword, sort, limit: 4 }, 'walk');
            // The statement answers one row past the page, to learn has_more.
            expect({
              keyword,
              name,
              rows: found.rows.map((r) => [r.id, r.participants, r.short_summary]),
              more: found.hasMore,
            }).toEqual({ keyword, name, rows: walk.rows.slice(0, 4), more: walk.rows.length > 4 });
            if (walk.total) expect([found.total, found.totalIsLowerBound]).toEqual(walk.total);
          }
          expect(statementName).toBeDefined();
          const [plans] = await runSql<{ generic_plans: string }>(one, {
            text: 'select generic_plans from pg_prepared_statements where name = $1',
            values: [statementName],
          });
          expect(Number(plans.generic_plans)).toBeGreaterThan(0);
        }
      }
    } finally {
      await one.destroy();
    }
  });

  it('totals past the bound are a lower bound in both shapes', async () => {
    for (const shape of ['walk', 'materialize'] as const) {
      expect((await answer(callers.admin, { keyword: 'quasar', scope: 'title', limit: 2 }, shape)).total).toEqual([
        TOTAL_BOUND,
        true,
      ]);
    }
  });
});

describe('the shape a list takes', () => {
  let p: Principal;

  beforeAll(async () => {
    const tm = await makeTeam(t.db);
    const u = await makeUser(t.db, tm, { role: 'admin' });
    p = await authenticateApiKey(t.db, u.key);
    await titled(u, 'Omnipresent', MATERIALIZE_BOUND + 400);
    await titled(u, 'Omnipresent rarity', 3);
    await t.db.raw('analyze meetings');
  });

  const shapeOf = async (filters: MeetingFilters) => {
    const f = resolveFilters(filters);
    return listShape(t.db, p, f, f.keyword ? await keywordQuery(t.db, f.keyword) : null);
  };

  it('reads every match of a keyword few meetings match, and walks for one most match', async () => {
    const f = resolveFilters({ keyword: 'omnipresent' });
    expect(await estimatedMatches(t.db, p, f, await keywordQuery(t.db, 'omnipresent'))).toBeGreaterThan(
      MATERIALIZE_BOUND,
    );
    expect(await shapeOf({ keyword: 'omnipresent' })).toBe('walk');
    expect(await shapeOf({ keyword: 'rarity' })).toBe('materialize');
    // Both words: no more than the rarer one.
    expect(await shapeOf({ keyword: 'omnipresent rarity' })).toBe('materialize');
    expect(await shapeOf({ keyword: 'rarity', scope: 'title' })).toBe('materialize');
  });

  it('walks without a keyword, for stop words only and for an unreadable tsquery; ranked lists choose as dated ones', async () => {
    expect(await shapeOf({})).toBe('walk');
    expect(await shapeOf({ keyword: 'the' })).toBe('walk');
    expect(await shapeOf({ keyword: 'rarity', sort: 'relevance' })).toBe('materialize');
    expect(await shapeOf({ keyword: 'omnipresent', sort: 'relevance' })).toBe('walk');
    // A tsquery the parser could not read is matched sentence by sentence: no index to read its matches from.
    const rare = await keywordQuery(t.db, 'rarity');
    expect(await listShape(t.db, p, resolveFilters({ keyword: 'rarity' }), rare)).toBe('materialize');
    expect(await listShape(t.db, p, resolveFilters({ keyword: 'rarity' }), { ...rare, tree: null, opaque: true })).toBe(
      'walk',
    );
  });

  it('walks a first page prepared: the generic plan walks newest first and answers as a plan for the values does', async () => {
    // One connection, so each statement is prepared once and then run again; the pool's session runs generic plans.
    const one = createDb({ url: t.url, poolMax: 1 });
    try {
      const kq = await keywordQuery(one, 'omnipresent');
      for (const skip of [0, 7]) {
        const f = resolveFilters({ keyword: 'omnipresent', limit: 5, skip });
        expect(await listShape(one, p, f, kq)).toBe('walk');
        const statement = await listStatement(one, p, f, kq);
        expect(statement.name).toBeDefined();
        const planned = await runSql<MeetingListRow>(t.db, listQuery(p, f, kq, 'walk'));
        for (let run = 0; run < 3; run++) {
          const found = await findMeetings(one, p, f);
          expect([found.rows.map((r) => r.id), found.hasMore, found.total]).toEqual([
            planned.slice(0, 5).map((r) => r.id),
            true,
            TOTAL_BOUND,
          ]);
        }
        const [stats] = await runSql<{ generic_plans: string; custom_plans: string }>(one, {
          text: 'select generic_plans, custom_plans from pg_prepared_statements where name = $1',
          values: [statement.name],
        });
        // (skip is a value: both pages run the one statement.)
        expect(Number(stats.custom_plans)).toBe(0);
        expect(Number(stats.generic_plans)).toBeGreaterThanOrEqual(3);
        // The generic plan, which knows no word's frequency, still walks the team's meetings newest first.
        // EXECUTE takes its arguments as SQL; these are the caller's ids and email, the keyword and numbers.
        const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
        await one.raw('set plan_cache_mode = force_generic_plan');
        const [plan] = await runSql<{ 'QUERY PLAN': unknown }>(one, {
          text: `explain (format json) execute ${statement.name}(${statement.values.map(literal).join(', ')})`,
          values: [],
        });
        await one.raw('reset plan_cache_mode');
        expect(JSON.stringify(plan['QUERY PLAN'])).toContain('"Index Name":"meetings_team_date_id_idx"');
        // Forced for that one statement: what runs next on the connection is planned as PostgreSQL chooses.
        await findMeetings(one, p, f);
        expect((await one.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
      }
      // Past the first pages, a relevance order, a person or a channel filter: planned for the values.
      for (const filters of [
        { skip: PREPARED_WALK_ROWS },
        { sort: 'relevance' as const },
        { participants: [p.email] },
      ]) {
        const f = resolveFilters({ keyword: 'omnipresent', ...filters });
        expect(await listStatement(one, p, f, kq)).toEqual({ ...listQuery(p, f, kq, 'walk'), name: undefined });
      }
    } finally {
      await one.destroy();
    }
  });

  it("counts the total of a word said in most of a large team's meetings by rows, of a less common one from its bitmap", async () => {
    const big = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    await titled(big, 'Ubiquitous', 10_000);
    await titled(big, 'Ubiquitous seldom', 40);
    await t.db.raw('analyze meetings');
    const caller = await authenticateApiKey(t.db, big.key);
    const rowsTotal = { page: 'rows', ownTotal: 'rows', othersTotal: 'rows' } as const;
    const bitmapTotal = { ...rowsTotal, ownTotal: 'index' } as const;
    for (const [keyword, access] of [
      ['ubiquitous', rowsTotal],
      ['seldom', bitmapTotal],
    ] as const) {
      const f = resolveFilters({ keyword, limit: 5 });
      const kq = await keywordQuery(t.db, keyword);
      // `seldom` matches too few to walk at all: its walk is asked for here, as a list past MATERIALIZE_BOUND would take it.
      const statement =
        keyword === 'seldom' ? listQuery(caller, f, kq, 'walk', access) : await listStatement(t.db, caller, f, kq);
      expect(statement.text).toBe(listQuery(caller, f, kq, 'walk', access).text);
      const rows = await runSql<MeetingListRow>(t.db, statement);
      const planned = await runSql<MeetingListRow>(t.db, listQuery(caller, f, kq, 'walk'));
      expect(rows.map((r) => [r.id, r.matched])).toEqual(planned.map((r) => [r.id, r.matched]));
    }
  });

  it('answers either way through findMeetings: the page, has_more and the total', async () => {
    const common = await findMeetings(t.db, p, resolveFilters({ keyword: 'omnipresent', limit: 5 }));
    expect([common.rows.length, common.hasMore, common.total, common.totalIsLowerBound]).toEqual([
      5,
      true,
      TOTAL_BOUND,
      true,
    ]);
    const rare = await findMeetings(t.db, p, resolveFilters({ keyword: 'rarity', limit: 2 }));
    expect([rare.rows.map((r) => r.title), rare.hasMore, rare.total, rare.totalIsLowerBound]).toEqual([
      ['Omnipresent rarity 2', 'Omnipresent rarity 1'],
      true,
      3,
      false,
    ]);
    const past = await findMeetings(t.db, p, resolveFilters({ keyword: 'rarity', skip: 10 }));
    expect([past.rows.length, past.hasMore, past.total]).toEqual([0, false, 3]);
  });
});
