/**
 * Ingestion benchmark: one-hour WebVTT meetings (~9,000 words, synthetic and deterministic) uploaded
 * through GraphQL uploadAudio and processed end to end by TranscriptionWorkflow on a real Temporal dev
 * server, with ONE worker running as its own process (so its memory is its own).
 *
 *   npx tsx test/bench/ingest.bench.ts                 # 200 meetings, the full run
 *   npx tsx test/bench/ingest.bench.ts --count 20      # a quick run
 *
 * Options: --count N (concurrent phase, default 200) · --concurrency C (uploads in flight, default 16)
 *          --serial K (one-at-a-time phase and plain loop, default 10) · --sentences S (per meeting, default 770)
 *
 * Reports:
 *   - uploads completed per minute, and p50/p95 upload→completed, with C uploads in flight;
 *   - analyze+summarize milliseconds per hour of meeting (worker's pipeline_stage_duration_seconds);
 *   - the worker's peak RSS;
 *   - the same import done by calling the activities in a plain loop (no Temporal), beside K uploads
 *     through Temporal one at a time, so the orchestration cost shows as a ratio.
 * PostgreSQL and Temporal come from the environment (DATABASE_URL, TEMPORAL_ADDRESS) or are started
 * locally, as for the tests (test/support/stack.ts).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import type { Client } from '@temporalio/client';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import type { Principal } from '../../services/core/access';
import { uploadAudio } from '../../services/core/uploads';
import { freePort } from '../../services/devstack/ports';
import { createGraphqlApp } from '../../services/graphql/app';
import { syntheticMeetings, toWebVtt, type SyntheticMeeting } from '../support/synthetic';
import { countWords } from '../../services/intelligence/text/words';
import { loadConfig, type Config } from '../../services/platform/config';
import { createDb, migrateLatest, type Db } from '../../services/platform/db';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import { createTemporalClient } from '../../services/platform/temporal';
import { createActivities } from '../../workflows/activities';
import { startMediaServer } from '../integration/core/ingest/media-server';
import { provisionPostgres, provisionTemporal } from '../support/stack';
import type { WorkflowPort } from '../../services/core/ports';
import { option, rolesEnv } from './options';

const ROOT = resolve(__dirname, '..', '..');

const COUNT = option('count', 200);
const CONCURRENCY = option('concurrency', 16);
const SERIAL = option('serial', 10);
const SENTENCES = option('sentences', 770);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** Peak and current resident memory of a process, from /proc (Linux) or ps. */
function rssKb(pid: number): { rss: number; peak: number } {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const text = readFileSync(status, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  }
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  const rss = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  return { rss, peak: rss };
}

export async function waitReady(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
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

/** Sum of a histogram's _sum samples for one stage (outcome ok) from a Prometheus text page. */
function stageSeconds(metrics: string, stage: string): number {
  const m = new RegExp(`pipeline_stage_duration_seconds_sum\\{stage="${stage}",outcome="ok"\\} ([0-9.e+-]+)`).exec(
    metrics,
  );
  return m ? Number(m[1]) : 0;
}

export interface Env {
  config: Config;
  db: Db;
  temporal: Client;
  graphqlUrl: string;
  key: string;
  principal: Principal;
  close(): Promise<void>;
}

export async function setUp(
  users: { name: string; email: string }[],
): Promise<Env & { pgUrl: string; dbName: string }> {
  const [pg, temporalServer] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const dbName = `mi_bench_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const databaseUrl = u.toString();

  const env = {
    ...rolesEnv(databaseUrl, temporalServer.url, 'bench', { DATABASE_POOL_MAX: '20', RATE_LIMIT_PER_MINUTE: '100000' }),
    MEDIA_MAX_BYTES: String(50 * 1024 * 1024),
  };
  const config = loadConfig(env, 'graphql');
  const db = createDb({ url: databaseUrl, poolMax: 20 });
  await migrateLatest(db);

  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise' });
  const ownerId = newId();
  await db('users').insert({
    id: ownerId,
    team_id: teamId,
    email: 'owner@bench.example',
    name: 'Bench Owner',
    role: 'admin',
  });
  await db('users').insert(
    users.map((x) => ({ id: newId(), team_id: teamId, email: x.email, name: x.name, role: 'member' })),
  );
  const { key } = await createApiKey(db, { email: 'owner@bench.example' });
  const principal: Principal = {
    userId: ownerId,
    teamId,
    email: 'owner@bench.example',
    name: 'Bench Owner',
    role: 'admin',
    tier: 'enterprise',
    flags: [],
  };

  const { client, connection } = createTemporalClient(config);
  const { app, stop } = await createGraphqlApp({ db, config, temporal: client }, []);
  const server: Server = await listen(app, 0, '127.0.0.1');
  return {
    config,
    db,
    temporal: client,
    graphqlUrl: `${serverUrl(server)}/graphql`,
    key,
    principal,
    pgUrl: pg.url,
    dbName,
    close: async () => {
      await closeServers([server], 1000);
      await stop();
      await connection.close();
      await db.destroy();
      const a = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${dbName} with (force)`);
      await a.destroy();
      await Promise.all([pg.stop(), temporalServer.stop()]);
    },
  };
}

