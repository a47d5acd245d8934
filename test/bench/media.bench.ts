/**
 * Media benchmark: a one-hour mp4 with a video track (made by test/support/media.ts: espeak-ng speech
 * looped, a tiny video), served from loopback.
 *
 *   npx tsx test/bench/media.bench.ts
 *
 * Reports, side by side:
 *   1. media preparation as the worker does it (media-prepare.ts in its own process, pinned to one core
 *      with taskset when there is one: streamed download, ffprobe, one ffmpeg pass extracting 16 kHz mono
 *      WAV with its silences, chunk plan) beside ffmpeg alone doing the same conversion in one command
 *      from the same URL; bounds: at most 20 s, ratio at most 1.3;
 *   2. the worker process's peak RSS while preparing a 500 MB file (a WAV of about 45 minutes);
 *      bound: 300 MB;
 *   3. the hour's chunks (ASR_CHUNK_MAX_SECONDS 600) cut from the WAV and sent to a speech-server
 *      stand-in that answers each after 1 s, ASR_CHUNK_CONCURRENCY 4 (the default) at once; bound: 4 s.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { planChunks } from '../../services/intelligence/asr/chunks';
import { requestTranscription } from '../../services/intelligence/asr/openai-compatible';
import {
  ASR_BYTES_PER_SECOND,
  cutWav,
  extractAudio,
  probeMedia,
  WAV_HEADER_BYTES,
} from '../../services/intelligence/media/ffmpeg';
import { startAsrStandin } from '../support/asr-standin';
import { conversationWav, longRecording, MEDIA_DIR, requireMediaTools } from '../support/media';

const ROOT = resolve(__dirname, '..', '..');
const BOUNDS = { prepareSeconds: 20, ratio: 1.3, rssMb: 300, transcribeSeconds: 4 };

/** A loopback server streaming files from disk (never whole in memory). */
async function fileServer(files: Record<string, string>) {
  const server = createServer((req, res) => {
    const path = files[req.url ?? ''];
    if (!path) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(statSync(path).size) });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const pinned = (cmd: string, args: string[]): [string, string[]] =>
  spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0
    ? ['taskset', ['-c', '0', cmd, ...args]]
    : [cmd, args];

function runJson(cmd: string, args: string[]): Promise<Record<string, any>> {
  return new Promise((resolveRun, reject) => {
    const [c, a] = pinned(cmd, args);
    const child = spawn(c, a, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0 ? resolveRun(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${cmd} exited ${code}`)),
    );
  });
}

/** ffmpeg alone, one command from the same URL (asynchronously: this process serves the file). */
function timedFfmpeg(url: string, out: string): Promise<number> {
  const t0 = performance.now();
  const [c, a] = pinned('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-nostats',
    '-v',
    'info',
    '-y',
    '-i',
    url,
    '-map',
    '0:a:0',
    '-vn',
    '-af',
    'aresample=16000,silencedetect=noise=-35dB:d=0.5',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    '-f',
    'wav',
    out,
  ]);
  return new Promise((done, reject) => {
    const child = spawn(c, a, { stdio: 'ignore' });
    child.on('close', (code) =>
      code === 0 ? done(performance.now() - t0) : reject(new Error(`ffmpeg exited ${code}`)),
    );
  });
}

/** About 500 MB of 48 kHz stereo PCM WAV (the conversation looped), cached beside the test media. */
function bigWav(): string {
  const path = join(MEDIA_DIR, 'big-500mb.wav');
  try {
    if (statSync(path).size > 400e6) return path;
  } catch {
    // made below
  }
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-stream_loop',
    '-1',
    '-i',
    conversationWav(),
    '-t',
    '2730',
    '-ac',
    '2',
    '-ar',
    '48000',
    '-c:a',
    'pcm_s16le',
    path,
  ]);
  return path;
}

async function main() {
  requireMediaTools();
  const hour = longRecording('mp4', 3600);
  const big = bigWav();
  const work = mkdtempSync(join(tmpdir(), 'mi-media-bench-'));
  const files = await fileServer({ '/hour.mp4': hour, '/big.wav': big });
  const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
  try {
    // 1. Preparation beside ffmpeg alone (alternating, best of 2 each: the machine is shared).
    const prep: Record<string, any>[] = [];
    const alone: number[] = [];
    for (let round = 0; round < 2; round++) {
      prep.push(await runJson(tsx, [join(__dirname, 'media-prepare.ts'), `${files.url}/hour.mp4`, work]));
      alone.push(await timedFfmpeg(`${files.url}/hour.mp4`, join(work, 'alone.wav')));
    }
    const best = prep.reduce((a, b) => (a.ms.total <= b.ms.total ? a : b));
    const bestAlone = Math.min(...alone);
    // ffmpeg alone must really have converted the hour (16 kHz mono PCM: 32,000 bytes a second).
    const aloneBytes = statSync(join(work, 'alone.wav')).size;
    if (aloneBytes < 0.95 * 3600 * 32_000) throw new Error(`ffmpeg alone wrote only ${aloneBytes} bytes`);
    const ratio = best.ms.total / bestAlone;

    // 2. Peak RSS of the preparing process on a 500 MB file.
    const bigRun = await runJson(tsx, [join(__dirname, 'media-prepare.ts'), `${files.url}/big.wav`, work]);

    // 3. The hour's chunks to a stand-in answering each after 1 s, 4 at once.
    const wav = join(work, 'hour.wav');
    const { silences } = await extractAudio(hour, wav, { silences: true });
    const duration = (await probeMedia(wav)).durationSeconds ?? 0;
    const chunks = planChunks(duration, silences, {
      maxSeconds: 600,
      maxBytes: 24 * 1024 * 1024,
      bytesPerSecond: ASR_BYTES_PER_SECOND,
      headerBytes: WAV_HEADER_BYTES,
      overlapSeconds: 1,
    });
    const asr = await startAsrStandin({ delayMs: 1000 });
    const t0 = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < chunks.length) {
        const c = chunks[next++];
        const piece = join(work, `chunk-${c.index}.wav`);
        await cutWav(wav, piece, c.start, c.end - c.start);
        await requestTranscription(
          { url: asr.url, apiKey: '', model: 'whisper-1' },
          await openAsBlob(piece, { type: 'audio/wav' }),
          `chunk-${c.index + 1}.wav`,
          c.end - c.start,
        );
        rmSync(piece, { force: true });
      }
    };
    await Promise.all(Array.from({ length: 4 }, lane));
    const transcribeMs = performance.now() - t0;
    await asr.close();

    const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
    const s = (ms: number) => (ms / 1000).toFixed(2);
    console.log(
      `media benchmark: ${best.durationSeconds} s mp4 with ${best.videoStreams} video stream(s), ${mb(best.bytes)} MB, ${best.chunks} chunks (${best.silences} silences)`,
    );
    console.log(
      `  preparation (download+probe+extract+plan, one core)   ${s(best.ms.total)} s   [download ${s(best.ms.download)}, probe ${s(best.ms.probe)}, extract ${s(best.ms.extract)}, plan ${s(best.ms.plan)}]   bound ${BOUNDS.prepareSeconds} s`,
    );
    console.log(`  ffmpeg alone, one command, same URL                    ${s(bestAlone)} s`);
    console.log(`  ratio                                                 ${ratio.toFixed(2)}   bound ${BOUNDS.ratio}`);
    console.log(
      `  preparing process peak RSS, hour mp4 / 500 MB wav      ${mb(best.maxRssBytes)} MB / ${mb(bigRun.maxRssBytes)} MB (${mb(bigRun.bytes)} MB file, ${s(bigRun.ms.total)} s)   bound ${BOUNDS.rssMb} MB`,
    );
    console.log(
      `  hour transcribed, ${chunks.length} chunks, 1 s each, 4 at once       ${s(transcribeMs)} s   bound ${BOUNDS.transcribeSeconds} s`,
    );
    const failed = [
      best.ms.total / 1000 > BOUNDS.prepareSeconds && 'preparation',
      ratio > BOUNDS.ratio && 'ratio',
      bigRun.maxRssBytes / 1024 / 1024 > BOUNDS.rssMb && 'rss',
      transcribeMs / 1000 > BOUNDS.transcribeSeconds && 'transcription',
    ].filter(Boolean);
    if (failed.length)
      console.log(
        `  over bound: ${failed.join(', ')} (a shared, noisy machine inflates times; run again on a quiet one)`,
      );
  } finally {
    await files.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
