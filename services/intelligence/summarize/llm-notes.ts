import { z } from 'zod';
import type { Sentence } from '../types';
import { STOPWORDS } from './stopwords';
import { MEETING_TYPES, type MeetingType, type SummarizeOptions } from './types';

/**
 * What the chat model is asked for, and how its answer is checked against the transcript before any
 * of it is believed. Every transcript line is shown with its sentence number (`#12`); every line of
 * the notes cites the numbers it rests on. A cited number that is not a sentence of the part shown,
 * a line that shares no word with the sentences it cites, or an owner who is neither a speaker nor a
 * participant is a problem: the model is told and asked once more, and what still fails is dropped.
 */

/** Changes whenever the prompt or the schema changes; recorded with every run (summary_runs). */
export const PROMPT_VERSION = 'notes-3';

const ACTION_KINDS = ['commitment', 'request', 'offer'] as const;
export type LlmActionKind = (typeof ACTION_KINDS)[number];

/** Bounded strings: a model that repeats itself inside a string stops at the schema, not at the token limit. */
const bounded = (maxLength: number, description?: string) =>
  ({ type: 'string', maxLength, ...(description ? { description } : {}) }) as const;
const nullableText = (maxLength: number, description: string) =>
  ({ type: ['string', 'null'], maxLength, description }) as const;

const sentenceRefs = {
  type: 'array',
  items: { type: 'integer' },
  minItems: 1,
  maxItems: 4,
  description: 'Numbers (#) of the transcript sentences this line rests on',
} as const;

/** Lines at most per list: bounds the answer, so a looping model stops at the schema. */
export const LIMITS = { overview: 5, topics: 8, keywords: 10, action_items: 20, outline: 12 } as const;

/** JSON Schema in the subset strict mode and llama.cpp's grammars accept: every property required. */
export const LLM_SUMMARY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['meeting_type', 'short_summary', 'overview', 'topics', 'keywords', 'action_items', 'outline'],
  properties: {
    meeting_type: { type: 'string', enum: [...MEETING_TYPES] },
    short_summary: bounded(300, 'One sentence'),
    overview: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.overview,
      description: 'What was decided and what is next, one line each',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'sentences'],
        properties: { text: bounded(300), sentences: sentenceRefs },
      },
    },
    topics: { type: 'array', minItems: 1, maxItems: LIMITS.topics, items: bounded(80) },
    keywords: { type: 'array', minItems: 1, maxItems: LIMITS.keywords, items: bounded(60) },
    action_items: {
      type: 'array',
      maxItems: LIMITS.action_items,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'kind', 'owner', 'due', 'sentences'],
        properties: {
          text: bounded(300, 'The task, as one sentence'),
          kind: { type: 'string', enum: [...ACTION_KINDS] },
          owner: nullableText(100, 'Name of the person who will do it, as in the transcript'),
          due: nullableText(60, 'When, as said ("Friday"), or null'),
          sentences: sentenceRefs,
        },
      },
    },
    outline: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.outline,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'sentence'],
        properties: {
          title: bounded(100),
          sentence: { type: 'integer', description: "Number (#) of the section's first sentence" },
        },
      },
    },
  },
} as const;

/**
 * The answer's shape, shown to the model: a server constrains the answer to the schema without
 * showing it, and a small model held to a grammar it cannot see closes every list at once.
 */
const EXAMPLE = JSON.stringify({
  meeting_type: 'planning',
  short_summary: 'The team planned the launch.',
  overview: [{ text: 'The launch moves to March.', sentences: [4, 5] }],
  topics: ['Launch date'],
  keywords: ['launch'],
  action_items: [
    { text: 'Send the launch plan to sales', kind: 'commitment', owner: 'Ana Lima', due: 'Friday', sentences: [7] },
  ],
  outline: [{ title: 'Launch date', sentence: 0 }],
});

export const SYSTEM_PROMPT = [
  'You write the notes of a meeting from its transcript. Each transcript line is "#number [time] Speaker: text".',
  'Answer only with JSON that fits the schema. Use only what the transcript says.',
  'Every overview line and action item cites the numbers of the sentences it rests on, in "sentences".',
  'overview: a few lines that say what was decided and what is next; never small talk.',
  'topics: what the conversation is about, a few words each; never greetings, weather or pleasantries.',
  'action_items: one per piece of work promised or asked for after the meeting (a repeat of it is the same item):',
  'commitment (the speaker will do it), request (someone is asked), offer (the speaker offers);',
  'owner: the name of who will do it, exactly as a speaker or participant is named, or null. A concern is not an item.',
  "outline: the meeting's sections in order, each a short title and the number of its first sentence.",
  `meeting_type: one of ${MEETING_TYPES.join(', ')}.`,
  `An answer has this shape (its content is only an example): ${EXAMPLE}`,
].join(' ');

