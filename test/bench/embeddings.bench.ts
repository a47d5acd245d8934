/**
 * Embedding benchmark: the sentence-embedding model (docs/search.md) against the speech engine, each
 * on one core (taskset -c 0) in a process of its own, in the same run.
 *
 *   npx tsx test/bench/embeddings.bench.ts [--speech-seconds 600]   (make bench runs it)
 *
 * Reports:
 *   1. CPU seconds to embed an hour of meeting (the passages of the demo meetings' sentences of 3,600 s
 *      of their time) against the speech engine transcribing an hour (speech-alone.ts on the LibriVox
 *      loop of --speech-seconds, scaled to the hour); bound: ratio at most 0.15;
 *   2. the peak RSS of a process holding only the question embedder, after 200 questions, beside the
 *      same process loading nothing; the mcp role's bound with the embedder is 350 MB in all
 *      (mcp.bench.ts measures the role), so this is the share the embedder takes of it; and a
 *      question's latency.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { requireSpeechData } from '../support/speech';
import { speechAudio } from './speech-audio';

const ROOT = resolve(__dirname, '..', '..');
const BOUND = 0.15;
const HOUR = 3600;
const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');

function runJson(args: string[]): Promise<Record<string, number>> {
  const [cmd, all] = hasTaskset ? ['taskset', ['-c', '0', tsx, ...args]] : [tsx, args];
  return new Promise((done, reject) => {
    const child = spawn(cmd, all, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args[0]} exited ${code}`)),
    );
  });
}

async function main() {
  requireSpeechData();
  const speechSeconds = arg('speech-seconds', 600);
  const { wav } = speechAudio(speechSeconds);
  const alone = join(__dirname, 'embeddings-alone.ts');
  const speech = await runJson([join(__dirname, 'speech-alone.ts'), wav, '1', '600']);
  const embed = await runJson([alone, 'passages', String(HOUR)]);
  const questions = await runJson([alone, 'questions', '200']);
  const bare = await runJson([alone, 'bare']);

  const speechHourS = (speech.cpuMs / 1000 / speech.seconds) * HOUR;
  const embedHourS = embed.cpuMs / 1000;
  const ratio = embedHourS / speechHourS;
  const mb = (kb: number) => (kb / 1024).toFixed(0);
  console.log(`embeddings benchmark: one core each (taskset ${hasTaskset ? 'yes' : 'no'})`);
  console.log(
    `  an hour of meeting: ${embed.sentences} sentences, ${embed.words} words, ${embed.passages} passages: ` +
      `${embedHourS.toFixed(2)} CPU-s (${(embed.passages / embedHourS).toFixed(0)} passages per CPU-s, ` +
      `${(embed.wallMs / 1000).toFixed(2)} s wall)`,
  );
  console.log(
    `  the speech engine transcribing an hour: ${speechHourS.toFixed(1)} CPU-s ` +
      `(${(speech.cpuMs / 1000).toFixed(1)} CPU-s for ${speech.seconds.toFixed(0)} s of speech)`,
  );
  console.log(`  embedding ÷ speech: ${ratio.toFixed(3)}× (bound ${BOUND}×) ${ratio <= BOUND ? 'met' : 'NOT MET'}`);
  console.log(
    `  question embedder: peak RSS ${mb(questions.peakKb)} MB, the same process loading nothing ${mb(bare.peakKb)} MB ` +
      `(+${mb(questions.peakKb - bare.peakKb)} MB); a question p50 ${questions.p50Ms.toFixed(1)} ms, p95 ${questions.p95Ms.toFixed(1)} ms`,
  );
  if (ratio > BOUND) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
