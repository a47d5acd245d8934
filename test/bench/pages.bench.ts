/**
 * The meeting page of a three-hour meeting (2,500 sentences), served by the mcp role as the image runs
 * it, beside the svc_get_transcript call that reads the same data, in the same run.
 *
 *   npx tsx test/bench/pages.bench.ts [--sentences 2500] [--concurrency 16] [--seconds 8] [--rounds 2]
 *
 * Targets (issue "The links we hand out open"): page p95 ≤ 50 ms at 16 concurrent; the HTML before the
 * transcript's second part (the whole first answer) ≤ 100 KB compressed.
 *
 * The role runs in a child process (`bin/meeting-intel serve mcp`, logs off, rate limit lifted); the
 * driver here keeps 16 requests in flight over kept-alive connections and times each from send to the
 * last byte (an upper bound of the server's time). Pages and tool calls alternate in rounds, so a drift
 * of this machine's speed hits both alike. PostgreSQL: DATABASE_URL, else a throwaway local cluster.
 */
import { spawn } from 'node:child_process';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import http from 'node:http';
import { join } from 'node:path';
import knexFactory from 'knex';
import { createApiKey, startSession } from '../../services/core/people';
import { newId } from '../../services/core/input';
import { freePort } from '../../services/devstack/ports';
import { migrationSource } from '../../services/platform/migrations';
import { provisionPostgres } from '../support/stack';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const SENTENCES = option('sentences', 2500);
const CONCURRENCY = option('concurrency', 16);
const SECONDS = option('seconds', 8);
const ROUNDS = option('rounds', 2);

const WORDS =
  'we should ship the budget review next week because the launch plan depends on hiring two engineers and the customer feedback was mostly positive about pricing'.split(
    ' ',
  );

function sentenceText(i: number): string {
  const n = 8 + (i % 17);
  return Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ') + '.';
}

async function seed(url: string) {
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  await db.migrate.latest({ migrationSource });
  const teamId = newId();
  const userId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise', feature_flags: ['search', 'fetch'] });
  await db('users').insert({
    id: userId,
    team_id: teamId,
    email: 'olivia@bench.example',
    name: 'Olivia',
    role: 'member',
  });
  const { key } = await createApiKey(db, { email: 'olivia@bench.example' });
  const meetingId = newId();
  const speakers = ['Olivia', 'Pat', 'Sam', 'Dana'];
  const step = (3 * 3600) / SENTENCES;
  await db('meetings').insert({
    id: meetingId,
    team_id: teamId,
    organizer_id: userId,
    organizer_email: 'olivia@bench.example',
    uploader_id: userId,
    title: 'Quarterly planning (3 h)',
    date: new Date('2026-11-02T09:00:00Z'),
    duration_seconds: 3 * 3600,
    privacy: 'teammatesandparticipants',
    status: 'completed',
  });
  await db('meeting_participants').insert(
    speakers.map((s) => ({ meeting_id: meetingId, email: `${s.toLowerCase()}@bench.example`, name: s })),
  );
  for (let from = 0; from < SENTENCES; from += 1000) {
    const rows = [];
    for (let i = from; i < Math.min(SENTENCES, from + 1000); i++) {
      const text = sentenceText(i);
      rows.push({
        meeting_id: meetingId,
        idx: i,
        speaker_name: speakers[i % 4],
        speaker_id: i % 4,
        text,
        raw_text: text,
        start_time: i * step,
        end_time: i * step + step * 0.9,
      });
    }
    await db('sentences').insert(rows);
  }
  await db('summaries').insert({
    meeting_id: meetingId,
    keywords: JSON.stringify(['budget', 'launch', 'hiring']),
    action_items: JSON.stringify(['Olivia sends the plan', 'Pat books the review']),
    overview: 'The team planned the quarter: budget, launch date and hiring.',
    short_summary: 'Quarterly planning.',
    meeting_type: 'planning',
  });
  await db('speaker_analytics').insert(
    speakers.map((name, i) => ({
      meeting_id: meetingId,
      speaker_id: i,
      name,
      duration: 2700,
      word_count: 6000,
      duration_pct: 25,
      words_per_minute: 130,
      positive_pct: 30,
      neutral_pct: 60,
      negative_pct: 10,
    })),
  );
  const { token } = await startSession(
    db,
    { userId, teamId, email: 'olivia@bench.example', name: 'Olivia', role: 'member', tier: 'enterprise', flags: [] },
    { method: 'api_key', apiKeyId: null, ttlMs: 3_600_000 },
  );
  await db.destroy();
  return { meetingId, key, token };
}

