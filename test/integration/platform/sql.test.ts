import { numbered, runSql } from '../../../services/platform/sql';
import { createDb } from '../../../services/platform/db';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('numbered', () => {
  it('numbers ? placeholders in order and keeps the values', () => {
    expect(numbered({ sql: 'select ? as a, ?::int[] as b where ? = ?', bindings: ['x', [1, 2], 3, 3] })).toEqual({
      text: 'select $1 as a, $2::int[] as b where $3 = $4',
      values: ['x', [1, 2], 3, 3],
    });
  });

  it('refuses text whose placeholders and bindings differ in number', () => {
    expect(() => numbered({ sql: 'select ? as a', bindings: [] })).toThrow('SQL has 1 placeholders but 0 bindings');
    expect(() => numbered({ sql: 'select 1', bindings: [1] })).toThrow('SQL has 0 placeholders but 1 bindings');
  });
});

describe('runSql', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db.raw('create table sql_probe (id int primary key, tags text[])');
  });
  afterAll(() => t.drop());

  it('runs a statement with typed values and returns its rows', async () => {
    const rows = await runSql<{ n: number; tags: string[] }>(t.db, {
      text: 'select $1::int + 1 as n, $2::text[] as tags',
      values: [41, ['a', 'b']],
    });
    expect(rows).toEqual([{ n: 42, tags: ['a', 'b'] }]);
  });

  it('runs a named statement again on the same connection, and gives the connection back each time', async () => {
    for (let i = 0; i < 12; i++) {
      const [row] = await runSql<{ n: number }>(t.db, { text: 'select $1::int * 2 as n', values: [i] }, 'mi_sql_probe');
      expect(row.n).toBe(i * 2);
    }
    const pool = (t.db.client as { pool: { numUsed(): number } }).pool;
    expect(pool.numUsed()).toBe(0);
  });

  it('gives the connection back when the statement fails', async () => {
    await expect(runSql(t.db, { text: 'select * from no_such_table where id = $1', values: [1] })).rejects.toThrow(
      /no_such_table/,
    );
    const pool = (t.db.client as { pool: { numUsed(): number } }).pool;
    expect(pool.numUsed()).toBe(0);
  });

  it('runs a named statement on its generic plan, and nothing after it on the connection', async () => {
    const one = createDb({ url: t.url, poolMax: 1 });
    try {
      const mode = async (run: () => Promise<unknown>) => {
        await run();
        return (
          await runSql<{ plan_cache_mode: string }>(
            one,
            { text: 'show plan_cache_mode', values: [] },
            'mi_sql_probe_mode',
          )
        )[0].plan_cache_mode;
      };
      // A named statement sees the setting (the probe is named too)...
      expect(await mode(async () => undefined)).toBe('force_generic_plan');
      const [plans] = await runSql<{ generic_plans: string; custom_plans: string }>(one, {
        text: "select generic_plans, custom_plans from pg_prepared_statements where name = 'mi_sql_probe_mode'",
        values: [],
      });
      expect(Number(plans.custom_plans)).toBe(0);
      // ...and whatever knex or an unnamed statement runs next on the same connection does not.
      expect((await one.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
      await runSql(one, { text: 'select 1', values: [] }, 'mi_sql_probe_one');
      expect(
        (await runSql<{ plan_cache_mode: string }>(one, { text: 'show plan_cache_mode', values: [] }))[0]
          .plan_cache_mode,
      ).toBe('auto');
      await runSql(one, { text: 'select 1', values: [] }, 'mi_sql_probe_one');
      await one.transaction(async (tx) => {
        expect((await tx.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
        // Inside a transaction a named statement is planned as PostgreSQL chooses, and leaves nothing set.
        expect(
          (
            await runSql<{ plan_cache_mode: string }>(
              tx,
              { text: 'show plan_cache_mode', values: [] },
              'mi_sql_probe_tx',
            )
          )[0].plan_cache_mode,
        ).toBe('auto');
      });
      expect((await one.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
    } finally {
      await one.destroy();
    }
  });

  it("inside a transaction, runs on the transaction's connection", async () => {
    await t.db.transaction(async (tx) => {
      await tx('sql_probe').insert({ id: 1, tags: ['x'] });
      // Not yet committed: only the transaction's own connection sees the row.
      expect(await runSql(tx, { text: 'select id from sql_probe where id = $1', values: [1] })).toEqual([{ id: 1 }]);
      expect(await runSql(t.db, { text: 'select id from sql_probe where id = $1', values: [1] })).toEqual([]);
    });
  });
});
