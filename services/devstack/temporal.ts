/**
 * The Temporal dev server (`temporal server start-dev`) from PATH or the project's tools folder,
 * built from source with `go install` when absent (nothing downloads a prebuilt binary).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort } from './ports';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
export const TOOLS_BIN = resolve(__dirname, '..', '..', '.tools', 'bin');

export function findTemporal(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  const local = join(TOOLS_BIN, 'temporal');
  return existsSync(local) ? local : undefined;
}

/** Build the Temporal CLI into .tools/bin (a few minutes the first time, then cached). */
export function buildTemporal(log: (line: string) => void = () => {}): string {
  mkdirSync(TOOLS_BIN, { recursive: true });
  log(`building the Temporal CLI (${TEMPORAL_CLI_MODULE}) into ${TOOLS_BIN}; this happens once`);
  const r = spawnSync('go', ['install', TEMPORAL_CLI_MODULE], {
    env: { ...process.env, GOBIN: TOOLS_BIN },
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('go install of the Temporal CLI failed; is Go installed (go version)?');
  return join(TOOLS_BIN, 'temporal');
}

export interface LocalTemporal {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function waitForTemporal(address: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await conn.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await conn.close();
      }
    } catch (e) {
      lastError = e;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw new Error(`Temporal at ${address} did not become ready: ${String(lastError)}`);
}

export async function startLocalTemporal(opts: {
  binary: string;
  port: number;
  dbFile?: string;
  logFile?: string;
}): Promise<LocalTemporal> {
  // Every port the dev server opens is chosen, so several servers (parallel test runs) never collide.
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    '--log-level',
    'error',
  ];
  if (opts.dbFile) {
    mkdirSync(resolve(opts.dbFile, '..'), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  // Its own process group: Ctrl-C on `make dev` must not kill it before the worker has drained;
  // whoever started it stops it last.
  const child = spawn(opts.binary, args, { stdio: 'ignore', detached: true });
  const address = `127.0.0.1:${opts.port}`;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await Promise.race([
    waitForTemporal(address),
    exited.then(() => {
      throw new Error(`temporal server start-dev exited early (port ${opts.port} in use?)`);
    }),
  ]);
  return {
    address,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      // The grace timer is cleared once the server is gone: left pending, it kept the caller alive.
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 5000)))]);
      clearTimeout(grace);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
