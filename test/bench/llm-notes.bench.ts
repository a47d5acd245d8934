/**
 * LLM notes on the labelled set (test/fixtures/notes, test/support/notes-score.ts), against the
 * built-in notes: type accuracy, topic precision and recall, small-talk topics, item precision and
 * recall, owners, dues, duplicates, and what the model cost (calls, tokens, seconds, fields that fell
 * back). Not part of `make test`: a real model takes minutes per meeting on a CPU.
 *
 *   LLM_URL=http://localhost:8080 LLM_MODEL=qwen npx tsx test/bench/llm-notes.bench.ts [--limit N]
 *   npx tsx test/bench/llm-notes.bench.ts --limit 3     # SmolLM2-135M over node-llama-cpp (structure only)
 *   make llm-model && LLM_GGUF=.models/qwen2.5-coder-1.5b-instruct/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
 *     LLM_CONTEXT=8192 nice -n 19 npx tsx test/bench/llm-notes.bench.ts --out .test-data/llm-qwen.jsonl
 *
 * Without LLM_URL it starts the test server (test/llm-server) with the SmolLM2 test model; with
 * LLM_GGUF=<file.gguf> it starts the same server over that model (`make llm-model` fetches
 * Qwen2.5-Coder-1.5B-Instruct; LLM_CONTEXT and LLM_THREADS go to the server).
 *
 * Options: --only a,b (meetings by name, in that order), --limit N (the first N), --out file.jsonl
 * (one line per meeting as it finishes; meetings already in the file are not run again, so a run
 * cut short goes on where it stopped), --log calls.jsonl (every call's messages and answer, for
 * reading what the model wrote), --report file.jsonl (the figures of a file, running nothing).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { patientFetch } from '../../services/intelligence/patient-fetch';
import { summarizeNotes, summarizeWithLlmRun, type LlmRun } from '../../services/intelligence/summarize';
import { startLlmServer, SMOLLM2, type LlmServer } from '../support/llm-server';
import { loadLabelledSet, scoreMeeting, scoreSet, type MeetingScore, type SetScore } from '../support/notes-score';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** One meeting's line of an --out file. */
interface Result {
  name: string;
  model: string;
  builtIn: MeetingScore;
  llm?: MeetingScore;
  run?: LlmRun;
  error?: string;
}

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

function report(results: Result[], where: string): void {
  const runs = results.flatMap((r) => (r.run ? [r.run] : []));
  const answered = results.filter((r) => r.llm);
  const sum = (f: (r: LlmRun) => number) => runs.reduce((t, r) => t + f(r), 0);
  console.log(`\n${results.length} meetings, model ${results[0]?.model ?? '-'} at ${where}`);
  // The built-in notes on the same meetings as the model's, so the two lines compare like with like.
  console.log(line('built-in', scoreSet(answered.map((r) => r.builtIn))));
  console.log(line('llm', scoreSet(answered.map((r) => r.llm!))));
  console.log(
    `llm cost: ${sum((r) => r.calls)} calls, ${sum((r) => r.prompt_tokens)} prompt + ${sum((r) => r.completion_tokens)} completion tokens, ` +
      `${(sum((r) => r.duration_ms) / 1000).toFixed(0)} s; ${results.length - answered.length} meetings without a usable answer; ` +
      `fields fallen back: ${runs.flatMap((r) => r.fallback_fields).length}, lines dropped: ${sum((r) => r.dropped_lines)}`,
  );
}

const readResults = (file: string): Result[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Result)
    : [];

async function main(): Promise<void> {
  const reportOnly = arg('report');
  if (reportOnly) return report(readResults(reportOnly), reportOnly);

  const out = arg('out');
  const done = new Map((out ? readResults(out) : []).map((r) => [r.name, r]));
  const only = arg('only')?.split(',');
  const all = loadLabelledSet();
  const unknown = only?.filter((n) => !all.some((m) => m.name === n)) ?? [];
  if (unknown.length) throw new Error(`--only: no labelled meeting named ${unknown.join(', ')}`);
  const chosen = only ? only.map((n) => all.find((m) => m.name === n)!) : all;
  const set = chosen.slice(0, Number(arg('limit') ?? Infinity));

  let server: LlmServer | undefined;
  let url = process.env.LLM_URL;
  const todo = set.filter((m) => !done.has(m.name));
  if (!url && todo.length) {
    server = await startLlmServer(process.env.LLM_GGUF ?? SMOLLM2);
    url = server.url;
  }
  const log = arg('log');
  const logging: typeof fetch = async (input, init) => {
    const res = await patientFetch(input, init);
    const answer = await res.clone().text();
    appendFileSync(
      log!,
      `${JSON.stringify({ status: res.status, request: JSON.parse(String(init?.body)), answer })}\n`,
    );
    return res;
  };
  const llm = {
    url: url ?? '',
    fetchImpl: log ? logging : undefined,
    apiKey: process.env.LLM_API_KEY ?? '',
    model:
      process.env.LLM_MODEL ?? (process.env.LLM_GGUF ? (process.env.LLM_GGUF.split('/').pop() ?? 'local') : 'smollm2'),
    maxTokens: Number(process.env.LLM_MAX_TOKENS ?? 1024),
    timeoutMs: 30 * 60_000,
  };
  const results: Result[] = [];
  try {
    for (const m of set) {
      const before = done.get(m.name);
      if (before) {
        results.push(before);
        continue;
      }
      const result: Result = {
        name: m.name,
        model: llm.model,
        builtIn: scoreMeeting(m, await summarizeNotes(m.sentences, m.options)),
      };
      try {
        const { summary, run } = await summarizeWithLlmRun(m.sentences, m.options, llm);
        result.llm = scoreMeeting(m, summary);
        result.run = run;
        console.log(
          `  ${m.name}: ${run.calls} calls, ${(run.duration_ms / 1000).toFixed(1)} s, fell back: ${run.fallback_fields.join(', ') || '-'}`,
        );
      } catch (e) {
        result.error = (e as Error).message;
        console.log(`  ${m.name}: no usable answer (${result.error})`);
      }
      results.push(result);
      if (out) appendFileSync(out, `${JSON.stringify(result)}\n`);
    }
  } finally {
    await server?.close();
  }
  report(results, url ?? '-');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