interface Shot {
  status: number;
  body: Buffer;
  ms: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(
  port: number,
  opts: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<Shot> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, agent, method: opts.method, path: opts.path, headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

async function load(
  call: () => Promise<Shot>,
  seconds: number,
): Promise<{ p50: number; p95: number; perSecond: number; n: number }> {
  const until = Date.now() + seconds * 1000;
  const times: number[] = [];
  const worker = async () => {
    while (Date.now() < until) {
      const r = await call();
      if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${r.body.toString('utf8').slice(0, 200)}`);
      times.push(r.ms);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { p50: q(0.5), p95: q(0.95), perSecond: times.length / ((Date.now() - started) / 1000), n: times.length };
}

async function main(): Promise<void> {
  const pg = await provisionPostgres();
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  const dbName = `mi_bench_pages_${Date.now()}`;
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const { meetingId, key, token } = await seed(u.toString());

  const port = await freePort();
  const role = spawn(process.execPath, [join(__dirname, '../../bin/meeting-intel'), 'serve', 'mcp'], {
    env: {
      ...process.env,
      DATABASE_URL: u.toString(),
      MCP_PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      MCP_ALLOWED_HOSTS: '*',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '100000000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await request(port, { method: 'GET', path: '/healthz', headers: {} })).status === 200) break;
      } catch {
        if (i > 300) throw new Error('the mcp role did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = () =>
      request(port, { method: 'GET', path: `/meetings/${meetingId}`, headers: { cookie: `mi_session=${token}` } });
    const rpc = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'svc_get_transcript', arguments: { transcriptId: meetingId } },
    });
    const tool = () =>
      request(port, {
        method: 'POST',
        path: '/mcp',
        body: rpc,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(rpc)),
        },
      });

    const first = await page();
    const html = first.body;
    const sentencesShown = (html.toString('utf8').match(/<li id="s-/g) ?? []).length;
    // Warm-up under the same load (JIT, connection pools), not counted.
    await load(page, 3);
    await load(tool, 3);

    const results: {
      round: number;
      pages: Awaited<ReturnType<typeof load>>;
      tool: Awaited<ReturnType<typeof load>>;
    }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const pages = await load(page, SECONDS);
      const t = await load(tool, SECONDS);
      results.push({ round, pages, tool: t });
    }
    const worst = (k: 'pages' | 'tool') => Math.max(...results.map((r) => r[k].p95));
    const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
    console.log(`meeting: ${SENTENCES} sentences over 3 h; the page's first part shows ${sentencesShown} of them`);
    console.log(
      `HTML of the page: ${kb(html.length)} KB raw, ${kb(gzipSync(html).length)} KB gzip, ${kb(brotliCompressSync(html).length)} KB brotli (target ≤ 100 KB compressed)`,
    );
    console.log(
      `${CONCURRENCY} concurrent, ${SECONDS} s per series, ${ROUNDS} rounds (pages, then svc_get_transcript)`,
    );
    console.log('round | page p50 / p95 ms | page req/s | svc_get_transcript p50 / p95 ms | tool req/s');
    for (const r of results) {
      console.log(
        `${r.round}     | ${r.pages.p50.toFixed(1)} / ${r.pages.p95.toFixed(1)} | ${r.pages.perSecond.toFixed(0)} | ${r.tool.p50.toFixed(1)} / ${r.tool.p95.toFixed(1)} | ${r.tool.perSecond.toFixed(0)}`,
      );
    }
    const gz = gzipSync(html).length;
    console.log(
      `page p95 (worst round) ${worst('pages').toFixed(1)} ms: ${worst('pages') <= 50 ? 'PASS' : 'FAIL'} (≤ 50 ms); beside svc_get_transcript p95 ${worst('tool').toFixed(1)} ms`,
    );
    console.log(`compressed HTML ${kb(gz)} KB: ${gz <= 100 * 1024 ? 'PASS' : 'FAIL'} (≤ 100 KB)`);
  } finally {
    role.kill('SIGTERM');
    agent.destroy();
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
