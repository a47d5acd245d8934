import type { Sentence } from '../types';
import {
  askJson,
  badReply,
  isUnusableAnswer,
  newUsage,
  type ChatMessage,
  type ChatSettings,
  type ChatUsage,
} from './llm-chat';
import { summarizeNotes } from './extractive';
import {
  checkNotes,
  LLM_SUMMARY_SCHEMA,
  meetingHead,
  partsOf,
  PROMPT_VERSION,
  REDUCE_PROMPT,
  renderNotes,
  SYSTEM_PROMPT,
  transcriptLine,
  type CheckContext,
  type CheckedNotes,
} from './llm-notes';
import { keepParts, mergeNotes, type PartNotes } from './llm-merge';
import { notesToSummary } from './llm-summary';
import type { SummarizeOptions, Summary } from './types';

/**
 * Notes by an OpenAI-compatible chat model (LLM_URL: vLLM, llama.cpp's server, Ollama, a hosted API).
 * A meeting of any length: the transcript goes in parts of at most `partChars` characters, each part
 * gets its notes, and the parts' notes are merged into the whole meeting's by the model (in rounds,
 * when even the parts' notes are too long for one call). Every line is checked against the
 * transcript (llm-notes.ts) and a field the model does not give usably is the extractive summary's,
 * with the summary's `notes` saying so (llm-summary.ts).
 */
export interface LlmSettings {
  url: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  /** Answer tokens per call at most (LLM_MAX_TOKENS): a small model can repeat itself forever. */
  maxTokens?: number;
  /** Transcript characters per call at most (LLM_PART_CHARS); a longer meeting goes in parts. */
  partChars?: number;
  fetchImpl?: typeof fetch;
}

/** What one summary by the chat model took, recorded with the meeting (summary_runs) and as metrics. */
export interface LlmRun {
  model: string;
  prompt_version: string;
  duration_ms: number;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  parts: number;
  response_format: ChatUsage['response_format'];
  /** Fields that are the extractive summary's because the model's did not hold. */
  fallback_fields: string[];
  /** Lines the model wrote that were dropped (a citation that did not hold). */
  dropped_lines: number;
}

export const LLM_DEFAULTS = { timeoutMs: 120_000, maxTokens: 2_048, partChars: 24_000 } as const;

const SCHEMA = { name: 'meeting_notes', schema: LLM_SUMMARY_SCHEMA };

/** Which of two checks of the same notes to keep: fewer failed fields, then more lines kept. */
function better(a: CheckedNotes, b: CheckedNotes): CheckedNotes {
  const failed = (n: CheckedNotes) => Object.keys(n.failed).length;
  const lines = (n: CheckedNotes) => n.overview.length + n.action_items.length + n.outline.length;
  if (failed(a) !== failed(b)) return failed(a) < failed(b) ? a : b;
  return lines(b) >= lines(a) ? b : a;
}

/**
 * One call for notes, checked; asked once more when the answer is not JSON or has lines that do not
 * hold. Throws when the model never answers JSON.
 */
async function notesOf(
  chat: ChatSettings,
  usage: ChatUsage,
  system: string,
  user: string,
  ctx: CheckContext,
): Promise<CheckedNotes> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const first = await askJson(chat, usage, messages, SCHEMA);
  const checked = first.error ? undefined : checkNotes(first.json, ctx);
  if (checked && checked.problems.length === 0) return checked;
  const why = first.error
    ? `That answer is not usable: ${first.error}.`
    : `Some lines of that answer do not hold:\n- ${checked!.problems.slice(0, 12).join('\n- ')}`;
  messages.push(
    { role: 'assistant', content: first.content.slice(0, 8_000) },
    { role: 'user', content: `${why}\nAnswer again with the whole JSON, corrected.` },
  );
  const second = await askJson(chat, usage, messages, SCHEMA);
  if (second.error) {
    if (checked) return checked;
    throw badReply(second.error);
  }
  const again = checkNotes(second.json, ctx);
  return checked ? better(checked, again) : again;
}

const rangeLabel = (part: readonly Sentence[], i: number) =>
  `Part ${i + 1} (sentences #${part[0].index} to #${part[part.length - 1].index})`;

