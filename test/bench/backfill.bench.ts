/**
 * Backfill benchmark (issue 40, "Every meeting searchable"): uploads while EmbeddingBackfillWorkflow
 * embeds a backlog of meetings, against uploads without it, through one worker process on a real
 * Temporal dev server, as ingest.bench.ts runs them (its set-up is reused).
 *
 *   npx tsx test/bench/backfill.bench.ts                  # 6 blocks of 4 uploads, a backlog of 400 demo meetings
 *   npx tsx test/bench/backfill.bench.ts --blocks 2 --uploads 2 --backlog 60   # a quick run
 *   npx tsx test/bench/backfill.bench.ts --drain          # each block waits for the last one's uploads to be embedded
 *
 * Method: one-hour WebVTT uploads one at a time (upload → completed), in blocks alternating without a
 * backfill and with one running (the workflow is started for a block and terminated after it; it
 * resumes from the meetings it has not embedded), so the machine's drift hits both alike. The
 * backlog: real demo meetings marked completed and not embedded. Blocks follow one another back to
 * back: the uploads' own embeddings (post-processing) may still be queued when the next block starts,
 * as when uploads keep coming (`--drain` waits for them first, as the first runs did). Backfill throughput: sentences of
 * the meetings it embedded during the blocks with uploads, per second of those blocks, and the same
 * for a stretch of the backfill alone; CPU of the worker from /proc.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ulid } from 'ulid';
import { freePort } from '../../services/devstack/ports';
import { embeddingBackfillWorkflowId } from '../../workflows/contracts';
import { ensureEmbeddingBackfill } from '../../workflows/client';
import { readEmbeddingModelInfo } from '../../services/intelligence/embeddings';
import { syntheticMeetings, toWebVtt } from '../support/synthetic';
import { demoManifest, demoSentences } from '../support/questions';
import { startMediaServer } from '../integration/core/ingest/media-server';
import { setUp, startWorkerProcess, upload, waitReady, type Env } from './ingest.bench';
import { insertDemoMeeting, MODEL_DIR } from './question-parts';
import { option } from './options';

const RATIO_BOUND = 1.3;

const BLOCKS = option('blocks', 6);
const UPLOADS = option('uploads', 4);
const BACKLOG = option('backlog', 400);
const ALONE_SECONDS = option('alone-seconds', 30);
const DRAIN = process.argv.includes('--drain');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => `load ${loadavg()[0].toFixed(2)}`;
const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 1/100 s
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** BACKLOG completed demo meetings that no model has embedded: what a backfill finds after an upgrade. */
async function seedBacklog(e: Env): Promise<number> {
  const files = [...demoManifest().keys()];
  let sentences = 0;
  for (let i = 0; i < BACKLOG; i++) {
    const id = ulid();
    const ss = demoSentences(files[i % files.length]);
    sentences += ss.length;
    await insertDemoMeeting(
      e.db,
      {
        id,
        team_id: e.principal.teamId,
        organizer_id: e.principal.userId,
        organizer_email: e.principal.email,
        uploader_id: e.principal.userId,
        title: `Backlog ${i}`,
        date: new Date(Date.parse('2024-01-01') + i * 3_600_000),
      },
      ss,
    );
  }
  return sentences;
}

/** Sentences of the backlog meetings the model has embedded so far. */
async function backlogEmbedded(e: Env, model: string): Promise<number> {
  const row = await e
    .db('meeting_embeddings as me')
    .join('meetings as m', 'm.id', 'me.meeting_id')
    .where('me.model', model)
    .where('m.title', 'like', 'Backlog %')
    .first(e.db.raw('coalesce(sum(me.sentences), 0)::int as n'));
  return Number(row?.n ?? 0);
}

/** Wait until every uploaded meeting is embedded (its own embedding, by post-processing); the seconds waited. */
async function uploadsEmbedded(e: Env, model: string): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const row = await e
      .db('meetings as m')
      .where('m.status', 'completed')
      .whereNot('m.title', 'like', 'Backlog %')
      .whereNotExists(e.db('meeting_embeddings as me').whereRaw('me.meeting_id = m.id').where('me.model', model))
      .first(e.db.raw('count(*)::int as n'));
    if (Number(row?.n ?? 0) === 0) return (Date.now() - t0) / 1000;
    await sleep(250);
  }
}

