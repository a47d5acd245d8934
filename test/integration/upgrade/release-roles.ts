/**
 * What the upgrade test runs: a release's code checked out from this repository's history, its roles
 * as processes of their own (`meeting-intel serve <role>`, as a pod runs them), and a Service in front
 * of each HTTP role that routes to the pods that are in it and records every status it answered.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../../../services/devstack/ports';
import { compareReleases, RELEASE } from '../../../services/platform/release';

export const REPO = join(__dirname, '..', '..', '..');

export interface Release {
  version: string;
  commit: string;
}

/** The newest release in releases.json older than this code's. */
export function previousRelease(): Release {
  const releases: Release[] = JSON.parse(readFileSync(join(REPO, 'releases.json'), 'utf8')).releases;
  const older = releases
    .filter((r) => compareReleases(r.version, RELEASE) < 0)
    .sort((a, b) => compareReleases(a.version, b.version));
  if (!older.length) throw new Error(`releases.json lists no release older than ${RELEASE}`);
  return older[older.length - 1];
}

/**
 * The release's sources at its commit, in `dir`, running on this checkout's node_modules (the previous
 * release's dependencies are a subset of this one's at the same versions or compatible ones). `git
 * archive` rather than `git worktree add`: nothing is registered in the repository, so a test that
 * dies leaves nothing to prune. Needs the full history (a shallow clone lacks the commit).
 */
export function checkOut(release: Release, dir: string): string {
  try {
    execFileSync('git', ['cat-file', '-e', `${release.commit}^{commit}`], { cwd: REPO, stdio: 'ignore' });
  } catch {
    throw new Error(
      `release ${release.version}'s commit ${release.commit} is not in this clone: the upgrade test needs the full history (git fetch --unshallow)`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync(
    'git',
    ['archive', '--format=tar', release.commit, 'bin', 'services', 'workflows', 'package.json', 'tsconfig.json'],
    { cwd: REPO, maxBuffer: 256 * 1024 * 1024 },
  );
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

export type RoleName = 'mcp' | 'graphql' | 'worker';

export interface RunningRole {
  role: RoleName;
  release: string;
  /** Where the role answers (the worker: its health and metrics). */
  base: string;
  process: ChildProcess;
  output(): string;
  /** SIGTERM, as Kubernetes stops a pod, and wait for the graceful exit. */
  stop(): Promise<number | null>;
}

const PORT_VARIABLE: Record<RoleName, string> = {
  mcp: 'MCP_PORT',
  graphql: 'GRAPHQL_PORT',
  worker: 'WORKER_METRICS_PORT',
};

/** `meeting-intel serve <role>` of the code in `dir`, once it says it is ready. */
export async function startRole(
  dir: string,
  release: string,
  role: RoleName,
  env: Record<string, string>,
): Promise<RunningRole> {
  const port = await freePort();
  const child = spawn(join(dir, 'bin', 'meeting-intel'), ['serve', role], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env, [PORT_VARIABLE[role]]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const end = Date.now() + 90_000;
  while (!/^ready: /m.test(out)) {
    if (child.exitCode !== null) throw new Error(`${release} ${role} exited ${child.exitCode}: ${out}`);
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`${release} ${role} did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    role,
    release,
    base: `http://127.0.0.1:${port}`,
    process: child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface Service {
  url: string;
  /** Route new requests to these pods only (a pod leaves before it is stopped, as endpoints do). */
  route(pods: RunningRole[]): void;
  /** Every status answered, in order, with the pod's release. */
  answers: { status: number; release: string; path: string }[];
  close(): Promise<void>;
}

/** A Kubernetes Service in miniature: round robin over the pods in it, no retries of its own. */
export async function startService(): Promise<Service> {
  let pods: RunningRole[] = [];
  let next = 0;
  const answers: Service['answers'] = [];
  const server: Server = createServer((req, res) => {
    const pod = pods.length ? pods[next++ % pods.length] : undefined;
    if (!pod) {
      answers.push({ status: 503, release: 'none', path: req.url ?? '' });
      res.writeHead(503).end();
      return;
    }
    const upstream = request(
      `${pod.base}${req.url}`,
      { method: req.method, headers: req.headers, agent: false },
      (up) => {
        answers.push({ status: up.statusCode ?? 0, release: pod.release, path: req.url ?? '' });
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      answers.push({ status: 502, release: pod.release, path: req.url ?? '' });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    route: (p) => {
      pods = [...p];
    },
    answers,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Run a release's CLI to completion; its JSON answer. */
export function cli(dir: string, args: string[], env: Record<string, string>): any {
  const out = execFileSync(join(dir, 'bin', 'meeting-intel'), [...args, '--json'], {
    cwd: dir,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}
