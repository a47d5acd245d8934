/**
 * Webhook benchmark: signed deliveries through Temporal (WebhookDeliveryWorkflow, one single-attempt
 * local activity per POST, the ledger in PostgreSQL) with ONE worker running as its own process, to a local
 * https receiver; beside a plain signed POST loop to the same receiver in the same run, so the cost of
 * the orchestration shows as a ratio.
 *
 *   npx tsx test/bench/webhooks.bench.ts                 # 2000 deliveries, the full run
 *   npx tsx test/bench/webhooks.bench.ts --count 300     # a quick run
 *
 * Options: --count N (throughput phase, default 2000) · --concurrency C (transcripts made ready at once
 *          in the throughput phase, and POSTs in flight in the plain loop; default 32) ·
 *          --latency-count K (latency phase: deliveries one at a time, default 100)
 *
 * "Transcript ready" is the moment the bench does what TranscriptionWorkflow's post-processing does for
 * a completed meeting: prepare its deliveries (the ledger rows) and start one WebhookDeliveryWorkflow
 * per target. Latency runs from there to the receiver having the whole signed request (it answers 200
 * at once). PostgreSQL and Temporal come from the environment (DATABASE_URL, TEMPORAL_ADDRESS) or are
 * started locally, as for the tests (test/support/stack.ts).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import { newId } from '../../services/core/input';
import type { Principal } from '../../services/core/access';
import { sendWebhook } from '../../services/core/webhooks/sender';
import { webhookHeaders } from '../../services/core/webhooks/signing';
import { saveWebhookUrl, setWebhookSecret } from '../../services/core/webhooks';
import { prepareDeliveries } from '../../workflows/activities/webhooks';
import { WEBHOOK_DELIVERY_WORKFLOW } from '../../workflows/contracts';
import { freePort } from '../../services/devstack/ports';
import { loadConfig } from '../../services/platform/config';
import { createDb, migrateLatest, type Db } from '../../services/platform/db';
import { createTemporalClient } from '../../services/platform/temporal';
import { provisionPostgres, provisionTemporal } from '../support/stack';
import { RECEIVER_CERT_PATH, startWebhookReceiver, type ReceivedRequest } from '../support/webhook-receiver';
import { option, rolesEnv } from './options';

const ROOT = resolve(__dirname, '..', '..');

const COUNT = option('count', 2000);
const CONCURRENCY = option('concurrency', 32);
const LATENCY_COUNT = option('latency-count', 100);
const SECRET = 'bench-secret-0123456789abcdef';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const ms = (n: number) => `${n.toFixed(1)} ms`;

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

/** CPU seconds (user + system) of a process, or of those whose command line matches `pattern` (pgrep -f). */
function cpuSecondsOf(pattern: string | number): number {
  const pids =
    typeof pattern === 'number'
      ? [pattern]
      : spawnSync('pgrep', ['-f', '--', pattern], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // exited meanwhile
    }
  }
  return ticks / 100; // USER_HZ
}

/** Mean of a Temporal SDK histogram (milliseconds), over the series whose labels contain `match`. */
function sdkMeanMs(text: string, name: string, match = ''): number {
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.includes(match)) continue;
    if (line.startsWith(`${name}_sum{`)) sum += Number(line.split(' ').pop());
    if (line.startsWith(`${name}_count{`)) count += Number(line.split(' ').pop());
  }
  return count ? Number((sum / count).toFixed(1)) : NaN;
}

