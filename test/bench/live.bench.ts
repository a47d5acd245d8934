/**
 * Live ingest benchmark: M concurrent live meetings, each appending one sentence every I ms through
 * GraphQL `appendLiveSentences` for S seconds, each sentence then read back through the MCP tool
 * `svc_get_transcript` (plain JSON-RPC over real HTTP). The graphql role, the mcp role and ONE worker
 * each run as their own process, as in a deployment, so each one's CPU and memory are its own (read
 * from /proc) and the load driver (this process) does not share their event loops. Not part of `jest`.
 *
 *   npx tsx test/bench/live.bench.ts                              # 50 meetings, 200 ms, 120 s
 *   npx tsx test/bench/live.bench.ts --meetings 20 --seconds 30   # a quick run
 *
 * Environment: BENCH_PROF=<dir> writes a V8 CPU profile of each role's process there.
 *
 * Options: --meetings M (default 50) · --seconds S (measured time, default 120) · --interval-ms I
 *          (between two appends of one meeting, default 200) · --warmup-seconds W (default 5)
 *
 * Reports:
 *   - append → visible: from just before the append is sent until svc_get_transcript returns the
 *     sentence (p50 / p95 / p99 / max; target p99 ≤ 500 ms), and the append's own answer time;
 *   - appends per second achieved against the schedule, and errors;
 *   - CPU of the worker, the graphql and mcp roles, PostgreSQL, the Temporal server and the driver:
 *     CPU seconds over wall seconds (cores) and as a share of the machine;
 *   - the worker's peak RSS; end → completed (post-processing) p50 / p95 for all meetings.
 * PostgreSQL and Temporal come from the environment (DATABASE_URL, TEMPORAL_ADDRESS) or are started
 * locally, as for the tests (test/support/stack.ts). The schedule is open-loop: a slow answer does
 * not delay the next append (as a real recorder would keep sending).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import { freePort } from '../../services/devstack/ports';
import { createDb, migrateLatest, type Db } from '../../services/platform/db';
import { provisionPostgres, provisionTemporal } from '../support/stack';
import { rolesEnv } from './options';

const ROOT = resolve(__dirname, '..', '..');

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number`);
  return n;
}

const MEETINGS = Math.round(option('meetings', 50));
const SECONDS = option('seconds', 120);
const INTERVAL_MS = option('interval-ms', 200);
const WARMUP_SECONDS = option('warmup-seconds', 5);
const TARGET_P99_MS = 500;
const MAX_IN_FLIGHT = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const now = () => performance.now();
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** CPU seconds of every process whose command line matches `pattern` (pgrep -f), e.g. all PostgreSQL backends. */
function cpuSecondsOf(pattern: string): number {
  const pids = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum; // exited meanwhile
    }
  }, 0);
}

