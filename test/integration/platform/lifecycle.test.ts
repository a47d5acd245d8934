/**
 * The platform behaviour every role shares: readiness follows its dependencies, and SIGTERM lets a
 * slow in-flight request finish before the process exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { POSTGRES_MALLOC_ENV, startLocalPostgres } from '../../../services/devstack/postgres';
import { freePort } from '../../../services/devstack/ports';
import { startMcpRole } from '../../../services/mcp/main';
import { migrationSource } from '../../../services/platform/migrations';
import { testConfig } from '../../support/config';
import { whileCapturing } from '../../support/logs';
import { createTestDatabase } from '../../support/testDb';
import { makeTeam, makeUser } from '../../support/factory';

const waitFor = async (probe: () => Promise<boolean>, timeoutMs = 20000) => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not reached in time');
};

describe('the mcp role', () => {
  it('loads no Temporal SDK (35 MB a process it would never use)', () => {
    const probe = `
      require('./services/cli/main.ts'); require('./services/cli/commands/serve.ts'); require('./services/mcp/main.ts');
      process.stdout.write(String(Object.keys(require.cache).filter((k) => k.includes('@temporalio')).length));`;
    const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', probe], {
      cwd: join(__dirname, '..', '..', '..'),
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0');
  });
});

describe('a local PostgreSQL (make dev, the tests, the benchmarks)', () => {
  it("runs with glibc's malloc thresholds fixed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mi-pg-env-'));
    chmodSync(dir, 0o755);
    const pg = startLocalPostgres({ dataDir: join(dir, 'data'), port: await freePort(), durable: false });
    try {
      const postmaster = readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
      const environ = readFileSync(`/proc/${postmaster}/environ`, 'utf8').split('\0');
      for (const [name, value] of Object.entries(POSTGRES_MALLOC_ENV)) expect(environ).toContain(`${name}=${value}`);
    } finally {
      pg.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readiness', () => {
  it('turns unready when PostgreSQL stops and ready again when it returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mi-readyz-'));
    chmodSync(dir, 0o755);
    const port = await freePort();
    let pg = startLocalPostgres({ dataDir: join(dir, 'data'), port, durable: false });
    const migrate = knexFactory({ client: 'pg', connection: pg.url, migrations: { migrationSource } });
    await migrate.migrate.latest();
    await migrate.destroy();
    const role = await startMcpRole(testConfig({ DATABASE_URL: pg.url, MCP_PORT: '0', HOST: '127.0.0.1' }, 'mcp'));
    const readyz = role.url.replace(/\/mcp$/, '/readyz');
    try {
      const ok = await fetch(readyz);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ status: 'ready' });

      pg.stop();
      const { result: down, logs } = await whileCapturing('warn', () => fetch(readyz));
      expect(down.status).toBe(503);
      // knex says why in our log (not on the console): the connection it could not make.
      const refused = logs.find('warn', /^Acquire connection error: .*ECONNREFUSED/);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.map((l) => l.component)).toEqual(refused.map(() => 'knex'));
      const body = (await down.json()) as { checks: { name: string; ok: boolean }[] };
      // The mcp role's tools need only PostgreSQL: Temporal is not part of its readiness.
      expect(body.checks).toEqual([
        expect.objectContaining({ name: 'database', ok: false }),
        expect.objectContaining({ name: 'schema', ok: false }),
      ]);
      // Alive all the while: liveness must not restart a pod for a dependency's outage.
      expect((await fetch(readyz.replace('readyz', 'healthz'))).status).toBe(200);

      pg = startLocalPostgres({ dataDir: join(dir, 'data'), port, durable: false });
      await waitFor(async () => (await fetch(readyz)).status === 200);
    } finally {
      await role.close();
      pg.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('graceful shutdown', () => {
  it('lets a slow request finish after SIGTERM, refuses new connections, then exits 0', async () => {
    const t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const user = await makeUser(t.db, team, { name: 'Slow Sam' });
    const port = await freePort();
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), 'services/mcp/main.ts'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: t.url,
        MCP_PORT: String(port),
        HOST: '127.0.0.1',
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
        SHUTDOWN_GRACE_MS: '15000',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const base = `http://127.0.0.1:${port}`;
    const lock = await t.db.transaction();
    try {
      await waitFor(async () => (await fetch(`${base}/healthz`)).ok);
      // Hold a lock the request needs, so it is in flight when the signal arrives.
      await lock.raw('lock table users in access exclusive mode');
      const slow = fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${user.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'svc_get_user', arguments: {} },
        }),
      });
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
      expect(child.exitCode).toBeNull();

      await lock.commit();
      const res = await slow;
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { content: { text: string }[] } };
      expect(body.result.content[0].text).toContain('Slow Sam');
      expect(await exited).toBe(0);
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
      if (child.exitCode === null) child.kill('SIGKILL');
      await t.drop();
    }
    expect(stderr).toBe('');
  });
});
