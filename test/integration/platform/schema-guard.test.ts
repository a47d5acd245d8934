/**
 * The schema guard on real PostgreSQL: a role refuses a database that lacks its migrations (naming
 * `meeting-intel migrate up`) and one that a newer release moved ahead by a migration not declared
 * compatible with this release (naming both releases); it runs on a schema ahead of it by expand
 * migrations; /readyz turns unready when the schema moves out from under a running role; `migrate
 * status` says all of it; `migrate down` refuses a migration that cannot be undone.
 */
import knexFactory, { Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import { startGraphqlRole } from '../../../services/graphql/main';
import { startMcpRole } from '../../../services/mcp/main';
import { startWorkerRole } from '../../../services/worker/main';
import { MIGRATIONS, MigrationEntry } from '../../../services/platform/migrations';
import { compareReleases, RELEASE } from '../../../services/platform/release';
import { inspectSchema, migrateDown, migrateUp, requireSchema, SchemaError } from '../../../services/platform/schema';
import { runCli } from '../../support/cli';
import { testConfig } from '../../support/config';
import { withDatabase } from '../../support/globalSetup';

const NEXT = '99.0.0';

/** A migration of a future release: a table of its own, so down can undo it. */
const future = (suffix: string, runsWith: string, extra: Partial<MigrationEntry> = {}): MigrationEntry => ({
  name: `29991231000000_future_${suffix}`,
  release: NEXT,
  runsWith,
  migration: {
    up: async (k: Knex) => void (await k.raw(`create table future_${suffix} (id int)`)),
    down: async (k: Knex) => void (await k.raw(`drop table future_${suffix}`)),
  },
  ...extra,
});

async function blankDatabase(): Promise<{ url: string; db: Knex; drop(): Promise<void> }> {
  const adminUrl = process.env.MI_TEST_ADMIN_URL!;
  const name = `mi_t_${process.env.MI_TEST_RUN_ID}_schema_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = withDatabase(adminUrl, name);
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      const a = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
    },
  };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the schema guard to refuse');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(SchemaError);
      return e as SchemaError;
    },
  );

const mcpConfig = (url: string) => testConfig({ DATABASE_URL: url, MCP_PORT: '0', HOST: '127.0.0.1' }, 'mcp');

describe('every migration of this release', () => {
  it('declares its release and the oldest release that runs on it, and can be undone or says why not', () => {
    for (const m of MIGRATIONS) {
      expect(compareReleases(m.runsWith, m.release)).toBeLessThanOrEqual(0);
      expect(compareReleases(m.release, RELEASE)).toBeLessThanOrEqual(0);
      expect(!!m.migration.down !== !!m.irreversible).toBe(true);
    }
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
  });
});

describe('the schema guard', () => {
  let d: Awaited<ReturnType<typeof blankDatabase>>;
  beforeEach(async () => {
    d = await blankDatabase();
  });
  afterEach(async () => d.drop());

  it('refuses an empty database and one that lacks a migration, naming meeting-intel migrate up', async () => {
    const empty = await refusal(requireSchema(d.db));
    expect(empty.code).toBe('schema_behind');
    expect(empty.message).toBe(`the database has no schema yet (release ${RELEASE}): run \`meeting-intel migrate up\``);
    // Every role, before it takes any work.
    await expect(startMcpRole(mcpConfig(d.url))).rejects.toThrow(empty.message);
    const roleConfig = testConfig(
      {
        DATABASE_URL: d.url,
        GRAPHQL_PORT: '0',
        WORKER_METRICS_PORT: '0',
        HOST: '127.0.0.1',
        TEMPORAL_TASK_QUEUE: 'schema-guard-never-polled',
      },
      'worker',
    );
    await expect(startGraphqlRole(roleConfig)).rejects.toThrow(empty.message);
    await expect(startWorkerRole(roleConfig)).rejects.toThrow(empty.message);

    const last = MIGRATIONS[MIGRATIONS.length - 1];
    await migrateUp(d.db, MIGRATIONS.slice(0, -1));
    const behind = await refusal(requireSchema(d.db));
    expect(behind.message).toBe(
      `the database lacks 1 migration of release ${RELEASE} (${last.name}): run \`meeting-intel migrate up\``,
    );

    const cli = await runCli(['serve', 'mcp'], {
      DATABASE_URL: d.url,
      MCP_PORT: '0',
      HOST: '127.0.0.1',
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(
      `error: the database lacks 1 migration of release ${RELEASE} (${last.name}): run \`meeting-intel migrate up\`\n`,
    );

    const up = await runCli(['migrate', 'up', '--json'], { DATABASE_URL: d.url });
    expect(up.code).toBe(0);
    expect(up.json).toMatchObject({
      action: 'up',
      applied: [last.name],
      release: RELEASE,
      schemaRelease: RELEASE,
      runs: true,
    });
    expect((await requireSchema(d.db)).pending).toEqual([]);
    // Each applied migration carries what it declared, for an older release to read.
    expect(await d.db('knex_migrations').where({ name: last.name }).first('release', 'runs_with')).toEqual({
      release: last.release,
      runs_with: last.runsWith,
    });
  });

  it('runs on a schema ahead of it by migrations declared compatible with it', async () => {
    await migrateUp(d.db, [...MIGRATIONS, future('expand', RELEASE)], NEXT);
    const state = await requireSchema(d.db);
    expect(state).toMatchObject({ release: RELEASE, schemaRelease: NEXT, pending: [], problem: null });
    expect(state.ahead).toEqual([{ name: '29991231000000_future_expand', release: NEXT, runsWith: RELEASE }]);

    const role = await startMcpRole(mcpConfig(d.url));
    try {
      const ready = await fetch(role.url.replace(/\/mcp$/, '/readyz'));
      expect(ready.status).toBe(200);
    } finally {
      await role.close();
    }

    const up = await runCli(['migrate', 'up'], { DATABASE_URL: d.url });
    expect(up.code).toBe(0);
    expect(up.stdout).toBe(`nothing to apply: schema release ${NEXT}, this release ${RELEASE}: runs\n`);
    // Only the release that applied a migration holds its down.
    const down = await refusal(migrateDown(d.db));
    expect(down.message).toMatch(
      new RegExp(
        `^the database schema is at release ${NEXT}, ahead of this release ${RELEASE}: only release ${NEXT} can revert`,
      ),
    );
  });

  it('refuses a schema moved ahead by a migration not compatible with it, naming both releases; /readyz turns unready', async () => {
    await migrateUp(d.db);
    const role = await startMcpRole(mcpConfig(d.url));
    const readyz = role.url.replace(/\/mcp$/, '/readyz');
    try {
      expect((await fetch(readyz)).status).toBe(200);
      await migrateUp(d.db, [...MIGRATIONS, future('contract', NEXT)], NEXT);

      const expected = `the database schema is at release ${NEXT}, and its migration 29991231000000_future_contract (release ${NEXT}) runs only with release ${NEXT} or later; this is release ${RELEASE}: deploy release ${NEXT}, or restore the backup taken before the upgrade`;
      const unready = await fetch(readyz);
      expect(unready.status).toBe(503);
      const body = (await unready.json()) as { checks: { name: string; ok: boolean; error?: string }[] };
      expect(body.checks.find((c) => c.name === 'schema')).toEqual({ name: 'schema', ok: false, error: expected });

      await expect(startMcpRole(mcpConfig(d.url))).rejects.toThrow(expected);
      const refused = await refusal(migrateUp(d.db));
      expect(refused.message).toBe(expected);

      const status = await runCli(['migrate', 'status'], { DATABASE_URL: d.url });
      expect(status.code).toBe(0);
      const lines = status.stdout.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('applied  '))).toHaveLength(MIGRATIONS.length);
      expect(lines.slice(-2)).toEqual([
        `ahead    29991231000000_future_contract  (release ${NEXT}, runs with ${NEXT} or later)`,
        `schema release ${NEXT}, this release ${RELEASE}: cannot run: ${expected}`,
      ]);
    } finally {
      await role.close();
    }
  });

  it('migrate status --release says whether an older release (a rollback) runs on the schema', async () => {
    await migrateUp(d.db);
    const first = MIGRATIONS[0].release;
    const asFirst = await runCli(['migrate', 'status', '--release', first, '--json'], { DATABASE_URL: d.url });
    expect(asFirst.code).toBe(0);
    // Every migration since the first release is an expand migration: the first release runs on it.
    expect(asFirst.json).toMatchObject({ release: first, schemaRelease: RELEASE, runs: true, problem: null });
    expect(asFirst.json.ahead.map((a: { name: string }) => a.name)).toEqual(
      MIGRATIONS.filter((m) => compareReleases(m.release, first) > 0).map((m) => m.name),
    );

    await migrateUp(d.db, [...MIGRATIONS, future('contract', NEXT)], NEXT);
    const asThis = await runCli(['migrate', 'status', '--release', RELEASE, '--json'], { DATABASE_URL: d.url });
    expect(asThis.json).toMatchObject({ release: RELEASE, schemaRelease: NEXT, runs: false });
    expect(asThis.json.problem).toMatch(
      new RegExp(`runs only with release ${NEXT} or later; this is release ${RELEASE}`),
    );

    for (const [bad, rule] of [
      ['1.2', '--release must be a release like 0.1.0; got "1.2"'],
      ['1000.0.0', `--release must be this release (${RELEASE}) or an older one; got "1000.0.0"`],
    ]) {
      const r = await runCli(['migrate', 'status', '--release', bad], { DATABASE_URL: d.url });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: `error: ${rule}\n` });
    }
    const wrongAction = await runCli(['migrate', 'up', '--release', first], { DATABASE_URL: d.url });
    expect({ code: wrongAction.code, stderr: wrongAction.stderr }).toEqual({
      code: 2,
      stderr: 'error: --release goes with migrate status only\n',
    });
  });

  it('refuses a migration applied by a release that declared nothing about it', async () => {
    await migrateUp(d.db);
    await d.db('knex_migrations').insert({ name: '29991231000000_unknown', batch: 9, migration_time: new Date() });
    const e = await refusal(requireSchema(d.db));
    expect(e.message).toBe(
      `the database has migration 29991231000000_unknown, which release ${RELEASE} does not know and which declares no release it runs with: deploy the release that applied it`,
    );
  });

  it('migrate down reverts a migration that has down and refuses one that cannot be undone, saying why', async () => {
    const reversible = future('reversible', RELEASE);
    const oneWay: MigrationEntry = {
      ...future('one_way', RELEASE),
      name: '29991231000001_future_one_way',
      migration: { up: async (k: Knex) => void (await k.raw('create table future_one_way (id int)')) },
      irreversible: 'it rewrites every transcript in the new format',
    };
    const catalog = [...MIGRATIONS, reversible];
    await migrateUp(d.db);
    await migrateUp(d.db, catalog, NEXT);
    expect(await migrateDown(d.db, catalog, NEXT)).toEqual([reversible.name]);
    expect(await d.db.schema.hasTable('future_reversible')).toBe(false);

    await migrateUp(d.db, [...catalog, oneWay], NEXT);
    const e = await refusal(migrateDown(d.db, [...catalog, oneWay], NEXT));
    expect(e.code).toBe('schema_irreversible');
    expect(e.message).toBe(
      `migration 29991231000001_future_one_way cannot be undone: it rewrites every transcript in the new format; restore the backup taken before it instead`,
    );
    expect(await d.db.schema.hasTable('future_one_way')).toBe(true);
    expect((await inspectSchema(d.db, [...catalog, oneWay], NEXT)).applied).toContain(oneWay.name);
  });
});