export function startWorkerProcess(env: Record<string, string>, port: number, logFile: string): ChildProcess {
  const out = createWriteStream(logFile);
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services', 'worker', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, WORKER_METRICS_PORT: String(port), HOST: '127.0.0.1', MI_ROLE: 'worker' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  return child;
}

const UPLOAD = 'mutation U($input: AudioUploadInput!) { uploadAudio(input: $input) { success meetingId message } }';

const answerMs: number[] = [];

export async function upload(e: Env, url: string, m: SyntheticMeeting): Promise<string> {
  const started = process.hrtime.bigint();
  const res = await fetch(e.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${e.key}` },
    body: JSON.stringify({ query: UPLOAD, variables: { input: { url, title: m.title, meeting_date: m.date } } }),
  });
  const body = (await res.json()) as { data?: { uploadAudio: { meetingId: string } }; errors?: { message: string }[] };
  answerMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (!body.data) throw new Error(`upload refused: ${body.errors?.[0]?.message}`);
  return body.data.uploadAudio.meetingId;
}

/** Wait until every meeting has left `processing`; returns created→updated seconds per completed one. */
async function waitDone(
  db: Db,
  ids: string[],
  timeoutMs: number,
): Promise<{ latencies: number[]; failed: number; spanSeconds: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows: { status: string; created_at: Date; updated_at: Date }[] = await db('meetings')
      .whereIn('id', ids)
      .select('status', 'created_at', 'updated_at');
    const open = rows.filter((r) => r.status === 'processing').length;
    if (open === 0) {
      const done = rows.filter((r) => r.status === 'completed');
      const first = Math.min(...rows.map((r) => new Date(r.created_at).getTime()));
      const last = Math.max(...done.map((r) => new Date(r.updated_at).getTime()));
      return {
        latencies: done.map((r) => (new Date(r.updated_at).getTime() - new Date(r.created_at).getTime()) / 1000),
        failed: rows.length - done.length,
        spanSeconds: (last - first) / 1000,
      };
    }
    if (Date.now() > deadline) throw new Error(`${open} meetings still processing after ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function main(): Promise<void> {
  const users = Array.from({ length: 8 }, (_, i) => ({
    name: `${['Ada', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana'][i]} Bench`,
    email: `user${i}@bench.example`,
  }));
  const meetings = syntheticMeetings({ count: COUNT + SERIAL * 2, sentencesPerMeeting: SENTENCES, seed: 2026, users });
  const words = mean(meetings.map((m) => m.sentences.reduce((n, s) => n + countWords(s.text), 0)));
  const minutes = mean(meetings.map((m) => m.duration_seconds / 60));
  log(`${meetings.length} synthetic meetings: ${Math.round(words)} words, ${minutes.toFixed(1)} min each on average`);

  const e = await setUp(users);
  const media = await startMediaServer();
  const urls = meetings.map((m, i) => media.serve(`/m/${i}.vtt`, { body: toWebVtt(m), contentType: 'text/vtt' }));
  const port = await freePort();
  const logFile = join(tmpdir(), `mi-bench-worker-${process.pid}.log`);
  const workerEnv = {
    DATABASE_URL: e.config.databaseUrl,
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: e.config.temporal.address,
    TEMPORAL_TASK_QUEUE: e.config.temporal.taskQueue,
    SECRETS_KEY: e.config.secretsKey!.toString('hex'),
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'warn',
    MEDIA_MAX_BYTES: String(e.config.media.maxBytes),
  };
  const worker = startWorkerProcess(workerEnv, port, logFile);
  let peakSampledKb = 0;
  const sampler = setInterval(() => {
    try {
      peakSampledKb = Math.max(peakSampledKb, rssKb(worker.pid!).rss);
    } catch {
      // exited
    }
  }, 250);
  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`, worker);
    log(`worker ready (pid ${worker.pid}, log ${logFile})`);

    // Phase A: COUNT uploads, CONCURRENCY in flight.
    const idsA: string[] = [];
    let next = 0;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, COUNT) }, async () => {
        while (next < COUNT) {
          const i = next++;
          idsA.push(await upload(e, urls[i], meetings[i]));
        }
      }),
    );
    const acceptMs = Date.now() - t0;
    const answers = [...answerMs];
    log(`phase A: ${COUNT} uploads accepted in ${acceptMs} ms; waiting for the pipeline`);
    const a = await waitDone(e.db, idsA, 60 * 60_000);
    log(`phase A: done in ${a.spanSeconds.toFixed(1)} s (${a.failed} failed)`);
    const metricsA = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const [{ hours: hoursA }] = await e
      .db('meetings')
      .whereIn('id', idsA)
      .where({ status: 'completed' })
      .select(e.db.raw('sum(duration_seconds) / 3600.0 as hours'));

    // Phase B: SERIAL uploads through Temporal, one at a time.
    const serialTemporal: number[] = [];
    const idsB: string[] = [];
    for (let k = 0; k < SERIAL; k++) {
      const i = COUNT + k;
      const started = Date.now();
      const id = await upload(e, urls[i], meetings[i]);
      idsB.push(id);
      for (;;) {
        const row = await e.db('meetings').where({ id }).first('status');
        if (row.status !== 'processing') break;
        await sleep(20);
      }
      serialTemporal.push((Date.now() - started) / 1000);
    }

    const serialAnswers = answerMs.slice(answers.length);
    const metricsB = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const [{ hours: hoursB }] = await e
      .db('meetings')
      .whereIn('id', idsB)
      .where({ status: 'completed' })
      .select(e.db.raw('sum(duration_seconds) / 3600.0 as hours'));
    const analyzeSummarize = (m: string) => stageSeconds(m, 'analyze') + stageSeconds(m, 'summarize');
    // Under load the activities share the CPU, so their wall time per hour is larger than alone.
    const workerUnderLoad = (analyzeSummarize(metricsA) * 1000) / Number(hoursA);
    const workerAlone = ((analyzeSummarize(metricsB) - analyzeSummarize(metricsA)) * 1000) / Number(hoursB);
    const rss = rssKb(worker.pid!);

    // Phase C: the same import as a plain loop of activity calls in this process (no Temporal).
    const stageRoot = mkdtempSync(join(tmpdir(), 'mi-bench-stage-'));
    const acts = createActivities({ db: e.db, config: e.config, stageRoot });
    // The plain path runs the activities itself: the upload's workflow start is a no-op.
    const noWorkflows = { startTranscription: async () => 'started' } as unknown as WorkflowPort;
    const plain: number[] = [];
    let plainAnalyzeSummarize = 0;
    let plainHours = 0;
    for (let k = 0; k < SERIAL; k++) {
      const i = COUNT + SERIAL + k;
      const started = Date.now();
      const { meetingId } = await uploadAudio({ db: e.db, config: e.config, workflows: noWorkflows }, e.principal, {
        url: urls[i],
        title: meetings[i].title,
        meeting_date: meetings[i].date,
      });
      const media = await acts.fetchMedia({ meetingId });
      const transcript = await acts.transcribe({ meetingId, media });
      const step = { meetingId, media, transcript };
      const s0 = process.hrtime.bigint();
      await acts.analyze(step);
      await acts.summarize(step);
      plainAnalyzeSummarize += Number(process.hrtime.bigint() - s0) / 1e6;
      await acts.persist(step);
      plain.push((Date.now() - started) / 1000);
      plainHours += transcript.durationSeconds / 3600;
    }
    rmSync(stageRoot, { recursive: true, force: true });

    const report = {
      meetings: COUNT,
      concurrency: CONCURRENCY,
      words_per_meeting: Math.round(words),
      minutes_per_meeting: Number(minutes.toFixed(1)),
      uploads_completed_per_minute: Number(((COUNT - a.failed) / (a.spanSeconds / 60)).toFixed(1)),
      upload_answer_p50_ms: Number(pct(answers, 50).toFixed(1)),
      upload_answer_p95_ms: Number(pct(answers, 95).toFixed(1)),
      upload_answer_alone_p50_ms: Number(pct(serialAnswers, 50).toFixed(1)),
      upload_to_completed_p50_s: Number(pct(a.latencies, 50).toFixed(2)),
      upload_to_completed_p95_s: Number(pct(a.latencies, 95).toFixed(2)),
      failed: a.failed,
      analyze_summarize_ms_per_meeting_hour_worker_under_load: Number(workerUnderLoad.toFixed(1)),
      analyze_summarize_ms_per_meeting_hour_worker_one_at_a_time: Number(workerAlone.toFixed(1)),
      analyze_summarize_ms_per_meeting_hour_plain: Number((plainAnalyzeSummarize / plainHours).toFixed(1)),
      worker_peak_rss_mb: Number((Math.max(rss.peak, peakSampledKb) / 1024).toFixed(1)),
      serial: SERIAL,
      serial_temporal_mean_s: Number(mean(serialTemporal).toFixed(3)),
      serial_plain_loop_mean_s: Number(mean(plain).toFixed(3)),
      orchestration_ratio: Number((mean(serialTemporal) / mean(plain)).toFixed(2)),
      plain_loop_per_minute: Number((60 / mean(plain)).toFixed(1)),
    };
    const rows: [string, string][] = [
      [
        'meetings (concurrent phase)',
        `${COUNT} × ~${report.minutes_per_meeting} min, ~${report.words_per_meeting} words, ${CONCURRENCY} uploads in flight`,
      ],
      ['uploads completed per minute', String(report.uploads_completed_per_minute)],
      ['upload → completed p50 / p95', `${report.upload_to_completed_p50_s} s / ${report.upload_to_completed_p95_s} s`],
      [
        'uploadAudio answer p50 / p95',
        `${report.upload_answer_p50_ms} ms / ${report.upload_answer_p95_ms} ms (${report.upload_answer_alone_p50_ms} ms p50 one at a time)`,
      ],
      [
        'analyze+summarize per meeting hour',
        `${report.analyze_summarize_ms_per_meeting_hour_worker_under_load} ms (worker, ${CONCURRENCY} in flight) · ` +
          `${report.analyze_summarize_ms_per_meeting_hour_worker_one_at_a_time} ms (worker, one at a time) · ${report.analyze_summarize_ms_per_meeting_hour_plain} ms (plain loop)`,
      ],
      ['worker peak RSS', `${report.worker_peak_rss_mb} MB`],
      [
        `one at a time (${SERIAL}): Temporal vs plain loop`,
        `${report.serial_temporal_mean_s} s vs ${report.serial_plain_loop_mean_s} s per meeting → ratio ${report.orchestration_ratio}`,
      ],
      ['plain loop throughput', `${report.plain_loop_per_minute} meetings/min (sequential)`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(
      `\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n${JSON.stringify(report)}\n`,
    );
  } finally {
    clearInterval(sampler);
    worker.kill('SIGTERM');
    await new Promise((r) => (worker.exitCode !== null ? r(undefined) : worker.once('exit', r)));
    await media.close();
    await e.close();
  }
}

// Run when started as a script; backfill.bench.ts imports the stack's set-up.
if (require.main === module)
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
