import { z } from 'zod';
import { NetError } from '../../net/errors';
import { postToModelServer } from '../http-json';
import type { Sentence } from '../types';
import { citationAt } from './citations';
import { resolveDue } from './due-dates';
import { MEETING_TYPES, type SummarizeOptions, type Summary, type SummaryField } from './types';

/**
 * Summary by an OpenAI-compatible chat model (POST {LLM_URL}/v1/chat/completions), asked for JSON that
 * fits LLM_SUMMARY_SCHEMA through `response_format: json_schema` (strict), so the reply parses into
 * the same fields as the built-in summarizer.
 */
export interface LlmSettings {
  url: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  /** Transcript characters sent at most; longer meetings are cut and `notes.llm` says so. */
  maxTranscriptChars?: number;
  fetchImpl?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_CHARS = 120_000;

const nullableString = { type: ['string', 'null'] } as const;

/** JSON Schema in the subset strict mode accepts: every property required, no extra properties. */
export const LLM_SUMMARY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['keywords', 'action_items', 'overview', 'short_summary', 'topics_discussed', 'meeting_type', 'outline'],
  properties: {
    keywords: { type: 'array', items: { type: 'string' }, description: 'Up to 10 key terms of the meeting' },
    action_items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'assignee', 'due', 'start_time'],
        properties: {
          text: { type: 'string', description: 'The task, as one sentence' },
          assignee: { ...nullableString, description: 'Full name of the person who will do it, if said' },
          due: { ...nullableString, description: 'When it is due, as said ("Friday", "end of day"), if said' },
          start_time: { type: 'number', description: 'Seconds into the meeting where it was said' },
        },
      },
    },
    overview: { type: 'string', description: 'A paragraph summarizing the meeting' },
    short_summary: { type: 'string', description: 'One sentence' },
    topics_discussed: { type: 'array', items: { type: 'string' } },
    meeting_type: { type: 'string', enum: [...MEETING_TYPES] },
    outline: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'start_time'],
        properties: { title: { type: 'string' }, start_time: { type: 'number' } },
      },
    },
  },
} as const;

const reply = z.object({
  keywords: z.array(z.string()),
  action_items: z.array(
    z.object({ text: z.string(), assignee: z.string().nullable(), due: z.string().nullable(), start_time: z.number() }),
  ),
  overview: z.string(),
  short_summary: z.string(),
  topics_discussed: z.array(z.string()),
  meeting_type: z.enum(MEETING_TYPES),
  outline: z.array(z.object({ title: z.string(), start_time: z.number() })),
});

const completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
      }),
    )
    .min(1),
});

const SYSTEM_PROMPT = [
  'You summarize meeting transcripts. Each transcript line is "[start seconds] Speaker: text".',
  'Answer only with JSON matching the schema. Use only facts from the transcript.',
  'action_items: commitments or requests for work after the meeting, with the person who will do it and when, if said.',
  "outline: the meeting's sections in order, each with a short title and the start second of its first line.",
  `meeting_type: one of ${MEETING_TYPES.join(', ')}.`,
].join(' ');

function transcriptLines(sentences: readonly Sentence[], maxChars: number): { text: string; cut: boolean } {
  const lines: string[] = [];
  let size = 0;
  for (const s of sentences) {
    const line = `[${s.start_time.toFixed(1)}] ${s.speaker_name}: ${s.text}`;
    if (size + line.length + 1 > maxChars) return { text: lines.join('\n'), cut: true };
    lines.push(line);
    size += line.length + 1;
  }
  return { text: lines.join('\n'), cut: false };
}

function userPrompt(transcript: string, options: SummarizeOptions): string {
  const head = [
    options.title ? `Title: ${options.title}` : '',
    options.meetingDate ? `Date: ${options.meetingDate}` : '',
    options.participants?.length ? `Participants: ${options.participants.map((p) => p.name).join(', ')}` : '',
  ].filter(Boolean);
  return `${head.join('\n')}\n\nTranscript:\n${transcript}`;
}

/** Some servers wrap JSON in a Markdown fence even in JSON mode. */
function unfence(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return m ? m[1] : content;
}

