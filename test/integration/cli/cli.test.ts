import { spawn } from 'node:child_process';
import { authenticateApiKey } from '../../../services/core/people';
import { freePort } from '../../../services/devstack/ports';
import { migrationSource } from '../../../services/platform/migrations';
import { BIN, runCli } from '../../support/cli';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('meeting-intel CLI', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestDatabase();
    env = { DATABASE_URL: t.url };
  });
  afterAll(async () => t.drop());

  it('prints usage, and refuses an unknown command with exit 2', async () => {
    expect((await runCli(['--help'], env)).stdout).toMatch(/apikey create --email E/);
    const r = await runCli(['frobnicate'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('migrate status / down / up', async () => {
    const all = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
    const status = await runCli(['migrate', 'status', '--json'], env);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({
      action: 'status',
      completed: all,
      pending: [],
      ahead: [],
      runs: true,
      problem: null,
    });
    // `down` reverts the last batch: in a database migrated in one go, that is every migration.
    const down = await runCli(['migrate', 'down', '--json'], env);
    expect(down.json.reverted.sort()).toEqual([...all].sort());
    expect((await runCli(['migrate', 'status', '--json'], env)).json).toMatchObject({
      action: 'status',
      completed: [],
      pending: all,
      runs: false,
      schemaRelease: null,
    });
    const up = await runCli(['migrate', 'up', '--json'], env);
    expect(up.json.applied).toEqual(all);
    const bad = await runCli(['migrate', 'sideways'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/migrate takes up, down or status/);
  });

  it('needs DATABASE_URL and says so', async () => {
    const r = await runCli(['migrate', 'status'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DATABASE_URL is required/);
  });

  it('creates a team, turns on experimental tools, adds a user and a working API key, then revokes it', async () => {
    const team = await runCli(['team', 'create', '--name', 'Acme', '--tier', 'business', '--json'], env);
    expect(team.code).toBe(0);
    expect(team.json.team).toMatchObject({ name: 'Acme', tier: 'business', feature_flags: [] });
    const teamId = team.json.team.id;

    const flags = await runCli(['team', 'flags', '--team', teamId, '--enable', 'search,fetch', '--json'], env);
    expect(flags.json.team.feature_flags).toEqual(['fetch', 'search']);

    const user = await runCli(
      ['user', 'create', '--team', teamId, '--email', 'Lin@Acme.example', '--name', 'Lin', '--role', 'admin', '--json'],
      env,
    );
    expect(user.code).toBe(0);
    expect(user.json.user).toMatchObject({ email: 'lin@acme.example', role: 'admin', team_id: teamId });

    const key = await runCli(['apikey', 'create', '--email', 'lin@acme.example', '--json'], env);
    expect(key.code).toBe(0);
    expect(key.json.key).toMatch(/^mi_[a-z0-9]{8}_/);
    const principal = await authenticateApiKey(t.db, key.json.key);
    expect(principal).toMatchObject({
      email: 'lin@acme.example',
      role: 'admin',
      tier: 'business',
      flags: ['fetch', 'search'],
    });

    const human = await runCli(['apikey', 'create', '--email', 'lin@acme.example'], env);
    expect(human.stdout).toMatch(/shown once/);

    const revoke = await runCli(['apikey', 'revoke', '--prefix', key.json.prefix, '--json'], env);
    expect(revoke.json).toEqual({ prefix: key.json.prefix, revoked: true, grants_ended: 0, sessions_ended: 0 });
    await expect(authenticateApiKey(t.db, key.json.key)).rejects.toMatchObject({ code: 'auth_failed' });
  });

  it.each([
    [['team', 'create', '--name', 'X', '--tier', 'gold'], /tier must be one of free, pro, business, enterprise/],
    [['team', 'create', '--tier', 'pro'], /--name is required/],
    [['team', 'flags', '--team', 'nope', '--enable', 'teleport'], /enable: unknown flag "teleport"/],
    [['team', 'flags', '--team', 'nope'], /--enable or --disable is required/],
    [
      ['user', 'create', '--team', 'nope', '--email', 'not-an-email', '--name', 'N'],
      /email: "not-an-email" is not an email address/,
    ],
    [['user', 'create', '--email', 'a@b.example', '--name', 'N'], /--team is required/],
    [
      ['user', 'create', '--team', 'nope', '--email', 'a@b.example', '--name', 'N', '--role', 'king'],
      /role must be one of member, admin, super_admin/,
    ],
    [['user', 'create', '--team', 'nope', '--email', 'a@b.example', '--name', 'N'], /team "nope" was not found/],
    [['apikey', 'create'], /--email is required/],
    [['apikey', 'create', '--email', 'ghost@nowhere.example'], /user with email "ghost@nowhere.example" was not found/],
    [['apikey', 'revoke', '--prefix', 'zzzzzzzz'], /API key with prefix "zzzzzzzz" was not found/],
    [['team', 'create', '--name', 'X', '--tier', 'pro', '--colour', 'red'], /Unknown option '--colour'/],
    [['serve', 'everything'], /serve takes one of mcp, graphql, worker, all/],
  ])('refuses %j with exit 2 naming the option and rule', async (args, message) => {
    const r = await runCli([...args, '--json'], env);
    expect(r.code).toBe(2);
    expect(r.json.error.message).toMatch(message);
  });

  it('seed demo imports the fixtures through the pipeline once, and a second run changes nothing', async () => {
    const seedEnv = { ...env, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, SECRETS_KEY: 'ab'.repeat(32) };
    const first = await runCli(['seed', 'demo', '--json'], seedEnv);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      admin_email: 'ada@demo.example',
      users: 8,
      meetings: { imported: 24, total: 24 },
    });
    expect(first.json.api_key).toMatch(/^mi_/);
    const principal = await authenticateApiKey(t.db, first.json.api_key);
    expect(principal).toMatchObject({ role: 'super_admin', tier: 'enterprise', flags: ['fetch', 'search'] });

    const counts = async () => ({
      meetings: Number(
        (await t.db('meetings').where({ team_id: first.json.team_id, status: 'completed' }).count({ n: '*' }))[0].n,
      ),
      sentences: Number((await t.db('sentences').count({ n: '*' }))[0].n),
      shares: Number((await t.db('meeting_shares').count({ n: '*' }))[0].n),
      groups: Number((await t.db('user_groups').where({ team_id: first.json.team_id }).count({ n: '*' }))[0].n),
      channels: Number((await t.db('channels').where({ team_id: first.json.team_id }).count({ n: '*' }))[0].n),
    });
    const before = await counts();
    expect(before.meetings).toBe(24);
    expect(before.sentences).toBeGreaterThan(24 * 20);
    expect(before.shares).toBeGreaterThan(0);
    expect(before).toMatchObject({ groups: 3, channels: 3 });

    const second = await runCli(['seed', 'demo', '--json'], seedEnv);
    expect(second.code).toBe(0);
    expect(second.json).toMatchObject({ meetings: { imported: 0, total: 24 }, api_key: null });
    expect(await counts()).toEqual(before);
  }, 180_000);

  it('serve mcp runs the role until SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(BIN, ['serve', 'mcp'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: t.url,
        MCP_PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const end = Date.now() + 20000;
    while (!out.includes('ready') && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(new RegExp(`ready: http://127.0.0.1:${port}/mcp`));
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
