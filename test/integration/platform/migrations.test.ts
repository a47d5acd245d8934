import { createTestDatabase, TestDatabase } from '../../support/testDb';

/** A description of the schema precise enough that any drift between two migrations shows. */
async function schemaSnapshot(t: TestDatabase) {
  const columns = await t.db.raw(`
    select table_name, column_name, data_type, is_nullable, column_default, generation_expression
    from information_schema.columns where table_schema = 'public' and table_name not like 'knex_%'
    order by table_name, column_name`);
  const indexes = await t.db.raw(`
    select tablename, indexname, indexdef from pg_indexes
    where schemaname = 'public' and tablename not like 'knex_%' order by tablename, indexname`);
  const constraints = await t.db.raw(`
    select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`);
  return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
}

describe('migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  it('up, down and up again leaves the same schema', async () => {
    const first = await schemaSnapshot(t);
    expect(first.columns.length).toBeGreaterThan(100);

    await t.db.migrate.rollback(undefined, true);
    const empty = await schemaSnapshot(t);
    expect(empty.columns).toEqual([]);

    await t.db.migrate.latest();
    expect(await schemaSnapshot(t)).toEqual(first);
  });

  it('records meeting changes from every table that holds a meeting or decides who reads it', async () => {
    const { rows } = await t.db.raw(
      `select c.relname as tbl, t.tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid
        where t.tgname like 'meeting_changes_%' order by 1, 2`,
    );
    const byTable: Record<string, string[]> = {};
    for (const r of rows) (byTable[r.tbl] ??= []).push(r.tgname.replace('meeting_changes_', ''));
    expect(byTable).toEqual({
      action_items: ['delete', 'insert', 'update'],
      channel_members: ['delete', 'insert'],
      meeting_participants: ['delete', 'insert'],
      meeting_shares: ['delete', 'insert', 'update'],
      meetings: ['delete', 'insert', 'update'],
      sentences: ['delete', 'insert', 'update'],
      summaries: ['delete', 'insert', 'update'],
    });
  });

  it('has full-text columns with GIN indexes on titles and sentences', async () => {
    const { rows } = await t.db.raw(`select indexname, indexdef from pg_indexes where indexdef ilike '%using gin%'`);
    const defs = rows.map((r: { indexdef: string }) => r.indexdef).join('\n');
    expect(defs).toMatch(/meetings USING gin \(title_tsv\)/);
    expect(defs).toMatch(/sentences USING gin \(tsv\)/);
  });

  it('keeps the rate-limit counts unlogged, one row per credential, and bounds a key allowance', async () => {
    const { rows } = await t.db.raw(`select relpersistence from pg_class where relname = 'rate_limit_counts'`);
    expect(rows).toEqual([{ relpersistence: 'u' }]);
    const { rows: keys } = await t.db.raw(
      `select indexdef from pg_indexes where tablename = 'rate_limit_counts' and indexdef ilike '%unique%'`,
    );
    expect(keys.map((k: { indexdef: string }) => k.indexdef)).toEqual([expect.stringMatching(/\(subject\)$/)]);
    const { rows: checks } = await t.db.raw(
      `select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'api_keys_rate_limit_per_minute_check'`,
    );
    expect(checks[0].def).toMatch(/rate_limit_per_minute >= 1\).*rate_limit_per_minute <= 1000000/);
  });

  it('reports every migration as applied', async () => {
    const [completed, pending] = await t.db.migrate.list();
    expect(pending).toEqual([]);
    expect(completed.map((c: { name: string }) => c.name)).toContain('20261121000000_initial_schema');
  });
});
