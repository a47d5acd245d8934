/**
 * The mcp role as the A/B benches run it: a process of its own from source (`bin/meeting-intel serve
 * mcp`, logs off), driven over kept-alive HTTP by `load`, which keeps `concurrency` JSON-RPC calls in
 * flight and reads the role's and PostgreSQL's CPU from /proc (proc.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { freePort } from '../../services/devstack/ports';
import { provisionPostgres, type Provisioned } from '../support/stack';
import { cpuMs, parentPid, postgresCpuByPid, postgresCpuSince } from './proc';

/** A numeric command-line option `--name N`, or its default. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A fresh database of the bench's own (`mi_bench_<label>_<time>`) on DATABASE_URL or a throwaway local cluster. */
export async function benchDatabase(
  label: string,
  poolMax: number,
): Promise<{ pg: Provisioned; db: Knex; url: string }> {
  const pg = await provisionPostgres();
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  const dbName = `mi_bench_${label}_${Date.now()}`;
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const db = knexFactory({ client: 'pg', connection: u.toString(), pool: { min: 0, max: poolMax } });
  return { pg, db, url: u.toString() };
}

/** The postmaster of `db`'s cluster when it runs on this machine (its CPU is then the only one counted), else undefined. */
export async function localPostmaster(db: Knex): Promise<number | undefined> {
  const backend = Number((await db.raw('select pg_backend_pid() as pid')).rows[0].pid);
  try {
    return parentPid(backend);
  } catch {
    return undefined;
  }
}

export interface Role {
  port: number;
  child: ChildProcess;
}

/** An mcp role on `url`'s database with `env` on top of the bench's defaults, once it answers /healthz. */
export async function startRole(url: string, env: Record<string, string>): Promise<Role> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '../../bin/meeting-intel'), 'serve', 'mcp'], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      MCP_PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      MCP_ALLOWED_HOSTS: '*',
      LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
    });
    if (ok) return { port, child };
    if (i > 600) throw new Error('the mcp role did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function stopRole(role: Role): Promise<void> {
  if (role.child.exitCode !== null) return;
  const exited = new Promise((resolve) => role.child.once('exit', resolve));
  role.child.kill('SIGTERM');
  await exited;
}

export interface Answer {
  status: number;
  text: string;
  ms: number;
  headers: http.IncomingHttpHeaders;
}

/** One POST /mcp with this key and JSON-RPC body, over `agent`'s kept-alive connections. */
export function post(agent: http.Agent, port: number, key: string, body: string): Promise<Answer> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'POST',
        path: '/mcp',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface Series {
  perSecond: number;
  p50: number;
  p95: number;
  n: number;
  /** CPU milliseconds the serving role and PostgreSQL used during the series. */
  roleCpu: number;
  pgCpu: number;
}

/**
 * `concurrency` callers making `call`s until `until()`; any failed call (HTTP or tool error) ends the
 * bench. PostgreSQL's CPU is `postmaster`'s cluster's when given, else every cluster's on the machine.
 */
export async function load(
  concurrency: number,
  call: (i: number) => Promise<Answer>,
  until: () => boolean,
  rolePid?: number,
  postmaster?: number,
): Promise<Series> {
  const role0 = rolePid ? cpuMs(rolePid) : 0;
  const pg0 = postgresCpuByPid(postmaster);
  const times: number[] = [];
  let n = 0;
  const worker = async () => {
    while (!until()) {
      const r = await call(n++);
      if (r.status !== 200 || r.text.includes('"isError":true'))
        throw new Error(`call failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      times.push(r.ms);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN;
  return {
    perSecond: times.length / ((Date.now() - started) / 1000),
    p50: q(0.5),
    p95: q(0.95),
    n: times.length,
    roleCpu: rolePid ? cpuMs(rolePid) - role0 : NaN,
    pgCpu: postgresCpuSince(pg0, postmaster),
  };
}

export const forSeconds = (s: number) => {
  const end = Date.now() + s * 1000;
  return () => Date.now() >= end;
};

/** A tools/call message asking for JSON. */
export const rpc = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { ...args, format: 'json' } },
  });

export const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
