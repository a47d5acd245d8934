/**
 * Speech benchmark: the embedded engine (sherpa-onnx, Moonshine tiny-en, Silero VAD) on real speech
 * (the LibriVox utterances of Debian's pocketsphinx-testdata looped with short pauses), through the
 * whole pipeline and alone. Absolute times differ between machines of one kind, so the targets are
 * ratios to baselines measured in the same run; the absolute figures are printed beside them.
 *
 *   npx tsx test/bench/speech.bench.ts            (make bench runs it)
 *
 * Reports:
 *   1. the word error rates of the fixed sets (LibriVox, the pyannote telephone call);
 *   2. on one core (taskset -c 0, one recognizer): CPU seconds per audio second of ten minutes through
 *      uploadAudio → Temporal → the worker process (download, extract, VAD, decode, persist: the
 *      worker's CPU with its ffmpeg children, and PostgreSQL's) against the engine alone decoding the
 *      same audio in its own process; bound: ratio at most 1.15;
 *   3. an hour through uploadAudio on every core, laid out as the chart runs it (a general worker
 *      process and a speech worker process on the speech task queue, one recognizer per core), upload
 *      to completed, against the engine alone decoding the same hour with the same recognizers; bound:
 *      ratio at most 1.3;
 *   4. the speech worker's peak RSS with the model loaded; bound: 600 MB (the general worker's, which
 *      loads the prebuilt workflow bundle as the image's does, is printed beside it);
 *   5. the same hour transcribed and diarized (DIARIZATION=auto, as deployed: every one-channel upload
 *      is diarized) against 3., transcribed alone, on the same cores in the same run; bound: ratio at
 *      most 1.6; and that speech worker's peak RSS with every model loaded (speech, VAD, both
 *      diarization models); bound: 800 MB.
 * PostgreSQL and Temporal come from the environment or are started locally (test/support/stack.ts).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import { freePort } from '../../services/devstack/ports';
import { createGraphqlApp } from '../../services/graphql/app';
import { embeddedEngine } from '../../services/intelligence/asr';
import { loadConfig } from '../../services/platform/config';
import { createDb, migrateLatest, type Db } from '../../services/platform/db';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import { createTemporalClient } from '../../services/platform/temporal';
import { bundleWorkflows } from '../../services/worker/worker';
import { startMediaServer } from '../integration/core/ingest/media-server';
import { librivox, PYANNOTE_DIR, pyannoteReference, requireSpeechData, wavSamples } from '../support/speech';
import { provisionPostgres, provisionTemporal } from '../support/stack';
import { wordErrorRate } from '../support/wer';
import { postgresCpuByPid, postgresCpuSince } from './proc';
import { speechAudio } from './speech-audio';
import { imageContract } from '../support/k8s/image';
import { rolesEnv } from './options';

const ROOT = resolve(__dirname, '..', '..');
const BOUNDS = { oneCoreRatio: 1.15, hourRatio: 1.3, rssMb: 600, diarizedHourRatio: 1.6, diarizedRssMb: 800 };
const SHORT = 600;
const HOUR = 3600;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
const pinned = (cmd: string, args: string[]): [string, string[]] =>
  hasTaskset ? ['taskset', ['-c', '0', cmd, ...args]] : [cmd, args];

/** CPU milliseconds of a process and of the children it waited for (the worker's ffmpeg runs). */
function cpuWithChildrenMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / 100;
}
const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

