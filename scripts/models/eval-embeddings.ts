/**
 * Vector-only retrieval over the demo meetings, to choose the embedding model and how transcripts are
 * cut into passages (docs/search.md). Each question names its meeting and a substring of the answering
 * sentence; every sentence of every demo meeting is a candidate.
 *
 *   npx tsx scripts/models/eval-embeddings.ts [--model DIR]... [--questions FILE] [--layouts all|best]
 *
 * (best: one to three sentences a passage, one sentence apart, with and without speaker labels)
 *
 * For each model (a folder with a model.json, default .models/<the shipped model>), in a process of its
 * own on one thread: recall@5/10/20 for every passage layout, counted two ways. "passage": the answering
 * sentence is inside one of the k best passages. "moment": what a search shows, one sentence per passage
 * (the one of the passage nearest the question by itself), repeats dropped, the answer among the first k.
 * A third count ranks moments from the passages' scores alone (a sentence by the mean score of the
 * passages that hold it), for a store that keeps no vector per sentence. Then the model's speed (sentences per CPU second, a question's latency) and memory (peak RSS with
 * only the question embedder loaded, and after embedding everything).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadEmbedder, readEmbeddingModelInfo, type Embedder } from '../../services/intelligence/embeddings';
import { MEETINGS, passages, readLines, type Layout, type Line, type Passage } from './demo-text';

const ROOT = resolve(__dirname, '..', '..');
const DEFAULT_QUESTIONS = join(ROOT, 'test', 'fixtures', 'questions', 'demo-questions.json');
const DEFAULT_MODEL = join(ROOT, '.models', 'all-minilm-l6-v2');

interface Question {
  question: string;
  meeting: string;
  answer: string;
  kind?: string;
}
const args = process.argv.slice(2);
const many = (name: string) => args.flatMap((a, i) => (a === `--${name}` && args[i + 1] ? [args[i + 1]] : []));
const one = (name: string) => many(name)[0];

const layoutName = (l: Layout) =>
  (l.window === 1
    ? 'sentence'
    : `${l.window} sentences, step ${l.stride}, ${l.boundary === 'turn' ? 'within a turn' : 'across turns'}`) +
  (l.labels ? ', speaker labels' : '');

const LAYOUTS: Layout[] = [
  { window: 1, stride: 1, boundary: 'across', labels: false },
  { window: 1, stride: 1, boundary: 'across', labels: true },
  { window: 2, stride: 1, boundary: 'across', labels: false },
  { window: 3, stride: 1, boundary: 'across', labels: false },
  { window: 3, stride: 2, boundary: 'across', labels: false },
  { window: 3, stride: 3, boundary: 'across', labels: false },
  { window: 5, stride: 1, boundary: 'across', labels: false },
  { window: 5, stride: 2, boundary: 'across', labels: false },
  { window: 5, stride: 5, boundary: 'across', labels: false },
  { window: 8, stride: 4, boundary: 'across', labels: false },
  { window: 3, stride: 1, boundary: 'turn', labels: false },
  { window: 5, stride: 2, boundary: 'turn', labels: false },
  { window: 2, stride: 1, boundary: 'across', labels: true },
  { window: 3, stride: 1, boundary: 'across', labels: true },
  { window: 3, stride: 2, boundary: 'across', labels: true },
  { window: 5, stride: 1, boundary: 'across', labels: true },
  { window: 5, stride: 2, boundary: 'across', labels: true },
  { window: 3, stride: 1, boundary: 'turn', labels: true },
];

/** The lines of the question's meeting that the answer substring covers (it may span a cue break). */
function answerLines(lines: Line[], files: string[], q: Question): Set<number> {
  const m = files.indexOf(q.meeting);
  if (m < 0) throw new Error(`question "${q.question}": meeting ${q.meeting} is not among ${MEETINGS}`);
  const own = lines.map((l, i) => ({ l, i })).filter((x) => x.l.meeting === m);
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
  const joined = own.map((x) => norm(x.l.text)).join(' ');
  const at = joined.indexOf(norm(q.answer));
  if (at < 0) throw new Error(`question "${q.question}": "${q.answer}" is not said in ${q.meeting}`);
  const hit = new Set<number>();
  let pos = 0;
  for (const x of own) {
    const end = pos + norm(x.l.text).length;
    if (end > at && pos < at + q.answer.length) hit.add(x.i);
    pos = end + 1;
  }
  return hit;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

const KS = [5, 10, 20];

interface Counts {
  passage: number[];
  moment: number[];
  /** moment counts of the paraphrased questions alone */
  paraphrase: number[];
  /** moments ranked without sentence vectors: a sentence by the mean score of the passages holding it */
  mean: number[];
  /** the same, paraphrased questions alone */
  paraphraseMean: number[];
  /** a sentence by its best passage's score, ties by the mean */
  max: number[];
}

function score(
  qv: Float32Array[],
  paraphrased: boolean[],
  answers: Set<number>[],
  ps: Passage[],
  pv: Float32Array[],
  sentenceVectors: Float32Array[],
): Counts {
  const counts: Counts = {
    passage: KS.map(() => 0),
    moment: KS.map(() => 0),
    paraphrase: KS.map(() => 0),
    mean: KS.map(() => 0),
    paraphraseMean: KS.map(() => 0),
    max: KS.map(() => 0),
  };
  qv.forEach((q, n) => {
    const ranked = ps.map((p, i) => ({ p, s: dot(q, pv[i]) })).sort((a, b) => b.s - a.s);
    const firstPassage = ranked.findIndex((r) => r.p.lines.some((l) => answers[n].has(l)));
    const moments: number[] = [];
    for (const r of ranked) {
      const best = r.p.lines.reduce((a, b) => (dot(q, sentenceVectors[b]) > dot(q, sentenceVectors[a]) ? b : a));
      if (!moments.includes(best)) moments.push(best);
      if (moments.length >= KS[KS.length - 1]) break;
    }
    const firstMoment = moments.findIndex((l) => answers[n].has(l));
    const sums = new Map<number, { sum: number; n: number; max: number }>();
    for (const r of ranked)
      for (const l of r.p.lines) {
        const m = sums.get(l) ?? { sum: 0, n: 0, max: -1 };
        sums.set(l, { sum: m.sum + r.s, n: m.n + 1, max: Math.max(m.max, r.s) });
      }
    const mean = (x: { sum: number; n: number }) => x.sum / x.n;
    const byMean = [...sums].sort((a, b) => mean(b[1]) - mean(a[1])).map(([l]) => l);
    const byMax = [...sums].sort((a, b) => b[1].max - a[1].max || mean(b[1]) - mean(a[1])).map(([l]) => l);
    const firstMean = byMean.findIndex((l) => answers[n].has(l));
    const firstMax = byMax.findIndex((l) => answers[n].has(l));
    KS.forEach((k, j) => {
      if (firstPassage >= 0 && firstPassage < k) counts.passage[j]++;
      if (firstMoment >= 0 && firstMoment < k) counts.moment[j]++;
      if (firstMoment >= 0 && firstMoment < k && paraphrased[n]) counts.paraphrase[j]++;
      if (firstMean >= 0 && firstMean < k) counts.mean[j]++;
      if (firstMean >= 0 && firstMean < k && paraphrased[n]) counts.paraphraseMean[j]++;
      if (firstMax >= 0 && firstMax < k) counts.max[j]++;
    });
  });
  return counts;
}

const peakRssMb = () => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** One model, in this process: prints one JSON line. */
async function evaluate(dir: string, questions: Question[], layouts: Layout[]): Promise<void> {
  const { lines, files } = readLines();
  const answers = questions.map((q) => answerLines(lines, files, q));
  const embedder: Embedder = await loadEmbedder(dir, { threads: 1 });
  const times: number[] = [];
  const qv: Float32Array[] = [];
  for (const q of questions) {
    const t = process.hrtime.bigint();
    qv.push(await embedder.embedQuery(q.question));
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const queryRss = peakRssMb();
  times.sort((a, b) => a - b);
  const cpu0 = cpuSeconds();
  const plain = await embedder.embedPassages(lines.map((l) => l.text));
  const sentencesPerCpuSecond = lines.length / (cpuSeconds() - cpu0);
  const labelled = await embedder.embedPassages(lines.map((l) => `${l.speaker}: ${l.text}`));
  const paraphrased = questions.map((q) => q.kind === 'paraphrase');
  const results = [];
  for (const layout of layouts) {
    const ps = passages(lines, layout);
    // The moment inside a passage is picked by the sentence's own vector, written as the passage is.
    const sentences = layout.labels ? labelled : plain;
    const pv = layout.window === 1 ? sentences : await embedder.embedPassages(ps.map((p) => p.text));
    results.push({
      layout: layoutName(layout),
      passages: ps.length,
      ...score(qv, paraphrased, answers, ps, pv, sentences),
    });
  }
  await embedder.close();
  process.stdout.write(
    `${JSON.stringify({
      model: readEmbeddingModelInfo(dir).name,
      questions: questions.length,
      sentences: lines.length,
      sentencesPerCpuSecond,
      queryMs: { p50: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] },
      queryRssMb: queryRss,
      peakRssMb: peakRssMb(),
      results,
    })}\n`,
  );
}

function modelBytes(dir: string): number {
  const m = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { files: Record<string, string> };
  return Object.values(m.files).reduce((s, f) => s + readFileSync(join(dir, f)).length, 0);
}

function main(): void {
  const questionsFile = one('questions') ?? DEFAULT_QUESTIONS;
  const questions = JSON.parse(readFileSync(questionsFile, 'utf8')) as Question[];
  const layouts =
    one('layouts') === 'best'
      ? LAYOUTS.filter((l) => l.window <= 3 && l.stride === 1 && l.boundary === 'across')
      : LAYOUTS;
  const only = one('one');
  if (only) {
    void evaluate(only, questions, layouts);
    return;
  }
  const kinds = [...new Set(questions.map((q) => q.kind ?? 'all'))];
  console.log(`${questions.length} questions (${kinds.join(', ')}) from ${questionsFile}`);
  for (const dir of many('model').length ? many('model') : [DEFAULT_MODEL]) {
    const out = execFileSync(process.execPath, [...process.execArgv, __filename, ...args, '--one', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const r = JSON.parse(out.trim().split('\n').pop() as string);
    console.log(
      `\n${r.model}: ${(modelBytes(dir) / 1e6).toFixed(1)} MB, ${r.sentencesPerCpuSecond.toFixed(0)} sentences per CPU-s, ` +
        `question p50 ${r.queryMs.p50.toFixed(1)} ms (p95 ${r.queryMs.p95.toFixed(1)}), ` +
        `peak RSS ${r.queryRssMb.toFixed(0)} MB with the question embedder, ${r.peakRssMb.toFixed(0)} MB in all`,
    );
    console.log(
      '| passages | count | moments by own vector @5 / @10 / @20 | paraphrased | passage @5 / @10 / @20 | moments by mean of passages | paraphrased | moments by best passage |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const x of r.results)
      console.log(
        `| ${x.layout} | ${x.passages} | ${x.moment.join(' / ')} | ${x.paraphrase.join(' / ')} | ${x.passage.join(' / ')} | ${x.mean.join(' / ')} | ${x.paraphraseMean.join(' / ')} | ${x.max.join(' / ')} |`,
      );
  }
}

main();
