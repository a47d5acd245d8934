/**
 * The multilingual model (Whisper base, int8, from `make models-multilingual`) against the English
 * default (Moonshine tiny-en) on the same English audio, and the memory of a speech worker holding
 * both. Each measure runs in a child process of its own (`--child`), so CPU and peak RSS are its own:
 *
 * - english / whisper: one recognizer, the LibriVox utterances joined `--repeat` times (0.5 s apart),
 *   decoded as English by Moonshine alone, then by Whisper alone: CPU-s per audio-s and WER;
 * - detect: Whisper's language identification over 28 s of that speech, CPU-s per audio-s;
 * - both: what a two-core speech pod with SPEECH_MODELS=whisper-base holds at its worst: both
 *   models with `--recognizers` recognizers each (default 2), the language identifier, and the
 *   diarization models; an English and a Czech chunk decoded and diarized at once. Peak RSS
 *   (VmHWM), with the image's MALLOC_ARENA_MAX=2.
 *
 *   npx tsx test/bench/multilingual.bench.ts [--repeat 4] [--recognizers 2]
 *   quick: npx tsx test/bench/multilingual.bench.ts --repeat 1
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddedEngine } from '../../services/intelligence/asr';
import { DIARIZATION_SAMPLE_RATE, diarizeInThread } from '../../services/intelligence/diarization';
import { czechRecording, requireCzechData } from '../support/czech';
import { librivox, requireSpeechData, wavSamples } from '../support/speech';
import { wordErrorRate } from '../support/wer';

const ROOT = resolve(__dirname, '..', '..');
const MODELS = join(ROOT, '.models');
const RATE = 16_000;
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const peakMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The LibriVox utterances joined `repeat` times, and what they say. */
function english(repeat: number): { samples: Float32Array; reference: string } {
  const gap = new Float32Array(RATE / 2);
  const parts: Float32Array[] = [];
  const words: string[] = [];
  for (let r = 0; r < repeat; r++)
    for (const u of librivox()) {
      parts.push(wavSamples(u.path), gap);
      words.push(u.reference);
    }
  const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  return { samples, reference: words.join(' ') };
}

async function child(kind: string, repeat: number, recognizers: number) {
  const speech = english(repeat);
  const seconds = speech.samples.length / RATE;
  if (kind === 'english' || kind === 'whisper') {
    const model = kind === 'english' ? 'moonshine-tiny-en' : 'whisper-base';
    const engine = await embeddedEngine({ modelsDir: MODELS, model, recognizers: 1 });
    const cpu0 = process.cpuUsage();
    const segments = await engine.transcribe(speech.samples, undefined, 'en');
    const cpu = process.cpuUsage(cpu0);
    const hypothesis = segments.map((s) => s.text).join(' ');
    const { wer } = wordErrorRate([{ reference: speech.reference, hypothesis }]);
    return {
      kind,
      model: engine.model.name,
      seconds,
      cpuPerSecond: r3((cpu.user + cpu.system) / 1e6 / seconds),
      wer: r3(wer),
      peakMb: Math.round(peakMb()),
    };
  }
  const engine = await embeddedEngine({
    modelsDir: MODELS,
    model: 'moonshine-tiny-en',
    models: ['whisper-base'],
    recognizers,
  });
  if (kind === 'detect') {
    const window = speech.samples.subarray(0, 28 * RATE);
    await engine.detectLanguage(new Float32Array(RATE)); // loads the identifier
    const cpu0 = process.cpuUsage();
    const language = await engine.detectLanguage(window);
    const cpu = process.cpuUsage(cpu0);
    return { kind, language, cpuPerSecond: r3((cpu.user + cpu.system) / 1e6 / (window.length / RATE)) };
  }
  const czech = czechRecording('briefcase', 60).samples;
  const englishChunk = speech.samples.subarray(0, Math.min(speech.samples.length, 60 * RATE));
  await engine.detectLanguage(czech);
  await Promise.all([
    engine.withSlot(() => engine.transcribe(englishChunk, undefined, 'en')),
    engine.withSlot(() => engine.transcribe(czech, undefined, 'cs')),
    diarizeInThread({ samples: czech, sampleRate: DIARIZATION_SAMPLE_RATE }),
    diarizeInThread({ samples: englishChunk, sampleRate: DIARIZATION_SAMPLE_RATE }),
  ]);
  return { kind, recognizers, peakMb: Math.round(peakMb()) };
}

function run(kind: string, repeat: number, recognizers: number) {
  // One core for the CPU measures (as the speech bench), both for the pod's worst memory.
  const cores = kind === 'both' ? '0,1' : '0';
  const args = ['--child', kind, '--repeat', String(repeat), '--recognizers', String(recognizers)];
  const out = execFileSync('taskset', ['-c', cores, 'npx', 'tsx', __filename, ...args], {
    env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = out.toString().trim().split('\n').pop()!;
  process.stdout.write(`${line}\n`);
  return JSON.parse(line);
}

async function main() {
  const repeat = arg('repeat', 4);
  const recognizers = arg('recognizers', 2);
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    process.stdout.write(`${JSON.stringify(await child(process.argv[i + 1], repeat, recognizers))}\n`);
    return;
  }
  requireSpeechData();
  requireCzechData();
  process.stdout.write(`load: ${execFileSync('uptime').toString().trim()}\n`);
  const moonshine = run('english', repeat, 1);
  const whisper = run('whisper', repeat, 1);
  run('detect', repeat, 1);
  const both = run('both', repeat, recognizers);
  process.stdout.write(
    `whisper ÷ moonshine, CPU-s per audio-s on English: ${r3(whisper.cpuPerSecond / moonshine.cpuPerSecond)}× ` +
      `(${whisper.cpuPerSecond} ÷ ${moonshine.cpuPerSecond}); WER ${whisper.wer} vs ${moonshine.wer}; ` +
      `peak RSS with both models, ${recognizers} recognizers each, diarizing: ${both.peakMb} MB (bound 800 MB)\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
