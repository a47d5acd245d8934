/**
 * Diarization benchmark: the worker's diarization (sherpa-onnx, pyannote segmentation-3.0 and CAM++ in
 * a worker thread) against the embedded speech engine on the same audio, both on one core (taskset -c
 * 0), each in a process of its own (test/bench/diarization-alone.ts, test/bench/speech-alone.ts). The
 * audio: espeak-ng conversations of two, three and four voices and pyannote's telephone sample, one
 * after the other. Absolute times differ between machines, so the target is the ratio.
 *
 *   npx tsx test/bench/diarization.bench.ts      (make bench runs it)
 *
 * Reports:
 *   1. CPU seconds per audio second, diarization and speech engine, one core; target: diarization at
 *      most the engine's (ratio at most 1);
 *   2. the peak RSS of a process with every model a speech worker loads (VAD, speech model with one
 *      recognizer per core, diarization models), transcribing and diarizing the audio chunk by chunk;
 *      target: at most 800 MB (speech.bench.ts measures the speech worker itself over an hour).
 * A target missed is printed as such; the figures go to test/bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { espeakConversation, wavFile } from '../support/conversations';
import { PYANNOTE_DIR, wavSamples } from '../support/speech';

const ROOT = resolve(__dirname, '..', '..');
const CHUNK_SECONDS = 600;

function wavOf(samples: Float32Array, path: string): void {
  writeFileSync(
    path,
    wavFile(Int16Array.from(samples, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32768))))),
  );
}

function child(
  script: string,
  args: string[],
): { seconds: number; cpuMs: number; wallMs: number; peakKb: number; speakers?: number; words?: number } {
  const out = execFileSync('taskset', ['-c', '0', 'npx', 'tsx', join(__dirname, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mi-bench-diarization-'));
  try {
    const parts = [2, 3, 4].map((n) => wavSamples(espeakConversation(n, 11).wav));
    parts.push(wavSamples(join(PYANNOTE_DIR, 'sample.wav')));
    const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    const wav = join(dir, 'audio.wav');
    wavOf(all, wav);

    const speech = child('speech-alone.ts', [wav, '1', String(CHUNK_SECONDS)]);
    const diarization = child('diarization-alone.ts', [wav, 'diarize', String(CHUNK_SECONDS)]);
    // One recognizer per core, as the chart lays out a speech worker.
    const both = child('diarization-alone.ts', [wav, 'all', String(CHUNK_SECONDS), String(availableParallelism())]);
    const perSecond = (r: { cpuMs: number; seconds: number }) => r.cpuMs / 1000 / r.seconds;
    const ratio = perSecond(diarization) / perSecond(speech);
    const peakMb = both.peakKb / 1024;
    const lines = [
      `audio: ${speech.seconds.toFixed(1)} s (espeak-ng conversations of 2, 3, 4 voices and pyannote's sample.wav)`,
      `speech engine, one core: ${perSecond(speech).toFixed(3)} CPU-s per audio-s (${speech.words} words)`,
      `diarization, one core: ${perSecond(diarization).toFixed(3)} CPU-s per audio-s (${diarization.speakers} speakers at most in a chunk)`,
      `ratio diarization / speech: ${ratio.toFixed(2)} (target at most 1: ${ratio <= 1 ? 'met' : 'NOT met'})`,
      `both, one core: ${perSecond(both).toFixed(3)} CPU-s per audio-s, wall ${(both.wallMs / 1000).toFixed(1)} s`,
      `peak RSS, every model loaded: ${peakMb.toFixed(0)} MB (target at most 800 MB: ${peakMb <= 800 ? 'met' : 'NOT met'})`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
