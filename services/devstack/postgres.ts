/**
 * A throwaway PostgreSQL cluster from the machine's own binaries, for `make dev` and the tests.
 * initdb and postgres refuse to run as root, so as root the cluster runs as the `postgres` user in a
 * folder it owns.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';

export class MissingBinaryError extends Error {}

export const POSTGRES_HELP =
  'PostgreSQL server binaries (initdb, pg_ctl) were not found on PATH or under /usr/lib/postgresql/*/bin.\n' +
  'Install them with:  sudo apt-get update && sudo apt-get install -y postgresql\n' +
  'or point the service at an existing server with DATABASE_URL=postgres://user:pass@host:5432/postgres';

function onPath(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : undefined;
}

export function findPostgresBin(): string {
  const initdb = onPath('initdb');
  if (initdb && onPath('pg_ctl')) return resolve(initdb, '..');
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(base, versions[0], 'bin');
  }
  throw new MissingBinaryError(POSTGRES_HELP);
}

const isRoot = () => userInfo().uid === 0;

function run(bin: string, args: string[], opts: { quiet?: boolean; env?: NodeJS.ProcessEnv } = {}): string {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, {
    encoding: 'utf8',
    stdio: opts.quiet ? ['ignore', 'pipe', 'pipe'] : 'pipe',
    env: opts.env ?? process.env,
  });
}

/**
 * glibc's malloc settings for the server processes, fixed rather than adaptive. Planning a meeting list
 * reads the full-text statistics (pg_statistic's element arrays, decompressed each time) into
 * allocations of a few hundred KB. With glibc's adaptive thresholds, a backend that has served other
 * work (transcripts, summaries) can end up returning that memory to the kernel after every statement
 * and faulting it back in on the next: tens of thousands of minor faults a second on the backend
 * serving the mcp role's keyword calls, none on a fresh one, and every list statement slower
 * (services/platform/README.md, "malloc"). Fixed thresholds keep such allocations on the heap and the
 * heap's top in place: no faults in any backend. The cost is memory a backend keeps after a peak (at
 * most the trim threshold). glibc reads these variables; other C libraries ignore them. docs/operations.md
 * recommends the same for an operator's PostgreSQL.
 */
export const POSTGRES_MALLOC_ENV = {
  MALLOC_MMAP_THRESHOLD_: String(4 << 20),
  MALLOC_TRIM_THRESHOLD_: String(64 << 20),
};

function prepareFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
}

export interface LocalPostgres {
  url: string;
  port: number;
  dataDir: string;
  stop(): void;
}

/**
 * Start (or reuse) a cluster in `dataDir` listening on 127.0.0.1:`port`, with a `postgres` superuser
 * and trust authentication on loopback. `durable: false` turns off fsync for speed (tests).
 */
export function startLocalPostgres(opts: { dataDir: string; port: number; durable?: boolean }): LocalPostgres {
  const bin = findPostgresBin();
  const dataDir = resolve(opts.dataDir);
  const url = `postgres://postgres@127.0.0.1:${opts.port}/postgres`;
  const pgCtl = join(bin, 'pg_ctl');
  const stop = () => {
    try {
      run(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop'], { quiet: true });
    } catch {
      /* already stopped */
    }
  };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    prepareFolder(dataDir);
    run(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C.UTF-8'],
      {
        quiet: true,
      },
    );
  }
  const status = spawnSync(
    isRoot() ? 'runuser' : pgCtl,
    isRoot() ? ['-u', 'postgres', '--', pgCtl, '-D', dataDir, 'status'] : ['-D', dataDir, 'status'],
  );
  if (status.status === 0) {
    const opts2 = readFileSync(join(dataDir, 'postmaster.opts'), 'utf8');
    const m = /"-p" "(\d+)"/.exec(opts2);
    const port = m ? Number(m[1]) : opts.port;
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dataDir, stop };
  }
  const settings = [
    `-p ${opts.port}`,
    `-k ${dataDir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=300',
    ...(opts.durable === false ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ].join(' ');
  run(pgCtl, ['-D', dataDir, '-o', settings, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', 'start'], {
    quiet: true,
    env: { ...process.env, ...POSTGRES_MALLOC_ENV },
  });
  return { url, port: opts.port, dataDir, stop };
}
