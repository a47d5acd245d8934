/**
 * Micro-benchmark of the per-meeting intelligence work (not a jest test):
 *   npx tsx test/bench/analyze.bench.ts
 * Times analyze + summarize on one-hour meetings beside a baseline measured in the same run (splitting
 * the same text into words), so the numbers can be compared across machines. Target: ≤ 150 ms per hour.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../services/intelligence/analytics';
import { parseCaptions } from '../../services/intelligence/captions';
import { summarize } from '../../services/intelligence/summarize';
import { iterateSyntheticMeetings, syntheticMeetings } from '../support/synthetic';
import { words } from '../../services/intelligence/text/words';
import type { Sentence } from '../../services/intelligence/types';

const WARMUP = 15;
const RUNS = 40;
const TARGET_MS_PER_HOUR = 150;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
}

function time(fn: () => unknown): number[] {
  for (let i = 0; i < WARMUP; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** An hour of the hand-written fixture meetings played back to back: real dialogue, real cue lengths. */
function fixtureHour(): Sentence[] {
  const dir = join(__dirname, '../../services/cli/demo/meetings');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { meetings: { file: string }[] };
  const out: Sentence[] = [];
  const ids = new Map<string, number>();
  let offset = 0;
  for (let round = 0; offset < 3600; round++) {
    for (const m of manifest.meetings) {
      if (offset >= 3600) break;
      const { sentences, duration_seconds } = parseCaptions(readFileSync(join(dir, m.file)));
      for (const s of sentences) {
        if (!ids.has(s.speaker_name)) ids.set(s.speaker_name, ids.size);
        out.push({
          ...s,
          index: out.length,
          speaker_id: ids.get(s.speaker_name)!,
          start_time: s.start_time + offset,
          end_time: s.end_time + offset,
        });
      }
      offset += duration_seconds + 5;
    }
  }
  return out;
}

function report(label: string, sentences: Sentence[]): number {
  const hours = sentences[sentences.length - 1].end_time / 3600;
  const wordCount = sentences.reduce((n, s) => n + words(s.text).length, 0);
  const baseline = time(() => sentences.reduce((n, s) => n + words(s.text).length, 0));
  const a = time(() => analyze(sentences));
  const s = time(() => summarize(sentences, { meetingDate: '2026-10-14T10:00:00Z' }));
  const both = time(() => {
    analyze(sentences);
    summarize(sentences, { meetingDate: '2026-10-14T10:00:00Z' });
  });
  const perHour = median(both) / hours;
  const f = (n: number) => n.toFixed(1).padStart(7);
  console.log(`\n${label}: ${sentences.length} sentences, ${wordCount} words, ${(hours * 60).toFixed(1)} min`);
  console.log(`  baseline (split into words)  median ${f(median(baseline))} ms   p95 ${f(p95(baseline))} ms`);
  console.log(`  analyze                      median ${f(median(a))} ms   p95 ${f(p95(a))} ms`);
  console.log(`  summarize                    median ${f(median(s))} ms   p95 ${f(p95(s))} ms`);
  console.log(`  analyze + summarize          median ${f(median(both))} ms   p95 ${f(p95(both))} ms`);
  console.log(
    `  per hour of meeting          ${f(perHour)} ms  (${(median(both) / median(baseline)).toFixed(0)}× the baseline; target ≤ ${TARGET_MS_PER_HOUR} ms)`,
  );
  return perHour;
}

const users = ['Ada Park', 'Grace Okafor', 'Miguel Santos', 'Priya Raman', 'Tom Becker', 'Lena Fischer'].map(
  (name) => ({
    name,
    email: `${name.split(' ')[0].toLowerCase()}@demo.example`,
  }),
);
// ~900 sentences and ~9,000–10,000 words: an hour-long meeting.
const [synthetic] = syntheticMeetings({ count: 1, sentencesPerMeeting: 900, seed: 2026, users });
const results = [
  report('synthetic one-hour meeting', synthetic.sentences),
  report('an hour of fixture meetings back to back', fixtureHour()),
];
const worst = Math.max(...results);
console.log(
  `\nworst: ${worst.toFixed(1)} ms per hour of meeting — ${worst <= TARGET_MS_PER_HOUR ? 'within' : 'OVER'} the ${TARGET_MS_PER_HOUR} ms target`,
);

// The synthetic generator feeds load tests: 10,000 meetings × 200 sentences should take a few seconds.
const started = process.hrtime.bigint();
let generated = 0;
for (const m of iterateSyntheticMeetings({ count: 10_000, sentencesPerMeeting: 200, seed: 1, users }))
  generated += m.sentences.length;
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  `synthetic generator: ${generated.toLocaleString('en-US')} sentences (10,000 meetings × 200) in ${seconds.toFixed(2)} s`,
);
process.exitCode = worst <= TARGET_MS_PER_HOUR ? 0 : 1;