export async function summarizeWithLlm(
  sentences: readonly Sentence[],
  options: SummarizeOptions,
  llm: LlmSettings,
): Promise<Summary> {
  const maxChars = llm.maxTranscriptChars ?? DEFAULT_MAX_CHARS;
  const { text, cut } = transcriptLines(sentences, maxChars);
  const body = {
    model: llm.model,
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(text, options) },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'meeting_summary', strict: true, schema: LLM_SUMMARY_SCHEMA },
    },
  };
  const raw = await postToModelServer('The chat model', llm, 'chat/completions', JSON.stringify(body), {
    timeoutMs: llm.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    headers: { 'content-type': 'application/json' },
    fetchImpl: llm.fetchImpl,
  });
  const parsed = completion.safeParse(raw);
  if (!parsed.success) throw badReply('the reply has no choices[0].message');
  const message = parsed.data.choices[0].message;
  if (message.refusal) throw badReply(`the model refused: ${message.refusal.slice(0, 200)}`);
  let json: unknown;
  try {
    json = JSON.parse(unfence(message.content ?? ''));
  } catch {
    throw badReply('the message content is not JSON');
  }
  const fields = reply.safeParse(json);
  if (!fields.success)
    throw badReply(
      `the JSON does not fit the summary schema (${fields.error.issues[0]?.path.join('.')}: ${fields.error.issues[0]?.message})`,
    );
  const summary = toSummary(fields.data, sentences, options);
  if (cut)
    summary.notes.llm = `the transcript is longer than ${maxChars} characters; the chat model saw only its beginning`;
  return summary;
}

function badReply(why: string): NetError {
  return new NetError(`The chat model at LLM_URL gave an unusable summary: ${why}`, {
    retryable: false,
    rule: 'upstream_format',
    code: 'internal_error',
  });
}

function toSummary(r: z.infer<typeof reply>, sentences: readonly Sentence[], options: SummarizeOptions): Summary {
  const end = sentences.reduce((t, s) => Math.max(t, s.end_time), 0);
  const clamp = (t: number) => Math.min(Math.max(0, t), end);
  const speakerAt = (t: number) => {
    let name = sentences[0]?.speaker_name ?? '';
    for (const s of sentences) {
      if (s.start_time > t + 0.5) break;
      name = s.speaker_name;
    }
    return name;
  };
  const outline = [...r.outline].sort((a, b) => a.start_time - b.start_time);
  const summary: Summary = {
    keywords: r.keywords.map((k) => k.trim()).filter(Boolean),
    action_items: r.action_items.map((a) => {
      const isoDate = a.due && /^\d{4}-\d{2}-\d{2}$/.test(a.due) ? a.due : null;
      const at = citationAt(sentences, clamp(a.start_time));
      return {
        text: a.text.trim(),
        assignee: a.assignee?.trim() || null,
        due: a.due?.trim() || null,
        due_date: isoDate ?? (a.due ? resolveDue(a.due, options.meetingDate) : null),
        speaker_name: speakerAt(clamp(a.start_time)),
        start_time: clamp(a.start_time),
        index: at.index,
        kind: 'commitment' as const,
        moments: [at],
      };
    }),
    overview: r.overview.trim(),
    overview_lines: r.overview.trim() ? [{ text: r.overview.trim(), ...citationAt(sentences, 0) }] : [],
    short_summary: r.short_summary.trim(),
    topics_discussed: r.topics_discussed.map((t) => t.trim()).filter(Boolean),
    meeting_type: r.meeting_type,
    outline: outline.map((o, i) => ({
      title: o.title.trim(),
      start_time: clamp(o.start_time),
      end_time: i + 1 < outline.length ? clamp(outline[i + 1].start_time) : end,
      summary: '',
      index: citationAt(sentences, clamp(o.start_time)).index,
    })),
    notes: {},
    source: 'llm',
  };
  const empty: [SummaryField, boolean][] = [
    ['keywords', summary.keywords.length === 0],
    ['action_items', summary.action_items.length === 0],
    ['overview', !summary.overview],
    ['short_summary', !summary.short_summary],
    ['topics_discussed', summary.topics_discussed.length === 0],
    ['outline', summary.outline.length === 0],
  ];
  for (const [field, isEmpty] of empty) if (isEmpty) summary.notes[field] = 'the chat model returned none';
  return summary;
}