async function main(): Promise<void> {
  const users = [{ name: 'Ada Bench', email: 'ada@bench.example' }];
  const uploads = syntheticMeetings({ count: BLOCKS * UPLOADS + 1, sentencesPerMeeting: 770, seed: 2026, users });
  const model = readEmbeddingModelInfo(MODEL_DIR).name;
  console.log(
    `Backfill benchmark: ${BLOCKS} blocks of ${UPLOADS} one-hour uploads, a backlog of ${BACKLOG} demo meetings; ${load()}`,
  );
  const e = await setUp(users);
  const media = await startMediaServer();
  const urls = uploads.map((m, i) => media.serve(`/m/${i}.vtt`, { body: toWebVtt(m), contentType: 'text/vtt' }));
  const port = await freePort();
  const logFile = join(tmpdir(), `mi-bench-backfill-worker-${process.pid}.log`);
  const worker = startWorkerProcess(
    {
      DATABASE_URL: e.config.databaseUrl,
      DATABASE_POOL_MAX: '20',
      TEMPORAL_ADDRESS: e.config.temporal.address,
      TEMPORAL_TASK_QUEUE: e.config.temporal.taskQueue,
      SECRETS_KEY: e.config.secretsKey!.toString('hex'),
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_LEVEL: 'warn',
      MEDIA_MAX_BYTES: String(e.config.media.maxBytes),
    },
    port,
    logFile,
  );
  const backfillId = embeddingBackfillWorkflowId(e.config.temporal.taskQueue, model);
  // Terminated, the workflow's running step learns of it at its next heartbeat: wait until the
  // backlog's count has stood still for 3 s, so a block without the backfill has none of its work.
  const stopBackfill = async () => {
    await e.temporal.workflow
      .getHandle(backfillId)
      .terminate('bench: a block without the backfill')
      .catch(() => undefined);
    let last = await backlogEmbedded(e, model);
    for (let still = 0; still < 3;) {
      await sleep(1000);
      const now = await backlogEmbedded(e, model);
      still = now === last ? still + 1 : 0;
      last = now;
    }
  };
  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`, worker);
    // The worker's own backfill at start found nothing to do; the backlog comes after it.
    await sleep(3000);
    await stopBackfill();
    const backlogSentences = await seedBacklog(e);
    console.log(`  backlog: ${BACKLOG} meetings, ${backlogSentences} sentences; worker log ${logFile}`);

    const uploadOne = async (i: number) => {
      const started = Date.now();
      const id = await upload(e, urls[i], uploads[i]);
      for (;;) {
        const row = await e.db('meetings').where({ id }).first('status');
        if (row.status === 'completed') break;
        if (row.status !== 'processing') throw new Error(`upload ${i} ended ${row.status}`);
        await sleep(20);
      }
      return (Date.now() - started) / 1000;
    };
    await uploadOne(BLOCKS * UPLOADS); // warm-up: the worker's first upload loads what it loads once

    const without: number[] = [];
    const during: number[] = [];
    let withSeconds = 0;
    let withSentences = 0;
    let withCpu = 0;
    let withoutCpu = 0;
    let withoutSeconds = 0;
    let next = 0;
    for (let b = 0; b < BLOCKS; b++) {
      const withBackfill = b % 2 === 1;
      const drained = DRAIN ? await uploadsEmbedded(e, model) : 0;
      if (withBackfill) await ensureEmbeddingBackfill(e.temporal, e.config.temporal.taskQueue, model);
      const t0 = Date.now();
      const c0 = cpuSeconds(worker.pid!);
      const s0 = await backlogEmbedded(e, model);
      for (let k = 0; k < UPLOADS; k++) (withBackfill ? during : without).push(await uploadOne(next++));
      const seconds = (Date.now() - t0) / 1000;
      const cpu = cpuSeconds(worker.pid!) - c0;
      if (withBackfill) {
        withSentences += (await backlogEmbedded(e, model)) - s0;
        withSeconds += seconds;
        withCpu += cpu;
        await stopBackfill();
      } else {
        withoutSeconds += seconds;
        withoutCpu += cpu;
      }
      console.log(
        `  block ${b + 1} (${withBackfill ? 'with' : 'without'} the backfill): ${UPLOADS} uploads in ${seconds.toFixed(1)} s${DRAIN ? `, after ${drained.toFixed(1)} s for the last block's uploads to be embedded` : ''}; ${load()}`,
      );
    }

    // The uploads' own embeddings, queued behind the embedder: how far behind they are after the last block.
    const lag = await uploadsEmbedded(e, model);
    // The backfill alone, no uploads.
    await ensureEmbeddingBackfill(e.temporal, e.config.temporal.taskQueue, model);
    const a0 = await backlogEmbedded(e, model);
    const ac0 = cpuSeconds(worker.pid!);
    await sleep(ALONE_SECONDS * 1000);
    const aloneSentences = (await backlogEmbedded(e, model)) - a0;
    const aloneCpu = cpuSeconds(worker.pid!) - ac0;
    await stopBackfill();
    if (withSentences + aloneSentences >= backlogSentences)
      console.log('  (the backlog ran out: a larger --backlog measures the backfill for longer)');

    const ratio50 = pct(during, 50) / pct(without, 50);
    const ratioMean = mean(during) / mean(without);
    console.log('\nResults');
    console.log(
      `  upload → completed without the backfill: p50 ${pct(without, 50).toFixed(2)} s, mean ${mean(without).toFixed(2)} s, max ${Math.max(...without).toFixed(2)} s (${without.length} uploads; worker ${(withoutCpu / withoutSeconds).toFixed(2)} cores)`,
    );
    console.log(
      `  upload → completed during the backfill:  p50 ${pct(during, 50).toFixed(2)} s, mean ${mean(during).toFixed(2)} s, max ${Math.max(...during).toFixed(2)} s (${during.length} uploads; worker ${(withCpu / withSeconds).toFixed(2)} cores)`,
    );
    console.log(
      `  during ÷ without ≤ ${RATIO_BOUND}×: p50 ${ratio50.toFixed(2)}×, mean ${ratioMean.toFixed(2)}×   ${ratio50 <= RATIO_BOUND ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  backfill while uploads continue: ${(withSentences / withSeconds).toFixed(0)} sentences/s (${withSentences} in ${withSeconds.toFixed(1)} s)`,
    );
    console.log(
      `  backfill alone: ${(aloneSentences / ALONE_SECONDS).toFixed(0)} sentences/s (${aloneSentences} in ${ALONE_SECONDS} s; worker ${(aloneCpu / ALONE_SECONDS).toFixed(2)} cores)`,
    );
    console.log(
      `  uploads' own embeddings done ${lag.toFixed(1)} s after the last block${DRAIN ? '' : ' (blocks back to back)'}`,
    );
    console.log(`  machine: ${load()} at the end`);
  } finally {
    await stopBackfill();
    worker.kill('SIGTERM');
    await new Promise((r) => (worker.exitCode !== null ? r(undefined) : worker.once('exit', r)));
    await media.close();
    await e.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
