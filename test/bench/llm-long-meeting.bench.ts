/**
 * The three-hour meeting (test/support/long-meeting.ts: 2,190 sentences, the labelled meetings one
 * after another) summarised whole by a real model over the test chat server: parts, calls, tokens,
 * the largest call against the server's context, and what of the last hour the notes keep (items,
 * topics' parts, sections). Not part of `make test`: a real model takes many minutes on a CPU.
 *
 *   npx tsx test/bench/llm-long-meeting.bench.ts                  # SmolLM2-135M (structure only)
 *   LLM_GGUF=<file.gguf> LLM_CONTEXT=8192 npx tsx test/bench/llm-long-meeting.bench.ts
 *
 * LLM_PART_CHARS (12000) and LLM_MAX_TOKENS (1024) as the service reads them; LLM_CONTEXT (8192) is
 * the server's context, and every call must fit in it (the server refuses one that does not).
 */
import { patientFetch } from '../../services/intelligence/patient-fetch';
import { summarizeWithLlmRun } from '../../services/intelligence/summarize';
import type { Sentence } from '../../services/intelligence/types';
import { startLlmServer, SMOLLM2 } from '../support/llm-server';
import { longMeeting } from '../support/long-meeting';

async function main(): Promise<void> {
  const context = Number(process.env.LLM_CONTEXT ?? 8192);
  process.env.LLM_CONTEXT = String(context);
  const partChars = Number(process.env.LLM_PART_CHARS ?? 12_000);
  const maxTokens = Number(process.env.LLM_MAX_TOKENS ?? 1024);
  const meeting = longMeeting();
  const sentences: Sentence[] = meeting.sentences.map((s) => ({
    index: s.index,
    speaker_name: s.speaker,
    speaker_id: meeting.people.indexOf(s.speaker),
    text: s.text,
    raw_text: s.text,
    start_time: s.start,
    end_time: s.end,
  }));
  const lastHour = sentences.find((s) => s.start_time >= sentences.at(-1)!.end_time - 3600)!.index;
  const calls: { status: number; prompt: number; completion: number }[] = [];
  const counting: typeof fetch = async (input, init) => {
    const res = await patientFetch(input, init);
    const body = JSON.parse(await res.clone().text());
    calls.push({
      status: res.status,
      prompt: body.usage?.prompt_tokens ?? 0,
      completion: body.usage?.completion_tokens ?? 0,
    });
    process.stdout.write(`  call ${calls.length}: ${res.status}, ${body.usage?.prompt_tokens ?? '-'} prompt tokens\n`);
    return res;
  };
  const server = await startLlmServer(process.env.LLM_GGUF ?? SMOLLM2);
  try {
    const { summary, run } = await summarizeWithLlmRun(
      sentences,
      { title: 'Quarterly planning day', participants: meeting.people.map((name) => ({ name })) },
      {
        url: server.url,
        apiKey: '',
        model: 'local',
        partChars,
        maxTokens,
        timeoutMs: 60 * 60_000,
        fetchImpl: counting,
      },
    );
    const items = summary.action_items.map((a) => a.index);
    const labelled = meeting.items.filter((i) => i.index >= lastHour).map((i) => i.index);
    console.log(
      `\n${sentences.length} sentences, ${(sentences.at(-1)!.end_time / 3600).toFixed(2)} h; ${run.parts} parts, ${run.calls} calls, ` +
        `${run.prompt_tokens} prompt + ${run.completion_tokens} completion tokens, ${(run.duration_ms / 1000).toFixed(0)} s`,
    );
    console.log(
      `largest call: ${Math.max(...calls.map((c) => c.prompt))} prompt tokens + ${maxTokens} answer of a ${context} context; ` +
        `refused calls: ${calls.filter((c) => c.status !== 200).length}`,
    );
    console.log(
      `items ${items.length} (last hour ${items.filter((i) => i >= lastHour).length}; labelled last-hour items found ` +
        `${labelled.filter((i) => items.includes(i)).length}/${labelled.length}); topics ${summary.topics_discussed.length}; ` +
        `sections ${summary.outline.length} (last hour ${summary.outline.filter((o) => o.index >= lastHour).length}); ` +
        `fell back: ${run.fallback_fields.join(', ') || '-'}`,
    );
  } finally {
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