/** The first or last part number a label names ("Part 3 (…)", "Parts 1 to 4 (…)"). */
const partNumber = (label: string, which: 'first' | 'last') =>
  which === 'first' ? /^Parts? (\d+)/.exec(label)![1] : /(\d+) \(sentences/.exec(label)![1];

/**
 * The parts' notes made into the whole meeting's, in rounds of as many as fit in one call. What the
 * model's merge leaves out of a part is put back (llm-merge.ts): a merge never loses a part.
 */
async function reduceNotes(
  chat: ChatSettings,
  usage: ChatUsage,
  head: string,
  notes: PartNotes[],
  ctx: CheckContext,
  partChars: number,
): Promise<CheckedNotes> {
  let level = notes;
  while (level.length > 1) {
    const next: PartNotes[] = [];
    for (let i = 0; i < level.length;) {
      const group = [level[i++]];
      let size = renderNotes(group[0].notes, group[0].label).length;
      while (i < level.length) {
        const len = renderNotes(level[i].notes, level[i].label).length + 2;
        if (size + len > partChars) break;
        group.push(level[i++]);
        size += len;
      }
      // Notes too long to go with the next ones in one call are merged with them without the model,
      // so no call is over the budget and every round shortens the list.
      const plain = group.length === 1 && i < level.length;
      if (plain) group.push(level[i++]);
      if (group.length === 1) {
        next.push(group[0]);
        continue;
      }
      const last = group[group.length - 1];
      const label = `Parts ${partNumber(group[0].label, 'first')} to ${partNumber(last.label, 'last')} (sentences #${group[0].first} to #${last.last})`;
      const text = group.map((g) => renderNotes(g.notes, g.label)).join('\n\n');
      // Without the model, the merge is made from the parts' own notes, so every part weighs the same
      // however the rounds grouped them.
      const withoutModel = () => mergeNotes(group.flatMap((g) => g.leaves.map((l) => l.notes)));
      let merged: CheckedNotes;
      try {
        merged = plain
          ? withoutModel()
          : keepParts(await notesOf(chat, usage, REDUCE_PROMPT, `${head}\n\nNotes of the parts:\n${text}`, ctx), group);
      } catch (e) {
        if (!isUnusableAnswer(e)) throw e;
        merged = withoutModel();
      }
      next.push({
        label,
        first: group[0].first,
        last: last.last,
        notes: merged,
        leaves: group.flatMap((g) => g.leaves),
      });
    }
    level = next;
  }
  return level[0].notes;
}

function peopleOf(sentences: readonly Sentence[], options: SummarizeOptions): string[] {
  const names = new Map<string, string>();
  for (const n of [...sentences.map((s) => s.speaker_name), ...(options.participants ?? []).map((p) => p.name)]) {
    const name = n?.trim();
    if (name && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  }
  return [...names.values()];
}

export async function summarizeWithLlmRun(
  sentences: readonly Sentence[],
  options: SummarizeOptions,
  llm: LlmSettings,
): Promise<{ summary: Summary; run: LlmRun }> {
  const started = Date.now();
  const chat: ChatSettings = {
    url: llm.url,
    apiKey: llm.apiKey,
    model: llm.model,
    timeoutMs: llm.timeoutMs ?? LLM_DEFAULTS.timeoutMs,
    maxTokens: llm.maxTokens ?? LLM_DEFAULTS.maxTokens,
    fetchImpl: llm.fetchImpl,
  };
  const partChars = llm.partChars ?? LLM_DEFAULTS.partChars;
  const usage = newUsage();
  const people = peopleOf(sentences, options);
  const head = meetingHead(options, people);
  const whole: CheckContext = { sentences: new Map(sentences.map((s) => [s.index, s])), people };
  const parts = partsOf(sentences, partChars);

  let notes: CheckedNotes;
  if (parts.length <= 1) {
    const text = sentences.map(transcriptLine).join('\n');
    notes = await notesOf(chat, usage, SYSTEM_PROMPT, `${head}\n\nTranscript:\n${text}`, whole);
  } else {
    const partNotes: PartNotes[] = [];
    let lastError: unknown;
    for (const [i, part] of parts.entries()) {
      const ctx: CheckContext = { sentences: new Map(part.map((s) => [s.index, s])), people };
      const label = rangeLabel(part, i);
      const text = part.map(transcriptLine).join('\n');
      const user = `${head}\n\n${label} of ${parts.length} of the transcript:\n${text}`;
      try {
        const span = { first: part[0].index, last: part[part.length - 1].index };
        const notes = await notesOf(chat, usage, SYSTEM_PROMPT, user, ctx);
        partNotes.push({ label, ...span, notes, leaves: [{ ...span, notes }] });
      } catch (e) {
        // A part the model never answers usably leaves a gap the other parts and the fallback fill.
        if (!isUnusableAnswer(e)) throw e;
        lastError = e;
      }
    }
    if (!partNotes.length) throw lastError;
    notes = await reduceNotes(chat, usage, head, partNotes, whole, partChars);
  }

  // The built-in notes (with the embedding model, where one is given) only when a field needs them.
  const complete =
    notes.meeting_type !== undefined &&
    !!notes.short_summary &&
    [notes.overview, notes.topics, notes.keywords, notes.action_items, notes.outline].every((l) => l.length > 0);
  const extractive = complete ? undefined : await summarizeNotes(sentences, options);
  const { summary, fallback_fields, dropped_lines } = notesToSummary(notes, sentences, options, () => extractive!);
  return {
    summary,
    run: {
      model: llm.model,
      prompt_version: PROMPT_VERSION,
      duration_ms: Date.now() - started,
      calls: usage.calls,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      parts: parts.length,
      response_format: usage.response_format,
      fallback_fields,
      dropped_lines,
    },
  };
}

export async function summarizeWithLlm(
  sentences: readonly Sentence[],
  options: SummarizeOptions,
  llm: LlmSettings,
): Promise<Summary> {
  return (await summarizeWithLlmRun(sentences, options, llm)).summary;
}

export { LLM_SUMMARY_SCHEMA, PROMPT_VERSION };