function metricValue(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function runConcurrently(n: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function main(): Promise<void> {
  const loadStart = loadavg()[0];
  const [pg, temporalServer] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const dbName = `mi_bench_wh_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const env = rolesEnv(u.toString(), temporalServer.url, 'bench-wh', { DATABASE_POOL_MAX: '20' });
  const config = loadConfig(env, 'worker');
  const db: Db = createDb({ url: env.DATABASE_URL, poolMax: 20 });
  await migrateLatest(db);
  const { client, connection } = createTemporalClient(config);

  // The receiver: records when each delivery's signed request arrived, and checks every signature.
  const arrived = new Map<string, number>();
  let badSignatures = 0;
  let duplicates = 0;
  const rx = await startWebhookReceiver({
    record: false,
    onRequest: (r: ReceivedRequest) => {
      const id = String(r.headers['x-delivery-id']);
      if (arrived.has(id)) duplicates++;
      arrived.set(id, performance.now());
      const expected = Buffer.from(createHmac('sha256', SECRET).update(r.rawBody).digest('hex'));
      const given = Buffer.from(String(r.headers['x-hub-signature'] ?? ''));
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) badSignatures++;
    },
  });

  // One team, one owner whose saved webhook is the receiver.
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise' });
  const ownerId = newId();
  await db('users').insert({
    id: ownerId,
    team_id: teamId,
    email: 'owner@bench.example',
    name: 'Bench Owner',
    role: 'member',
  });
  const owner: Principal = {
    userId: ownerId,
    teamId,
    email: 'owner@bench.example',
    name: 'Bench Owner',
    role: 'member',
    tier: 'enterprise',
    flags: [],
  };
  await saveWebhookUrl({ db, config }, owner, rx.url('/hook'));
  await setWebhookSecret({ db, config }, owner, { secret: SECRET });

  // Completed meetings, as persist leaves them.
  const total = COUNT + LATENCY_COUNT;
  const meetingIds = Array.from({ length: total }, () => newId());
  for (let i = 0; i < total; i += 1000) {
    await db('meetings').insert(
      meetingIds.slice(i, i + 1000).map((id, k) => ({
        id,
        team_id: teamId,
        organizer_id: ownerId,
        organizer_email: owner.email,
        uploader_id: ownerId,
        title: `Bench meeting ${i + k}`,
        date: new Date(),
        status: 'completed',
        client_reference_id: `bench-${i + k}`,
      })),
    );
  }

  const port = await freePort();
  const sdkPort = await freePort();
  const logFile = join(tmpdir(), `mi-bench-webhook-worker-${process.pid}.log`);
  const out = createWriteStream(logFile);
  const worker = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_WORKER_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_WORKER_PROF] : []),
      '--import',
      'tsx',
      join(ROOT, 'services', 'worker', 'main.ts'),
    ],
    {
      cwd: ROOT,
      // The receiver's self-signed certificate, trusted by the worker process for the whole run.
      env: {
        ...process.env,
        ...env,
        NODE_EXTRA_CA_CERTS: RECEIVER_CERT_PATH,
        WORKER_METRICS_PORT: String(port),
        TEMPORAL_METRICS_BIND_ADDRESS: `127.0.0.1:${sdkPort}`,
        HOST: '127.0.0.1',
        MI_ROLE: 'worker',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  worker.stdout!.pipe(out);
  worker.stderr!.pipe(out);

  const ready = new Map<string, number>();
  /** What post-processing does when a transcript is ready: ledger rows, then one run per target. */
  async function transcriptReady(meetingId: string): Promise<void> {
    const t0 = performance.now();
    const prepared = await prepareDeliveries(db, config, meetingId);
    for (const p of prepared) {
      ready.set(p.input.deliveryId, t0);
      await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue: config.temporal.taskQueue,
        workflowId: p.workflowId,
        args: [p.input],
      });
    }
  }
  async function allArrived(ids: () => string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (ids().some((id) => !arrived.has(id))) {
      if (Date.now() > deadline)
        throw new Error(`${ids().filter((id) => !arrived.has(id)).length} deliveries never arrived`);
      await sleep(20);
    }
  }
  const latencies = (ids: string[]) => ids.map((id) => arrived.get(id)! - ready.get(id)!);

  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`, worker);
    log(`worker ready (pid ${worker.pid}, log ${logFile}); warming up`);
    // Warm-up: a few deliveries so the worker's workflow cache and connections are hot.
    const warm = Array.from({ length: 20 }, () => newId());
    await db('meetings').insert(
      warm.map((id) => ({
        id,
        team_id: teamId,
        organizer_id: ownerId,
        organizer_email: owner.email,
        title: 'warm-up',
        date: new Date(),
        status: 'completed',
      })),
    );
    await Promise.all(warm.map(transcriptReady));
    await allArrived(() => [...ready.keys()], 120_000);

    // Phase A: COUNT transcripts ready, CONCURRENCY at a time: sustained deliveries per second.
    log(`throughput: ${COUNT} deliveries, ${CONCURRENCY} transcripts made ready at once`);
    const before = new Set(ready.keys());
    const cpuNow = () => ({
      worker: cpuSecondsOf(worker.pid!),
      temporal: cpuSecondsOf('temporal server'),
      postgres: cpuSecondsOf('postgres'),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    });
    const cpuA = cpuNow();
    const startA = performance.now();
    await runConcurrently(COUNT, CONCURRENCY, (i) => transcriptReady(meetingIds[i]));
    const startedA = performance.now();
    const idsA = [...ready.keys()].filter((id) => !before.has(id));
    await allArrived(() => idsA, 30 * 60_000);
    const lastA = Math.max(...idsA.map((id) => arrived.get(id)!));
    const spanA = (lastA - startA) / 1000;
    const cpuEndA = cpuNow();
    /** CPU milliseconds per delivery of each part of the system, over the throughput phase. */
    const cpuPerDelivery = Object.fromEntries(
      (Object.keys(cpuA) as (keyof typeof cpuA)[]).map((k) => [
        k,
        Number((((cpuEndA[k] - cpuA[k]) * 1000) / COUNT).toFixed(2)),
      ]),
    );
    const latA = latencies(idsA);
    // Every delivery also has its ledger row marked delivered.
    for (;;) {
      const [{ n }] = await db('webhook_deliveries')
        .whereIn('meeting_id', meetingIds.slice(0, COUNT))
        .whereNot({ status: 'delivered' })
        .count({ n: '*' });
      if (Number(n) === 0) break;
      await sleep(50);
    }
    const ledgerA = (performance.now() - startA) / 1000;

    // Phase B: LATENCY_COUNT transcripts ready one after the other: latency without a queue.
    log(`latency: ${LATENCY_COUNT} deliveries one at a time`);
    const idsB: string[] = [];
    for (let k = 0; k < LATENCY_COUNT; k++) {
      const beforeOne = new Set(ready.keys());
      await transcriptReady(meetingIds[COUNT + k]);
      const mine = [...ready.keys()].filter((id) => !beforeOne.has(id));
      await allArrived(() => mine, 120_000);
      idsB.push(...mine);
    }
    const latB = latencies(idsB);

    // Phase C: the plain loop, same receiver, same signing and SSRF-guarded client, no Temporal, no ledger.
    log(`plain loop: ${COUNT} signed POSTs, ${CONCURRENCY} in flight, then ${LATENCY_COUNT} one at a time`);
    const body = (i: number) =>
      JSON.stringify({
        meetingId: `plain-${i}`,
        eventType: 'Transcription completed',
        clientReferenceId: `bench-${i}`,
      });
    const plainLat: number[] = [];
    const post = async (id: string, i: number) => {
      const t0 = performance.now();
      const headers = webhookHeaders({
        deliveryId: id,
        attemptNo: 1,
        timestamp: Math.floor(Date.now() / 1000),
        body: body(i),
        secrets: { current: SECRET },
      });
      const sent = await sendWebhook(rx.url('/hook'), body(i), headers, {
        timeoutMs: config.webhook.timeoutMs,
        allowPrivateNetwork: true,
      });
      if (sent.result !== '2xx') throw new Error(`plain POST failed: ${sent.error}`);
      plainLat.push(performance.now() - t0);
    };
    const startC = performance.now();
    await runConcurrently(COUNT, CONCURRENCY, (i) => post(`plain-c-${i}`, i));
    const spanC = (performance.now() - startC) / 1000;
    const plainConcurrentLat = [...plainLat];
    plainLat.length = 0;
    for (let k = 0; k < LATENCY_COUNT; k++) await post(`plain-s-${k}`, k);
    const plainSerialLat = [...plainLat];

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const sdk = await (await fetch(`http://127.0.0.1:${sdkPort}/metrics`)).text();
    const report = {
      deliveries: COUNT,
      concurrency: CONCURRENCY,
      temporal_deliveries_per_s: Number((COUNT / spanA).toFixed(1)),
      temporal_ledger_complete_per_s: Number((COUNT / ledgerA).toFixed(1)),
      temporal_start_rate_per_s: Number((COUNT / ((startedA - startA) / 1000)).toFixed(1)),
      temporal_ready_to_2xx_under_load_p50_ms: Number(pct(latA, 50).toFixed(1)),
      temporal_ready_to_2xx_under_load_p99_ms: Number(pct(latA, 99).toFixed(1)),
      temporal_ready_to_2xx_p50_ms: Number(pct(latB, 50).toFixed(1)),
      temporal_ready_to_2xx_p99_ms: Number(pct(latB, 99).toFixed(1)),
      plain_posts_per_s: Number((COUNT / spanC).toFixed(1)),
      plain_concurrent_p50_ms: Number(pct(plainConcurrentLat, 50).toFixed(1)),
      plain_one_at_a_time_p50_ms: Number(pct(plainSerialLat, 50).toFixed(1)),
      plain_one_at_a_time_p99_ms: Number(pct(plainSerialLat, 99).toFixed(1)),
      throughput_ratio_plain_over_temporal: Number((COUNT / spanC / (COUNT / spanA)).toFixed(2)),
      latency_ratio_temporal_over_plain_p50: Number((pct(latB, 50) / pct(plainSerialLat, 50)).toFixed(1)),
      cores: cpus().length,
      load_average_start: Number(loadStart.toFixed(2)),
      load_average_end: Number(loadavg()[0].toFixed(2)),
      bad_signatures: badSignatures,
      duplicate_deliveries: duplicates,
      worker_attempts_2xx: metricValue(metrics, 'webhook_attempts_total', '{result="2xx"}'),
      worker_attempts_failed: ['4xx', '5xx', 'error', 'timeout', '3xx'].reduce(
        (n, r) => n + metricValue(metrics, 'webhook_attempts_total', `{result="${r}"}`),
        0,
      ),
      cpu_ms_per_delivery: cpuPerDelivery,
      // Where a delivery's time goes (means over the whole run, from the worker's Temporal SDK metrics).
      sdk_workflow_task_queued_ms: sdkMeanMs(sdk, 'temporal_workflow_task_schedule_to_start_latency'),
      sdk_workflow_task_execution_ms: sdkMeanMs(
        sdk,
        'temporal_workflow_task_execution_latency',
        'WebhookDeliveryWorkflow',
      ),
      sdk_attempt_activity_ms: sdkMeanMs(sdk, 'temporal_local_activity_execution_latency', 'attemptWebhookDelivery'),
      sdk_respond_workflow_task_rpc_ms: sdkMeanMs(sdk, 'temporal_request_latency', 'RespondWorkflowTaskCompleted'),
    };
    const rows: [string, string][] = [
      ['deliveries through Temporal (1 worker)', `${COUNT}, ${CONCURRENCY} transcripts made ready at once`],
      [
        'sustained deliveries per second',
        `${report.temporal_deliveries_per_s}/s to the receiver's 2xx (${report.temporal_ledger_complete_per_s}/s with every ledger row final)`,
      ],
      [
        'ready → 2xx under that load p50 / p99',
        `${ms(report.temporal_ready_to_2xx_under_load_p50_ms)} / ${ms(report.temporal_ready_to_2xx_under_load_p99_ms)}`,
      ],
      [
        'ready → 2xx one at a time p50 / p99',
        `${ms(report.temporal_ready_to_2xx_p50_ms)} / ${ms(report.temporal_ready_to_2xx_p99_ms)} (${LATENCY_COUNT} deliveries)`,
      ],
      [
        'plain signed POST loop',
        `${report.plain_posts_per_s}/s with ${CONCURRENCY} in flight; ${ms(report.plain_one_at_a_time_p50_ms)} p50, ${ms(report.plain_one_at_a_time_p99_ms)} p99 one at a time`,
      ],
      [
        'orchestration cost',
        `throughput ${report.throughput_ratio_plain_over_temporal}× lower; latency ${report.latency_ratio_temporal_over_plain_p50}× (p50, one at a time)`,
      ],
      [
        'machine',
        `${cpus().length} cores, load average ${loadStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at the end`,
      ],
      [
        'where the time goes (means)',
        `workflow task queued ${ms(report.sdk_workflow_task_queued_ms)}, run ${ms(report.sdk_workflow_task_execution_ms)}; ` +
          `attempt (local activity, inside the workflow task) run ${ms(report.sdk_attempt_activity_ms)}; ` +
          `server answers RespondWorkflowTaskCompleted in ${ms(report.sdk_respond_workflow_task_rpc_ms)}`,
      ],
      [
        'CPU per delivery',
        `${Object.entries(cpuPerDelivery)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(' · ')} (2 cores = 20 ms of CPU per delivery at 100/s)`,
      ],
      [
        'checks',
        `${badSignatures} bad signatures, ${duplicates} duplicate deliveries, ${report.worker_attempts_failed} failed attempts`,
      ],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(
      `\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n${JSON.stringify(report)}\n`,
    );
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => (worker.exitCode !== null ? r(undefined) : worker.once('exit', r)));
    await rx.close();
    await connection.close();
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