function rssKb(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function waitReady(url: string, child: ChildProcess, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the worker exited with code ${child.exitCode} (see its log)`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`the worker was not ready within ${timeoutMs} ms`);
}

const APPEND =
  'mutation A($id: ID!, $s: [LiveSentenceInput!]!) { appendLiveSentences(meetingId: $id, sentences: $s) { sentence_count } }';
const START = 'mutation S($input: LiveMeetingInput!) { startLiveMeeting(input: $input) }';
const END = 'mutation E($id: ID!) { endLiveMeeting(meetingId: $id) { state } }';

async function graphql(url: string, key: string, query: string, variables: Record<string, unknown>): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
  if (body.errors?.length) throw new Error(`${body.errors[0].extensions?.code}: ${body.errors[0].message}`);
  return body.data;
}

let rpcId = 0;
/** One page of svc_get_transcript from fromIndex (json format). */
async function transcriptPage(
  url: string,
  key: string,
  meetingId: string,
  fromIndex: number,
): Promise<{ sentences: { index: number; text: string }[]; next_index: number | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: {
        name: 'svc_get_transcript',
        arguments: { transcriptId: meetingId, fromIndex, maxTokens: 4000, format: 'json' },
      },
    }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
  if (!body.result || body.result.isError)
    throw new Error(`svc_get_transcript failed: ${body.result?.content?.[0]?.text ?? res.status}`);
  return JSON.parse(body.result.content[0].text) as {
    sentences: { index: number; text: string }[];
    next_index: number | null;
  };
}

/** Whether text is in the transcript at or after fromIndex (following pages). */
async function visible(url: string, key: string, meetingId: string, fromIndex: number, text: string): Promise<boolean> {
  for (let from: number | null = fromIndex; from !== null;) {
    const page = await transcriptPage(url, key, meetingId, from);
    if (page.sentences.some((s) => s.text === text)) return true;
    from = page.next_index;
  }
  return false;
}

interface Sample {
  visibleMs: number;
  answerMs: number;
}

async function main(): Promise<void> {
  log(
    `${MEETINGS} live meetings, one sentence every ${INTERVAL_MS} ms each, ${SECONDS} s measured after ${WARMUP_SECONDS} s of warm-up`,
  );
  const [pg, temporalServer] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const dbName = `mi_bench_live_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const env = rolesEnv(u.toString(), temporalServer.url, 'bench-live', {
    DATABASE_POOL_MAX: '20',
    RATE_LIMIT_PER_MINUTE: '10000000',
    LIVE_IDLE_TIMEOUT: '10m',
  });
  const db: Db = createDb({ url: env.DATABASE_URL, poolMax: 20 });
  await migrateLatest(db);

  // One team; one organizer (and API key) per meeting, as one bot per meeting would have.
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise' });
  const keys: string[] = [];
  for (let i = 0; i < MEETINGS; i++) {
    const email = `bot${i}@bench.example`;
    await db('users').insert({ id: newId(), team_id: teamId, email, name: `Bot ${i}`, role: 'member' });
    keys.push((await createApiKey(db, { email })).key);
  }

  /** A role in its own process, as a pod would run it; its output goes to a log file. */
  const logs: string[] = [];
  const role = (name: 'worker' | 'graphql' | 'mcp', extra: Record<string, string>): ChildProcess => {
    const logFile = join(tmpdir(), `mi-bench-live-${name}-${process.pid}.log`);
    logs.push(logFile);
    const out = createWriteStream(logFile);
    const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}/${name}`] : [];
    const child = spawn(process.execPath, [...prof, '--import', 'tsx', join(ROOT, 'services', name, 'main.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...env, HOST: '127.0.0.1', MI_ROLE: name, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    return child;
  };
  const [port, graphqlPort, mcpPort] = [await freePort(), await freePort(), await freePort()];
  const worker = role('worker', { WORKER_METRICS_PORT: String(port) });
  const graphqlRole = role('graphql', { GRAPHQL_PORT: String(graphqlPort) });
  const mcpRole = role('mcp', { MCP_PORT: String(mcpPort) });
  const children = [worker, graphqlRole, mcpRole];
  const graphqlUrl = `http://127.0.0.1:${graphqlPort}/graphql`;
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      peakKb = Math.max(peakKb, rssKb(worker.pid!).rss);
    } catch {
      // exited
    }
  }, 250);

  try {
    await Promise.all([
      waitReady(`http://127.0.0.1:${port}/readyz`, worker),
      waitReady(`http://127.0.0.1:${graphqlPort}/readyz`, graphqlRole),
      waitReady(`http://127.0.0.1:${mcpPort}/readyz`, mcpRole),
    ]);
    log(`worker, graphql and mcp roles ready (logs: ${logs.join(', ')})`);

    const ids: string[] = [];
    for (let i = 0; i < MEETINGS; i++) {
      ids.push(
        (
          await graphql(graphqlUrl, keys[i], START, {
            input: { title: `Bench live meeting ${i}`, meeting_link: `https://meet.example.com/bench-${i}` },
          })
        ).startLiveMeeting,
      );
    }
    log(`${MEETINGS} live meetings started`);

    const samples: Sample[] = [];
    const errors: string[] = [];
    let sent = 0;
    let measuring = false;
    const warmupEnd = Date.now() + WARMUP_SECONDS * 1000;
    const stopAt = warmupEnd + SECONDS * 1000;
    /** CPU seconds so far of each part of the system. */
    const cpuNow = () => ({
      worker: cpuSeconds(worker.pid!),
      graphql: cpuSeconds(graphqlRole.pid!),
      mcp: cpuSeconds(mcpRole.pid!),
      postgres: cpuSecondsOf('postgres'),
      temporal: cpuSecondsOf('temporal server'),
      driver: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    });
    let cpuStart = cpuNow();
    let wallStart = 0;

    /**
     * One meeting's recorder: a sentence is due every INTERVAL_MS on a fixed schedule and sent then,
     * without waiting for earlier answers, up to MAX_IN_FLIGHT unanswered appends (a recorder's bounded
     * send queue). Latency counts from the
     * moment the sentence was due, so time spent queued behind the cap is included.
     */
    const recorder = async (m: number) => {
      const id = ids[m];
      const key = keys[m];
      const tasks: Promise<void>[] = [];
      let inFlight = 0;
      /** Appends of this meeting answered so far: a new sentence's index is at least this. */
      let answeredCount = 0;
      // Spread the meetings' ticks over one interval.
      const t0 = now() + (m * INTERVAL_MS) / MEETINGS;
      const stopAtPerf = now() + (stopAt - Date.now());
      for (let k = 0; ; k++) {
        const due = t0 + k * INTERVAL_MS;
        if (due >= stopAtPerf) break;
        if (due > now()) await sleep(due - now());
        while (inFlight >= MAX_IN_FLIGHT) await sleep(2);
        const counted = measuring;
        const text = `Meeting ${m} sentence ${k}: we keep going through the agenda item by item.`;
        const floor = answeredCount;
        sent++;
        inFlight++;
        tasks.push(
          (async () => {
            let released = false;
            const release = () => {
              if (!released) inFlight--;
              released = true;
            };
            try {
              await graphql(graphqlUrl, key, APPEND, {
                id,
                s: [
                  {
                    speaker_name: `Speaker ${k % 3}`,
                    text,
                    start_time: k * 0.2,
                    end_time: k * 0.2 + 0.19,
                    chunk_id: `c${k}`,
                  },
                ],
              });
              const answered = now();
              answeredCount++;
              release();
              for (let tries = 0; !(await visible(mcpUrl, key, id, floor, text)); tries++) {
                if (tries > 50) throw new Error(`sentence ${k} of meeting ${m} never became visible`);
                await sleep(5);
              }
              if (counted) samples.push({ visibleMs: now() - due, answerMs: answered - due });
            } catch (e) {
              release();
              errors.push((e as Error).message);
            }
          })(),
        );
      }
      await Promise.all(tasks);
    };

    const done = Promise.all(ids.map((_, m) => recorder(m)));
    await sleep(Math.max(0, warmupEnd - Date.now()));
    measuring = true;
    const sentBefore = sent;
    cpuStart = cpuNow();
    wallStart = Date.now();
    await sleep(Math.max(0, stopAt - Date.now()));
    const cpuEnd = cpuNow();
    const wall = (Date.now() - wallStart) / 1000;
    const sentMeasured = sent - sentBefore;
    measuring = false;
    await done;
    log(`appends done: ${samples.length} measured, ${errors.length} errors`);

    // End every meeting and time its post-processing.
    const endStarted = Date.now();
    await Promise.all(ids.map((id, m) => graphql(graphqlUrl, keys[m], END, { id })));
    const completion: number[] = [];
    for (;;) {
      const rows: { status: string; updated_at: Date }[] = await db('meetings')
        .whereIn('id', ids)
        .select('status', 'updated_at');
      if (rows.every((r) => r.status !== 'processing')) {
        for (const r of rows) completion.push(new Date(r.updated_at).getTime() - endStarted);
        break;
      }
      await sleep(100);
    }
    const [{ n: stored }] = await db('sentences').whereIn('meeting_id', ids).count({ n: '*' });

    const visibleMs = samples.map((s) => s.visibleMs);
    const answer = samples.map((s) => s.answerMs);
    const coresOf = (k: keyof typeof cpuEnd) => Number(((cpuEnd[k] - cpuStart[k]) / wall).toFixed(3));
    const cores = coresOf('worker');
    const cpuByPart = Object.fromEntries((Object.keys(cpuEnd) as (keyof typeof cpuEnd)[]).map((k) => [k, coresOf(k)]));
    const rss = rssKb(worker.pid!);
    const report = {
      meetings: MEETINGS,
      interval_ms: INTERVAL_MS,
      seconds: SECONDS,
      appends_scheduled_per_s: Number(((MEETINGS * 1000) / INTERVAL_MS).toFixed(1)),
      appends_measured_per_s: Number((samples.length / wall).toFixed(1)),
      appends_sent_per_s: Number((sentMeasured / wall).toFixed(1)),
      errors: errors.length,
      first_error: errors[0] ?? null,
      visible_p50_ms: Number(pct(visibleMs, 50).toFixed(1)),
      visible_p95_ms: Number(pct(visibleMs, 95).toFixed(1)),
      visible_p99_ms: Number(pct(visibleMs, 99).toFixed(1)),
      visible_max_ms: Number(Math.max(...visibleMs).toFixed(1)),
      append_answer_p50_ms: Number(pct(answer, 50).toFixed(1)),
      append_answer_p99_ms: Number(pct(answer, 99).toFixed(1)),
      worker_cpu_cores: cores,
      cpu_cores_by_part: cpuByPart,
      worker_cpu_share_of_machine_pct: Number(((100 * cores) / cpus().length).toFixed(1)),
      machine_cores: cpus().length,
      worker_peak_rss_mb: Number((Math.max(rss.peak, peakKb) / 1024).toFixed(1)),
      sentences_stored: Number(stored),
      end_to_completed_p50_s: Number((pct(completion, 50) / 1000).toFixed(2)),
      end_to_completed_p95_s: Number((pct(completion, 95) / 1000).toFixed(2)),
    };
    const rows: [string, string][] = [
      [
        'load',
        `${MEETINGS} meetings × 1 sentence / ${INTERVAL_MS} ms = ${report.appends_scheduled_per_s} appends/s for ${SECONDS} s`,
      ],
      ['appends measured', `${samples.length} (${report.appends_measured_per_s}/s), ${errors.length} errors`],
      [
        'append → visible in svc_get_transcript',
        `p50 ${ms(report.visible_p50_ms)} · p95 ${ms(report.visible_p95_ms)} · p99 ${ms(report.visible_p99_ms)} · max ${ms(report.visible_max_ms)}`,
      ],
      ['appendLiveSentences answer', `p50 ${ms(report.append_answer_p50_ms)} · p99 ${ms(report.append_answer_p99_ms)}`],
      [
        'worker CPU',
        `${report.worker_cpu_cores} cores = ${report.worker_cpu_share_of_machine_pct}% of ${report.machine_cores} cores`,
      ],
      [
        'CPU by part (cores)',
        Object.entries(cpuByPart)
          .map(([k, v]) => `${k} ${v}`)
          .join(' · '),
      ],
      ['worker peak RSS', `${report.worker_peak_rss_mb} MB`],
      [
        'end → completed (all meetings at once)',
        `p50 ${report.end_to_completed_p50_s} s · p95 ${report.end_to_completed_p95_s} s`,
      ],
      [`target p99 ≤ ${TARGET_P99_MS} ms`, report.visible_p99_ms <= TARGET_P99_MS ? 'met' : 'NOT met'],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(
      `\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n${JSON.stringify(report)}\n`,
    );
  } finally {
    clearInterval(sampler);
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(undefined) : c.once('exit', r)))),
    );
    await db.destroy();
    const a = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
    await a.raw(`drop database if exists ${dbName} with (force)`);
    await a.destroy();
    await Promise.all([pg.stop(), temporalServer.stop()]);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
