/**
 * LLM notes on the labelled set (test/fixtures/notes, test/support/notes-score.ts), against the
 * built-in notes: type accuracy, topic precision and recall, small-talk topics, item precision and
 * recall, owners, dues, duplicates, and what the model cost (calls, tokens, seconds, fields that fell
 * back). Not part of `make test`: a real model takes minutes per meeting on a CPU.
 *
 *   LLM_URL=http://localhost:8080 LLM_MODEL=qwen npx tsx test/bench/llm-notes.bench.ts [--limit N]
 *   npx tsx test/bench/llm-notes.bench.ts --limit 3     # SmolLM2-135M over node-llama-cpp (structure only)
 *
 * Without LLM_URL it starts the test server (test/llm-server) with the SmolLM2 test model; with
 * LLM_GGUF=<file.gguf> it starts the same server over that model (e.g. Qwen2.5-Coder-1.5B, see
 * ../shared notes on models).
 */
import { summarizeNotes, summarizeWithLlmRun, type LlmRun } from '../../services/intelligence/summarize';
import { startLlmServer, SMOLLM2, type LlmServer } from '../support/llm-server';
import { loadLabelledSet, scoreMeeting, scoreSet, type MeetingScore, type SetScore } from '../support/notes-score';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

function line(label: string, s: SetScore): string {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return [
    label.padEnd(12),
    `type ${pct(s.typeAccuracy)}`,
    `topics P ${pct(s.topicPrecision)} R ${pct(s.topicRecall)} small talk ${s.smallTalkTopics}`,
    `items P ${pct(s.itemPrecision)} R ${pct(s.itemRecall)}`,
    `owner ${pct(s.ownerAccuracy)} due ${pct(s.dueAccuracy)}`,
    `duplicates ${s.duplicates} concerns ${s.notItems}`,
  ].join(' | ');
}

async function main(): Promise<void> {
  const limit = Number(arg('limit') ?? Infinity);
  const set = loadLabelledSet().slice(0, limit);
  let server: LlmServer | undefined;
  let url = process.env.LLM_URL;
  if (!url) {
    server = await startLlmServer(process.env.LLM_GGUF ?? SMOLLM2);
    url = server.url;
  }
  const llm = {
    url,
    apiKey: process.env.LLM_API_KEY ?? '',
    model: process.env.LLM_MODEL ?? 'local',
    maxTokens: Number(process.env.LLM_MAX_TOKENS ?? 1024),
    timeoutMs: 30 * 60_000,
  };
  const builtIn: MeetingScore[] = [];
  const model: MeetingScore[] = [];
  const runs: LlmRun[] = [];
  let failed = 0;
  try {
    for (const m of set) {
      builtIn.push(scoreMeeting(m, await summarizeNotes(m.sentences, m.options)));
      try {
        const { summary, run } = await summarizeWithLlmRun(m.sentences, m.options, llm);
        model.push(scoreMeeting(m, summary));
        runs.push(run);
        console.log(
          `  ${m.name}: ${run.calls} calls, ${(run.duration_ms / 1000).toFixed(1)} s, fell back: ${run.fallback_fields.join(', ') || '-'}`,
        );
      } catch (e) {
        failed++;
        console.log(`  ${m.name}: no usable answer (${(e as Error).message})`);
      }
    }
  } finally {
    await server?.close();
  }
  const sum = (f: (r: LlmRun) => number) => runs.reduce((t, r) => t + f(r), 0);
  console.log(`\n${set.length} meetings, model ${llm.model} at ${url}`);
  console.log(line('built-in', scoreSet(builtIn)));
  console.log(line('llm', scoreSet(model)));
  console.log(
    `llm cost: ${sum((r) => r.calls)} calls, ${sum((r) => r.prompt_tokens)} prompt + ${sum((r) => r.completion_tokens)} completion tokens, ` +
      `${(sum((r) => r.duration_ms) / 1000).toFixed(0)} s; ${failed} meetings without a usable answer; ` +
      `fields fallen back: ${runs.flatMap((r) => r.fallback_fields).length}`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
