/**
 * Notes benchmark (not a jest test):
 *   npx tsx test/bench/notes.bench.ts [--runs 5]     (make bench runs it)
 *
 * Reports:
 *   1. CPU seconds of the extractive notes for an hour of meeting (the demo meetings' sentences, one
 *      after another, until 3,600 s of their time), words only and with the embedding model (each
 *      sentence that is not small talk embedded once), against embedding the same hour's passages as
 *      search by meaning does (services/core/passages); bound: notes with the model at most 1x that.
 *      One thread for the model, in this process; the median of --runs runs each.
 *   2. The scorer's figures (test/support/notes-score.ts) for the extractive summarizer on the
 *      labelled set, words only and with the model. The chat model's column is added beside them
 *      when a model server is configured for the bench.
 */
import { join, resolve } from 'node:path';
import { passagesOf } from '../../services/core/passages';
import { loadEmbedder } from '../../services/intelligence/embeddings';
import { summarize, summarizeNotes } from '../../services/intelligence/summarize';
import type { Sentence } from '../../services/intelligence/types';
import { loadLabelledSet, scoreMeeting, scoreSet, type SetScore } from '../support/notes-score';

const MODEL_DIR = join(resolve(__dirname, '..', '..'), '.models', 'all-minilm-l6-v2');
const HOUR = 3600;
const BOUND = 1;
const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The demo meetings one after another (five seconds apart) until an hour of their time. */
function anHour(): Sentence[] {
  const out: Sentence[] = [];
  let offset = 0;
  for (const m of loadLabelledSet().filter((x) => x.labels.transcript.includes('/demo/'))) {
    for (const s of m.sentences) {
      if (offset + s.end_time > HOUR) return out;
      out.push({ ...s, index: out.length, start_time: offset + s.start_time, end_time: offset + s.end_time });
    }
    offset += m.sentences[m.sentences.length - 1].end_time + 5;
  }
  return out;
}

async function measure(runs: number, work: () => Promise<unknown>): Promise<number> {
  await work(); // warm up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = cpuS();
    await work();
    times.push(cpuS() - t0);
  }
  return median(times);
}

const pct = (x: number) => x.toFixed(3);
function scoreLine(name: string, s: SetScore): string {
  return (
    `  ${name.padEnd(22)} type ${pct(s.typeAccuracy)} | topics P ${pct(s.topicPrecision)} R ${pct(s.topicRecall)} ` +
    `(small talk ${s.smallTalkTopics}) | items P ${pct(s.itemPrecision)} R ${pct(s.itemRecall)} | owner ${pct(s.ownerAccuracy)} ` +
    `due ${pct(s.dueAccuracy)} | duplicates ${s.duplicates} | concerns as items ${s.notItems}` +
    s.perMeeting.flatMap((m) => m.duplicateItems.map((d) => `\n    duplicate in ${m.name}: ${d.text}`)).join('')
  );
}

async function main() {
  const runs = arg('runs', 5);
  const embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  const hour = anHour();
  const passages = passagesOf(hour.map((s) => ({ idx: s.index, speaker_name: s.speaker_name, text: s.text }))).map(
    (p) => p.text,
  );
  const words = await measure(runs, async () => summarize(hour));
  const withModel = await measure(runs, () => summarizeNotes(hour, { embedder }));
  const embedding = await measure(runs, () => embedder.embedPassages(passages));
  const ratio = withModel / embedding;
  console.log(
    `notes benchmark: an hour of meeting, ${hour.length} sentences, ${passages.length} passages; median of ${runs}`,
  );
  console.log(`  extractive notes, words only:       ${words.toFixed(3)} CPU-s`);
  console.log(`  extractive notes, with the model:   ${withModel.toFixed(3)} CPU-s`);
  console.log(`  embedding the hour's passages:      ${embedding.toFixed(3)} CPU-s`);
  console.log(
    `  notes with the model ÷ embedding:   ${ratio.toFixed(2)}× (bound ≤ ${BOUND}×: ${ratio <= BOUND ? 'met' : 'NOT met'})`,
  );

  const set = loadLabelledSet();
  const plain = scoreSet(set.map((m) => scoreMeeting(m, summarize(m.sentences, m.options))));
  const scored = [];
  for (const m of set) scored.push(scoreMeeting(m, await summarizeNotes(m.sentences, { ...m.options, embedder })));
  console.log(`labelled set: ${set.length} meetings (test/fixtures/notes)`);
  console.log(scoreLine('extractive, words', plain));
  console.log(scoreLine('extractive, model', scoreSet(scored)));
  await embedder.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