function runJson(cmd: string, args: string[]): Promise<Record<string, number>> {
  return new Promise((done, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${cmd} exited ${code}`)),
    );
  });
}

const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
const alone = (wav: string, recognizers: number, onOneCore: boolean) => {
  const args = [join(__dirname, 'speech-alone.ts'), wav, String(recognizers), '600'];
  return onOneCore ? runJson(...pinned(tsx, args)) : runJson(tsx, args);
};

interface Stack {
  db: Db;
  graphqlUrl: string;
  key: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

async function setUp(): Promise<Stack> {
  const [pg, temporalServer] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const dbName = `mi_speech_bench_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const env = rolesEnv(u.toString(), temporalServer.url, 'speech-bench', {
    // The words alone, against the engine alone; phase 5 turns diarization on.
    DIARIZATION: 'off',
  });
  const config = loadConfig(env, 'graphql');
  const db = createDb({ url: env.DATABASE_URL, poolMax: 4 });
  await migrateLatest(db);
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise' });
  await db('users').insert({
    id: newId(),
    team_id: teamId,
    email: 'owner@bench.example',
    name: 'Bench Owner',
    role: 'admin',
  });
  const { key } = await createApiKey(db, { email: 'owner@bench.example' });
  const { client, connection } = createTemporalClient(config);
  const { app, stop } = await createGraphqlApp({ db, config, temporal: client }, []);
  const server: Server = await listen(app, 0, '127.0.0.1');
  return {
    db,
    graphqlUrl: `${serverUrl(server)}/graphql`,
    key,
    env,
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

async function startWorker(
  s: Stack,
  env: Record<string, string>,
  onOneCore: boolean,
  logFile: string,
): Promise<ChildProcess> {
  const port = await freePort();
  const [cmd, args] = onOneCore
    ? pinned(process.execPath, ['--import', 'tsx', join(ROOT, 'services', 'worker', 'main.ts')])
    : [process.execPath, ['--import', 'tsx', join(ROOT, 'services', 'worker', 'main.ts')]];
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      ...s.env,
      // The allocator setting the image gives every pod (its Dockerfile's ENV), as a pod would run.
      MALLOC_ARENA_MAX: imageContract().env.MALLOC_ARENA_MAX,
      ...env,
      WORKER_METRICS_PORT: String(port),
      HOST: '127.0.0.1',
      MI_ROLE: 'worker',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(logFile);
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the worker exited with code ${child.exitCode} (see ${logFile})`);
    if (Date.now() > deadline) throw new Error('the worker was not ready in time');
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
}

/** The pid doing the work: taskset execs node, so the child's pid is node's either way. */
async function uploadAndWait(s: Stack, url: string, title: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(s.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
    body: JSON.stringify({
      query: 'mutation($i: AudioUploadInput) { uploadAudio(input: $i) { meetingId } }',
      variables: { i: { url, title } },
    }),
  });
  const body = (await res.json()) as { data?: { uploadAudio: { meetingId: string } }; errors?: { message: string }[] };
  if (!body.data) throw new Error(`upload refused: ${body.errors?.[0]?.message}`);
  const id = body.data.uploadAudio.meetingId;
  for (;;) {
    const m = await s.db('meetings').where({ id }).first('status', 'failure_reason');
    if (m.status === 'completed') return performance.now() - t0;
    if (m.status === 'failed') throw new Error(`the meeting failed: ${m.failure_reason}`);
    await sleep(100);
  }
}

async function main() {
  requireSpeechData();
  const cores = availableParallelism();
  const work = mkdtempSync(join(tmpdir(), 'mi-speech-bench-'));
  const short = speechAudio(SHORT);
  const hour = speechAudio(HOUR);

  // 1. Word error rates of the fixed sets.
  const engine = await embeddedEngine({ modelsDir: join(ROOT, '.models'), model: 'moonshine-tiny-en', recognizers: 1 });
  const libri = [];
  for (const u of librivox())
    libri.push({
      reference: u.reference,
      hypothesis: (await engine.transcribe(wavSamples(u.path))).map((x) => x.text).join(' '),
    });
  const call = await engine.transcribe(wavSamples(join(PYANNOTE_DIR, 'sample.wav')));
  const werLibri = wordErrorRate(libri);
  const werCall = wordErrorRate([{ reference: pyannoteReference(), hypothesis: call.map((x) => x.text).join(' ') }]);

  const s = await setUp();
  const media = await startMediaServer();
  // The image's workers load a prebuilt bundle (MI_WORKFLOW_BUNDLE) rather than run webpack at start.
  const bundle = join(work, 'workflow-bundle.js');
  writeFileSync(bundle, (await bundleWorkflows()).code);
  s.env.MI_WORKFLOW_BUNDLE = bundle;
  try {
    // 2. One core: the pipeline's CPU against the engine alone, the same ten minutes.
    log('one core: the engine alone');
    const aloneShort = await alone(short.wav, 1, true);
    log('one core: the pipeline');
    const w1 = await startWorker(s, { SPEECH_RECOGNIZERS: '1' }, true, join(work, 'worker-1.log'));
    const shortUrl = media.serve('/short.mp3', { body: readFileSync(short.mp3), contentType: 'audio/mpeg' });
    const pg0 = postgresCpuByPid();
    const cpu0 = cpuWithChildrenMs(w1.pid!);
    const shortWall = await uploadAndWait(s, shortUrl, 'Ten minutes');
    const pipelineCpu = cpuWithChildrenMs(w1.pid!) - cpu0 + postgresCpuSince(pg0);
    w1.kill('SIGTERM');
    await new Promise((r) => w1.once('exit', r));

    // 3. The hour on every core, and 4. the worker's peak RSS.
    log(`every core (${cores}): the engine alone`);
    const aloneHour = await alone(hour.wav, cores, false);
    log(`every core (${cores}): the pipeline`);
    const speechQueue = { TEMPORAL_SPEECH_TASK_QUEUE: `${s.env.TEMPORAL_TASK_QUEUE}-speech` };
    const w2 = await startWorker(s, speechQueue, false, join(work, 'worker-general.log'));
    const w3 = await startWorker(s, { ...speechQueue, WORKER_KIND: 'speech' }, false, join(work, 'worker-speech.log'));
    const hourUrl = media.serve('/hour.mp3', { body: readFileSync(hour.mp3), contentType: 'audio/mpeg' });
    const hourWall = await uploadAndWait(s, hourUrl, 'An hour');
    const rss = peakRssMb(w3.pid!);
    const generalRss = peakRssMb(w2.pid!);
    for (const w of [w2, w3]) {
      w.kill('SIGTERM');
      await new Promise((r) => w.once('exit', r));
    }

    // 5. The same hour transcribed and diarized, by fresh workers.
    log(`every core (${cores}): the pipeline with diarization`);
    const diarized = { ...speechQueue, DIARIZATION: 'auto' };
    const w4 = await startWorker(s, diarized, false, join(work, 'worker-general-diarized.log'));
    const w5 = await startWorker(
      s,
      { ...diarized, WORKER_KIND: 'speech' },
      false,
      join(work, 'worker-speech-diarized.log'),
    );
    const diarizedWall = await uploadAndWait(s, hourUrl, 'An hour, diarized');
    const diarizedRss = peakRssMb(w5.pid!);
    for (const w of [w4, w5]) {
      w.kill('SIGTERM');
      await new Promise((r) => w.once('exit', r));
    }

    const perSec = (ms: number, sec: number) => (ms / 1000 / sec).toFixed(3);
    const oneCoreRatio = pipelineCpu / aloneShort.cpuMs;
    const hourRatio = hourWall / aloneHour.wallMs;
    const diarizedRatio = diarizedWall / hourWall;
    console.log(
      `speech benchmark: LibriVox utterances looped (${SHORT} s and ${HOUR} s), ${cores} cores, taskset ${hasTaskset ? 'yes' : 'no'}`,
    );
    console.log(
      `  WER LibriVox ${(werLibri.wer * 100).toFixed(1)} % (${werLibri.errors}/${werLibri.words}), pyannote call ${(werCall.wer * 100).toFixed(1)} % (${werCall.errors}/${werCall.words})`,
    );
    console.log(
      `  one core, ${SHORT} s: pipeline ${perSec(pipelineCpu, SHORT)} CPU-s/s (${(pipelineCpu / 1000).toFixed(1)} CPU-s, ${(shortWall / 1000).toFixed(1)} s wall), engine alone ${perSec(aloneShort.cpuMs, SHORT)} CPU-s/s (${aloneShort.words} words)`,
    );
    console.log(`  ratio ${oneCoreRatio.toFixed(2)}   bound ${BOUNDS.oneCoreRatio}`);
    console.log(
      `  one hour, ${cores} recognizers: pipeline ${(hourWall / 1000).toFixed(1)} s upload to completed, engine alone ${(aloneHour.wallMs / 1000).toFixed(1)} s (${aloneHour.words} words, ${(aloneHour.cpuMs / 1000).toFixed(1)} CPU-s)`,
    );
    console.log(`  ratio ${hourRatio.toFixed(2)}   bound ${BOUNDS.hourRatio}`);
    console.log(
      `  speech worker peak RSS ${rss.toFixed(0)} MB (engine alone, ${cores} recognizers: ${(aloneHour.peakKb / 1024).toFixed(0)} MB; general worker ${generalRss.toFixed(0)} MB)   bound ${BOUNDS.rssMb} MB`,
    );
    console.log(
      `  one hour, ${cores} recognizers, transcribed and diarized: ${(diarizedWall / 1000).toFixed(1)} s upload to completed, transcribed alone ${(hourWall / 1000).toFixed(1)} s`,
    );
    console.log(`  ratio ${diarizedRatio.toFixed(2)}   bound ${BOUNDS.diarizedHourRatio}`);
    console.log(
      `  speech worker peak RSS, every model loaded (diarizing) ${diarizedRss.toFixed(0)} MB   bound ${BOUNDS.diarizedRssMb} MB`,
    );
    const failed = [
      oneCoreRatio > BOUNDS.oneCoreRatio && 'one-core ratio',
      hourRatio > BOUNDS.hourRatio && 'hour ratio',
      rss > BOUNDS.rssMb && 'rss',
      diarizedRatio > BOUNDS.diarizedHourRatio && 'diarized hour ratio',
      diarizedRss > BOUNDS.diarizedRssMb && 'diarizing rss',
    ].filter(Boolean);
    if (failed.length)
      console.log(
        `  over bound: ${failed.join(', ')} (a shared, noisy machine inflates times; run again on a quiet one)`,
      );
  } finally {
    await media.close();
    await s.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
