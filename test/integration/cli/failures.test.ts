/**
 * The CLI always ends, and says which variable to fix: an unreachable Temporal names TEMPORAL_ADDRESS,
 * a database without the schema names DATABASE_URL and `meeting-intel migrate`, and no error ever
 * shows SQL.
 */
import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { runCli } from '../../support/cli';
import { withDatabase } from '../../support/globalSetup';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

/** A local port nothing listens on (bound, read, closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const SQL = /\b(select|insert into|update|delete from)\b[\s\S]*\b(from|values|set|where)\b|"users"|"teams"|"api_keys"/i;

describe('meeting-intel CLI failures', () => {
  let t: TestDatabase;
  let emptyName: string;
  let emptyUrl: string;
  const admin = () =>
    knexFactory({ client: 'pg', connection: process.env.MI_TEST_ADMIN_URL!, pool: { min: 0, max: 1 } });

  beforeAll(async () => {
    t = await createTestDatabase();
    emptyName = `mi_empty_${process.env.MI_TEST_RUN_ID}_${randomBytes(4).toString('hex')}`;
    const a = admin();
    await a.raw(`create database ${emptyName}`);
    await a.destroy();
    emptyUrl = withDatabase(process.env.MI_TEST_ADMIN_URL!, emptyName);
  });
  afterAll(async () => {
    await t.drop();
    const a = admin();
    await a.raw(`drop database if exists ${emptyName} with (force)`);
    await a.destroy();
  });

  it('seed demo with TEMPORAL_ADDRESS on a closed port exits 1 within the bound, naming TEMPORAL_ADDRESS', async () => {
    const address = `127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const r = await runCli(
      ['seed', 'demo'],
      { DATABASE_URL: t.url, TEMPORAL_ADDRESS: address, SECRETS_KEY: 'ab'.repeat(32) },
      { timeout: 30_000 },
    );
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(took).toBeLessThan(20_000);
    expect(r.stderr).toMatch(/TEMPORAL_ADDRESS/);
    expect(r.stderr).toContain(address);
    expect(r.stderr).not.toMatch(/tonic|transport::Error/);
  }, 40_000);

  it('seed demo --json reports the same as one JSON error object', async () => {
    const address = `127.0.0.1:${await closedPort()}`;
    const r = await runCli(
      ['seed', 'demo', '--json'],
      { DATABASE_URL: t.url, TEMPORAL_ADDRESS: address, SECRETS_KEY: 'ab'.repeat(32) },
      { timeout: 30_000 },
    );
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ code: 'temporal_unreachable' });
    expect(r.json.error.message).toMatch(/TEMPORAL_ADDRESS/);
  }, 40_000);

  it.each([
    [['team', 'create', '--name', 'X', '--tier', 'pro']],
    [['team', 'flags', '--team', 'nope', '--enable', 'search']],
    [['user', 'create', '--team', 'nope', '--email', 'a@b.example', '--name', 'N']],
    [['apikey', 'create', '--email', 'a@b.example']],
    [['apikey', 'revoke', '--prefix', 'zzzzzzzz']],
    [['seed', 'demo']],
  ])(
    '%j against a database without the schema exits 1 naming DATABASE_URL and migrate, without SQL',
    async (args) => {
      for (const json of [false, true]) {
        const r = await runCli(
          json ? [...args, '--json'] : args,
          { DATABASE_URL: emptyUrl, TEMPORAL_ADDRESS: '127.0.0.1:1', SECRETS_KEY: 'ab'.repeat(32) },
          { timeout: 30_000 },
        );
        expect(r.code).toBe(1);
        const text = `${r.stdout}\n${r.stderr}`;
        expect(text).not.toMatch(SQL);
        expect(text).toMatch(/DATABASE_URL/);
        expect(text).toMatch(/meeting-intel migrate/);
        if (json) expect(r.json.error.code).toBe('database_not_migrated');
      }
    },
    60_000,
  );

  it('a database that does not exist, and a server that does not answer, name DATABASE_URL without SQL', async () => {
    const missing = await runCli(
      ['team', 'create', '--name', 'X', '--tier', 'pro'],
      { DATABASE_URL: withDatabase(process.env.MI_TEST_ADMIN_URL!, 'mi_no_such_db') },
      { timeout: 30_000 },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/DATABASE_URL/);
    expect(missing.stderr).toMatch(/mi_no_such_db.*does not exist/);
    expect(missing.stderr).not.toMatch(SQL);

    const port = await closedPort();
    const refused = await runCli(
      ['apikey', 'revoke', '--prefix', 'zzzzzzzz'],
      { DATABASE_URL: `postgres://u:secret@127.0.0.1:${port}/x` },
      { timeout: 30_000 },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/DATABASE_URL/);
    expect(refused.stderr).toContain(`127.0.0.1:${port}`);
    expect(refused.stderr).not.toContain('secret');
  }, 60_000);
});
