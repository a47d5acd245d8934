/**
 * A process of test/bench/embeddings.bench.ts: the embedding model alone, on one thread. Prints one
 * JSON line.
 *
 *   npx tsx test/bench/embeddings-alone.ts passages <seconds>   embed the passages of that much meeting
 *   npx tsx test/bench/embeddings-alone.ts questions <count>    hold the question embedder, embed questions
 *   npx tsx test/bench/embeddings-alone.ts bare                 load nothing (the same process's own RSS)
 *
 * "That much meeting": the demo meetings' sentences in date order, each meeting's time from its first
 * sentence, until the seconds are used up; passages as the service makes them (passagesOf,
 * docs/search.md).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadEmbedder } from '../../services/intelligence/embeddings';
import { passagesOf } from '../../services/core/passages';
import { readLines, type Line } from '../../scripts/models/demo-text';

const MODEL_DIR = join(resolve(__dirname, '..', '..'), '.models', 'all-minilm-l6-v2');
const status = (field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The demo sentences of `seconds` of meeting time, meetings one after another. */
function meetingTime(seconds: number): Line[] {
  const { lines } = readLines();
  const out: Line[] = [];
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (offset + l.start >= seconds) break;
    out.push(l);
    if (lines[i + 1]?.meeting !== l.meeting) offset += l.start + 5;
  }
  return out;
}

async function main() {
  const [mode, n] = [process.argv[2], Number(process.argv[3])];
  const bareKb = status('VmRSS');
  if (mode === 'bare') return print({ peakKb: status('VmHWM'), bareKb });
  const embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  if (mode === 'passages') {
    const lines = meetingTime(n);
    const meetings = [...new Set(lines.map((l) => l.meeting))];
    const texts = meetings.flatMap((m) =>
      passagesOf(
        lines.filter((l) => l.meeting === m).map((l) => ({ idx: l.index, speaker_name: l.speaker, text: l.text })),
      ).map((p) => p.text),
    );
    await embedder.embedPassages(texts.slice(0, 5));
    const cpu0 = cpuMs();
    const t0 = performance.now();
    await embedder.embedPassages(texts);
    print({
      sentences: lines.length,
      words: lines.reduce((s, l) => s + l.text.split(/\s+/).length, 0),
      passages: texts.length,
      cpuMs: cpuMs() - cpu0,
      wallMs: performance.now() - t0,
      peakKb: status('VmHWM'),
    });
  } else {
    const { lines } = readLines();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await embedder.embedQuery(`What did ${lines[i].speaker} say about ${lines[i].text.toLowerCase()}?`);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    print({
      p50Ms: times[Math.floor(n / 2)],
      p95Ms: times[Math.floor(n * 0.95)],
      bareKb,
      peakKb: status('VmHWM'),
    });
  }
  await embedder.close();
}

function print(o: Record<string, number>) {
  process.stdout.write(`${JSON.stringify(o)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
