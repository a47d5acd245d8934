/**
 * Several mcp roles, each a process of its own (`services/mcp/main.ts` under tsx), behind a tiny
 * round-robin HTTP proxy: what a Service in front of several pods looks like to a client. Each
 * request the proxy takes goes to the next role in turn, so consecutive calls of one client land on
 * different processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http, { type Server } from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../services/devstack/ports';
import { closeServers, serverUrl } from '../../services/platform/http';

export interface McpCluster {
  /** The proxy's /mcp. */
  url: string;
  /** Each role's own base URL (http://127.0.0.1:port), in the proxy's order. */
  roles: string[];
  /** Requests the proxy sent to each role, in the same order. */
  forwarded: number[];
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

async function startRole(
  databaseUrl: string,
  env: Record<string, string>,
): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), 'services/mcp/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      MCP_PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      MCP_ALLOWED_HOSTS: '*',
      SECRETS_KEY: '0'.repeat(64),
      LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  const end = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`an mcp role exited ${child.exitCode}: ${stderr}`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, child };
    if (Date.now() > end) throw new Error(`an mcp role did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `count` mcp role processes on `databaseUrl` with `env`, and the proxy in front of them. */
export async function startMcpCluster(
  databaseUrl: string,
  count: number,
  env: Record<string, string> = {},
): Promise<McpCluster> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startRole(databaseUrl, env)));
  const roles = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    for (const r of roles) r.child.kill('SIGKILL');
    throw (failed as PromiseRejectedResult).reason;
  }
  const forwarded = roles.map(() => 0);
  let next = 0;
  const proxy: Server = http.createServer((req, res) => {
    const i = next++ % roles.length;
    forwarded[i]++;
    const target = new URL(roles[i].base);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `${serverUrl(proxy)}/mcp`,
    roles: roles.map((r) => r.base),
    forwarded,
    close: async () => {
      await closeServers([proxy], 1000);
      await Promise.all(
        roles.map(
          (r) =>
            new Promise<void>((resolve) => {
              if (r.child.exitCode !== null) return resolve();
              r.child.once('exit', () => resolve());
              r.child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