export const REDUCE_PROMPT = [
  'You write the notes of a whole meeting from the notes of its consecutive parts.',
  'Answer only with JSON that fits the schema. Merge what the parts repeat into one line or item,',
  'keep the sentence numbers the part notes cite (never invent one), and keep the outline in order.',
  'An item repeated in several parts cites the sentences of each.',
  'Topics, overview and outline cover every part, the last as well as the first.',
  `meeting_type: one of ${MEETING_TYPES.join(', ')}, judged from the whole meeting.`,
  `An answer has this shape (its content is only an example): ${EXAMPLE}`,
].join(' ');

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

export function transcriptLine(s: Sentence): string {
  return `#${s.index} [${clock(s.start_time)}] ${s.speaker_name}: ${s.text}`;
}

/** Consecutive runs of sentences whose lines fit in `maxChars` each (a single longer line is a part alone). */
export function partsOf(sentences: readonly Sentence[], maxChars: number): Sentence[][] {
  const parts: Sentence[][] = [];
  let part: Sentence[] = [];
  let size = 0;
  for (const s of sentences) {
    const len = transcriptLine(s).length + 1;
    if (part.length && size + len > maxChars) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(s);
    size += len;
  }
  if (part.length) parts.push(part);
  return parts;
}

export function meetingHead(options: SummarizeOptions, people: readonly string[]): string {
  return [
    options.title ? `Title: ${options.title}` : '',
    options.meetingDate ? `Date: ${options.meetingDate}` : '',
    people.length ? `People: ${people.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

// ------------------------------------------------------------------------------------------------
// The answer, field by field: a field that does not fit fails alone.
// ------------------------------------------------------------------------------------------------

export interface NotesLine {
  text: string;
  cites: number[];
}
export interface NotesItem extends NotesLine {
  kind: LlmActionKind;
  owner: string | null;
  due: string | null;
}
export interface NotesSection {
  title: string;
  cite: number;
}

/** The fields of notes the transcript bears out; `failed` names the fields the model did not give usably. */
export interface CheckedNotes {
  meeting_type?: MeetingType;
  short_summary?: string;
  overview: NotesLine[];
  topics: string[];
  keywords: string[];
  action_items: NotesItem[];
  outline: NotesSection[];
  failed: Partial<Record<NotesField, string>>;
  /** What was wrong with the lines, in words the model is shown when asked again. */
  problems: string[];
  /** Owners the model named who are neither speakers nor participants (left out of their items). */
  unknown_owners: string[];
  /** Lines dropped for a citation that does not hold, by field. */
  dropped: Partial<Record<NotesField, number>>;
}

export type NotesField =
  'meeting_type' | 'short_summary' | 'overview' | 'topics' | 'keywords' | 'action_items' | 'outline';

const refs = z.array(z.number().int()).min(1);
const FIELDS = {
  meeting_type: z.enum(MEETING_TYPES),
  short_summary: z.string(),
  overview: z.array(z.object({ text: z.string(), sentences: refs })),
  topics: z.array(z.string()),
  keywords: z.array(z.string()),
  action_items: z.array(
    z.object({
      text: z.string(),
      kind: z.enum(ACTION_KINDS),
      owner: z.string().nullable(),
      due: z.string().nullable(),
      sentences: refs,
    }),
  ),
  outline: z.array(z.object({ title: z.string(), sentence: z.number().int() })),
};

export interface CheckContext {
  /** Sentences a citation may name (the part shown, or the whole meeting for the notes of parts). */
  sentences: ReadonlyMap<number, Sentence>;
  /** Speakers and participants, by their names as the meeting has them. */
  people: readonly string[];
}

/**
 * Words that carry meaning, folded; a line "holds" when it shares one with what it cites, or, when
 * it has none, one of its plain words.
 */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w));
}

/**
 * Words of three letters or more but the commonest: a promise is often all common words ("I'll send
 * it by Friday"), which the topic stopwords leave none of.
 */
const FUNCTION_WORDS = new Set(
  "the and you your for that this with but are was were will i'll i've i'm it's not have has had can yes yeah okay sure".split(
    ' ',
  ),
);
function plainWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => w.length >= 3 && !FUNCTION_WORDS.has(w));
}

export function shareWord(a: readonly string[], b: readonly string[]): boolean {
  for (const x of a)
    for (const y of b) {
      let p = 0;
      while (p < x.length && p < y.length && x[p] === y[p]) p++;
      // The same word, or a shared stem of four letters or more: "sends" and "send", "pricing" and "price".
      if (p === x.length && p === y.length) return true;
      if (p >= 4 && p >= Math.min(x.length, y.length) - 2) return true;
    }
  return false;
}

/** The person a name stands for: the same full name, or a unique first or last name of one person. */
export function personNamed(name: string, people: readonly string[]): string | null {
  const want = name.trim().toLowerCase();
  if (!want) return null;
  const full = people.find((p) => p.toLowerCase() === want);
  if (full) return full;
  const byPart = people.filter((p) => p.toLowerCase().split(/\s+/).includes(want));
  return byPart.length === 1 ? byPart[0] : null;
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

export function checkNotes(json: unknown, ctx: CheckContext): CheckedNotes {
  const obj = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  const out: CheckedNotes = {
    overview: [],
    topics: [],
    keywords: [],
    action_items: [],
    outline: [],
    failed: {},
    problems: [],
    unknown_owners: [],
    dropped: {},
  };
  const drop = (name: NotesField) => (out.dropped[name] = (out.dropped[name] ?? 0) + 1);
  const field = <K extends NotesField>(name: K): z.infer<(typeof FIELDS)[K]> | undefined => {
    const r = FIELDS[name].safeParse(obj[name]);
    if (r.success) return r.data as z.infer<(typeof FIELDS)[K]>;
    const issue = r.error.issues[0];
    const why = `${[name, ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? 'does not fit the schema'}`;
    out.failed[name] = `the answer's ${why}`;
    out.problems.push(`${why}.`);
    return undefined;
  };

  /** The cited numbers that are sentences shown, in order; a problem for each that is not. */
  const cited = (what: string, text: string, numbers: readonly number[]): number[] | null => {
    const known = [...new Set(numbers)].filter((n) => ctx.sentences.has(n)).sort((a, b) => a - b);
    const unknown = numbers.filter((n) => !ctx.sentences.has(n));
    if (unknown.length)
      out.problems.push(
        `${what} ${quote(text)} cites #${unknown.join(', #')}, not a sentence of the transcript shown.`,
      );
    if (!known.length) return null;
    const said = known.map((n) => `${ctx.sentences.get(n)!.speaker_name} ${ctx.sentences.get(n)!.text}`).join(' ');
    if (!shareWord(contentWords(text), contentWords(said)) && !shareWord(plainWords(text), plainWords(said))) {
      out.problems.push(`${what} ${quote(text)} says nothing that sentence #${known.join(', #')} says.`);
      return null;
    }
    return known;
  };

  out.meeting_type = field('meeting_type');
  const short = field('short_summary')?.trim();
  if (short) out.short_summary = short;
  out.topics = (field('topics') ?? [])
    .map((t) => t.trim())
    .filter(Boolean)
    .slice(0, LIMITS.topics);
  out.keywords = (field('keywords') ?? [])
    .map((t) => t.trim())
    .filter(Boolean)
    .slice(0, LIMITS.keywords);

  for (const line of (field('overview') ?? []).slice(0, LIMITS.overview)) {
    const text = line.text.trim();
    const cites = text ? cited('The overview line', text, line.sentences) : null;
    if (cites) out.overview.push({ text, cites });
    else drop('overview');
  }

  const seen = new Set<number>();
  for (const item of (field('action_items') ?? []).slice(0, LIMITS.action_items)) {
    const text = item.text.trim();
    const cites = text ? cited('The action item', text, item.sentences) : null;
    if (!cites) {
      drop('action_items');
      continue;
    }
    let owner: string | null = null;
    if (item.owner?.trim()) {
      owner = personNamed(item.owner, ctx.people);
      if (!owner) out.unknown_owners.push(item.owner.trim());
      if (!owner)
        out.problems.push(
          `The action item ${quote(text)} names the owner ${quote(item.owner.trim())}, who is neither a speaker nor a participant.`,
        );
    }
    // One item per commitment: a repeat citing the same first sentence is the same item.
    if (seen.has(cites[0])) continue;
    seen.add(cites[0]);
    out.action_items.push({ text, cites, kind: item.kind, owner, due: item.due?.trim() || null });
  }

  const starts = new Set<number>();
  for (const section of (field('outline') ?? []).slice(0, LIMITS.outline)) {
    const title = section.title.trim();
    if (!title) continue;
    if (!ctx.sentences.has(section.sentence)) {
      out.problems.push(`The outline section ${quote(title)} starts at #${section.sentence}, not a sentence shown.`);
      drop('outline');
      continue;
    }
    if (starts.has(section.sentence)) continue;
    starts.add(section.sentence);
    out.outline.push({ title, cite: section.sentence });
  }
  out.outline.sort((a, b) => a.cite - b.cite);
  return out;
}

/** The notes of a part as text for the call that writes the whole meeting's notes. */
export function renderNotes(n: CheckedNotes, label: string): string {
  const refsOf = (cites: readonly number[]) => `[#${cites.join(', #')}]`;
  return [
    `${label}:`,
    n.meeting_type ? `type: ${n.meeting_type}` : '',
    n.short_summary ? `summary: ${n.short_summary}` : '',
    ...n.overview.map((l) => `overview: ${l.text} ${refsOf(l.cites)}`),
    n.topics.length ? `topics: ${n.topics.join('; ')}` : '',
    n.keywords.length ? `keywords: ${n.keywords.join('; ')}` : '',
    ...n.action_items.map(
      (a) =>
        `action item (${a.kind}${a.owner ? `, owner ${a.owner}` : ''}${a.due ? `, due ${a.due}` : ''}): ${a.text} ${refsOf(a.cites)}`,
    ),
    ...n.outline.map((o) => `section: ${o.title} [#${o.cite}]`),
  ]
    .filter(Boolean)
    .join('\n');
}
