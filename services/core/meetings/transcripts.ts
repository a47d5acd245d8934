/**
 * Reading one meeting: its transcript (paged by a token budget), its summary, or both at once.
 *
 * Every read is ONE SQL statement, and a statement sees one snapshot, so a live meeting whose sentences
 * keep arriving is answered as one consistent point-in-time snapshot (metadata, sentences and
 * analytics all from the same instant) in a single round-trip. A meeting that is still processing has
 * no readable transcript: no half-written transcript is ever shown.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import type { Principal } from '../access';
import { invalid } from '../../platform/errors';
import { estimateJsonTokens, estimateNumberTokens, estimateTextTokens } from '../limits';
import { MeetingRecord, MeetingRow, toMeetingRecord, transcriptUrl } from './records';
import { meetingInfo, type MeetingInfo, type SummaryStatus } from './meeting-info';
import { citeSummary } from './summary-citations';
import { readMeeting, type ReadRow, type SentenceRow } from './read-statement';

export type { SentenceRow } from './read-statement';

export type {
  InferredSpeakerInfo,
  MeetingInfo,
  ProcessingProgress,
  SummaryStatus,
  TranscribedBy,
} from './meeting-info';
import type { MeetingAnalytics, SpeakerAnalytics } from '../../intelligence';

// ---------------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------------

export interface SentenceRecord {
  index: number;
  speaker_name: string;
  speaker_id: number;
  text: string;
  /** The words before clean-up; null where they are the same as text and the reader asked for `rawText: 'when-different'`. */
  raw_text: string | null;
  start_time: number;
  end_time: number;
}

/** One speaker's conversation metrics; sentiments are three flat columns so TOON renders a table. */
/** A speaker's analytics as answered (the stored row; its email stays internal). */
export type SpeakerAnalyticsRecord = Omit<SpeakerAnalytics, 'email'>;

export type MeetingAnalyticsRecord = MeetingAnalytics;

export interface SummaryFields {
  keywords: string[];
  /** Each with the stored sentence `index`, `start_time`, `moments` and the `link` to its moment. */
  action_items: unknown[];
  overview: string;
  /** The overview line by line: `text`, the `index` and `start_time` of its moment, and its `link`. */
  overview_lines: unknown[];
  short_summary: string;
  topics_discussed: unknown[];
  meeting_type: string | null;
  outline: unknown[];
  /** Why a field is empty (field name → explanation); {} when every field has content. */
  notes: Record<string, string>;
}

export interface TranscriptPage extends MeetingRecord {
  status: string;
  meeting_info: MeetingInfo;
  meeting_analytics: MeetingAnalyticsRecord | null;
  analytics: SpeakerAnalyticsRecord[];
  sentences: SentenceRecord[];
  has_more: boolean;
  /** Pass as fromIndex to read on; null when this page reaches the end. */
  next_index: number | null;
}

export interface FullMeeting extends TranscriptPage {
  summary: SummaryFields | null;
}

export type SummaryResult =
  | ({ id: string; title: string; dateString: string; summary_status: 'processed' } & SummaryFields)
  | {
      id: string;
      title: string;
      dateString: string;
      summary_status: Exclude<SummaryStatus, 'processed'>;
      message: string;
    };

export interface PageOptions {
  /** First sentence index to return (default 0). */
  fromIndex?: number;
  /** Token budget of the page (default config.mcpMaxTranscriptTokens). */
  maxTokens?: number;
  /**
   * `always` (default): every sentence's raw_text. `when-different`: raw_text only where clean-up
   * changed the words, null elsewhere, so a reader that pays per token is not sent each sentence
   * twice (most sentences are never cleaned: captions and recognised speech are stored as said).
   */
  rawText?: 'always' | 'when-different';
  /**
   * The form the budget must hold for: `toon` (default) sizes the page by its TOON table; `json` by
   * its JSON, which repeats every key on every sentence. MCP answers carry the JSON form as
   * structuredContent, which some clients (Claude Code) show the model instead of the text.
   */
  budgetFor?: 'toon' | 'json';
}

/**
 * Bounds of a page's token budget. The maximum stays below what MCP clients accept from one tool
 * answer (Claude Code refuses answers over 25,000 tokens), with room for the estimate's error and for
 * tokenizers that count more than ours: a budget near the clients' limit was refused.
 */
export const TRANSCRIPT_TOKENS = { min: 500, max: 20_000 } as const;

// ---------------------------------------------------------------------------------------------------
// A sentence row's tokens (the rates are core/limits/tokens.ts's): pessimistic, so a page stays under its budget.
// ---------------------------------------------------------------------------------------------------

/** Indent, six delimiters and the line break of one rendered sentence row. */
const SENTENCE_ROW_STRUCTURE = 9;
/**
 * What a sentence costs more as a JSON object than as a TOON row: its seven quoted keys with colons,
 * braces and the quotes of its texts (a little more than a tokenizer counts: erring high).
 */
export const SENTENCE_JSON_EXTRA = 26;
/** The least a row can cost (empty texts, one-digit numbers): bounds how many rows a page can hold. */
const SENTENCE_ROW_MIN = SENTENCE_ROW_STRUCTURE + 4;

/** One sentence row; a text that needs quoting (commas, quotes) costs its two quotes more. */
export function estimateSentenceTokens(s: SentenceRecord): number {
  const numbers =
    estimateNumberTokens(s.index) +
    estimateNumberTokens(s.speaker_id) +
    estimateNumberTokens(s.start_time) +
    estimateNumberTokens(s.end_time);
  const texts =
    estimateTextTokens(s.speaker_name) +
    estimateTextTokens(s.text) +
    (s.raw_text === null ? 1 : estimateTextTokens(s.raw_text)) +
    2;
  return SENTENCE_ROW_STRUCTURE + numbers + texts;
}

/** Sentences are readable only once transcription finished, or live as a snapshot. */
const readable = (m: MeetingRow) => m.status === 'completed' || m.status === 'live' || m.is_live;

export const sentenceFromRow = (r: SentenceRow): SentenceRecord => ({
  index: r.idx,
  speaker_name: r.speaker_name,
  speaker_id: r.speaker_id,
  text: r.text,
  raw_text: r.raw_text,
  start_time: Number(r.start_time),
  end_time: Number(r.end_time),
});

/**
 * Rows a page may need: no row costs less than SENTENCE_ROW_MIN, so this many (+1 to see what
 * follows) always suffice for `budget`. Fetched with the whole maxTokens as budget (the envelope is not
 * known before the one statement runs), which is never fewer than the remaining budget needs.
 */
const sentenceCap = (budget: number) => Math.max(1, Math.floor(budget / SENTENCE_ROW_MIN)) + 1;

/**
 * Sentences from fromIndex while they fit the remaining budget. At least one sentence is returned
 * when any remains, so paging always moves forward even past one enormous sentence.
 */
function sentencePage(rows: SentenceRow[], budget: number, extraPerRow = 0) {
  const sentences: SentenceRecord[] = [];
  let used = 0;
  for (const row of rows) {
    const s = sentenceFromRow(row);
    const cost = estimateSentenceTokens(s) + extraPerRow;
    if (sentences.length > 0 && used + cost > budget) return { sentences, has_more: true, next_index: s.index };
    sentences.push(s);
    used += cost;
  }
  // Every fetched row fit, so they were all there are: the cap is more rows than the budget can hold.
  return { sentences, has_more: false, next_index: null };
}

function toSpeakerAnalytics(rows: SpeakerAnalyticsRecord[] | null | undefined): SpeakerAnalyticsRecord[] {
  return (rows ?? []).map((r) => ({
    speaker_id: r.speaker_id,
    name: r.name,
    duration: Number(r.duration),
    word_count: r.word_count,
    longest_monologue: Number(r.longest_monologue),
    monologues_count: r.monologues_count,
    filler_words: r.filler_words,
    questions: r.questions,
    duration_pct: Number(r.duration_pct),
    words_per_minute: Number(r.words_per_minute),
    positive_pct: Number(r.positive_pct),
    neutral_pct: Number(r.neutral_pct),
    negative_pct: Number(r.negative_pct),
  }));
}

function toMeetingAnalytics(r: MeetingAnalyticsRecord | null | undefined): MeetingAnalyticsRecord | null {
  if (!r) return null;
  return {
    duration_seconds: Number(r.duration_seconds),
    silence_seconds: Number(r.silence_seconds),
    talk_listen_ratio: r.talk_listen_ratio === null ? null : Number(r.talk_listen_ratio),
    positive_pct: Number(r.positive_pct),
    neutral_pct: Number(r.neutral_pct),
    negative_pct: Number(r.negative_pct),
  };
}

const EMPTY_NOTES: Record<Exclude<keyof SummaryFields, 'notes' | 'overview_lines'>, string> = {
  keywords: 'no keywords were extracted from this meeting',
  action_items: 'no action items were found in this meeting',
  overview: 'no overview was produced for this meeting',
  short_summary: 'no short summary was produced for this meeting',
  topics_discussed: 'no distinct topics were identified in this meeting',
  meeting_type: 'the meeting type could not be determined',
  outline: 'no outline was produced for this meeting',
};

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

function toSummary(m: ReadRow, transcriptUrl: string): SummaryFields | null {
  // Only a finished meeting has a summary worth reading (a stale row of a reprocessing meeting is not).
  const r = m.summary;
  if (m.status !== 'completed' || !r) return null;
  const fields = {
    keywords: asArray(r.keywords).map(String),
    action_items: asArray(r.action_items),
    overview: r.overview ?? '',
    overview_lines: asArray(r.overview_lines),
    short_summary: r.short_summary ?? '',
    topics_discussed: asArray(r.topics_discussed),
    meeting_type: r.meeting_type ?? m.meeting_type ?? null,
    outline: asArray(r.outline),
  };
  // Notes the summarizer stored win; every empty field without one gets a plain explanation.
  const notes: Record<string, string> = {};
  for (const [k, v] of Object.entries((r.notes ?? {}) as Record<string, unknown>))
    if (typeof v === 'string') notes[k] = v;
  for (const [k, v] of Object.entries(fields))
    if (k !== 'overview_lines' && isEmpty(v) && !notes[k]) notes[k] = EMPTY_NOTES[k as keyof typeof EMPTY_NOTES];
  return { ...citeSummary(fields, transcriptUrl), notes };
}

// ---------------------------------------------------------------------------------------------------
// Validation shared with the transports (they check the same limits in their schemas)
// ---------------------------------------------------------------------------------------------------

function requireMeetingId(field: string, id: string): string {
  const v = id.trim();
  if (!v) throw invalid(field, 'must not be empty', `${field} must not be empty`);
  return v;
}

function pageOptions(config: Pick<Config, 'mcpMaxTranscriptTokens'>, opts: PageOptions) {
  const fromIndex = opts.fromIndex ?? 0;
  if (!Number.isInteger(fromIndex) || fromIndex < 0)
    throw invalid(
      'fromIndex',
      'a whole number, 0 or more',
      `fromIndex must be a whole number, 0 or more; got ${fromIndex}`,
    );
  const { min, max } = TRANSCRIPT_TOKENS;
  const maxTokens = opts.maxTokens ?? Math.min(max, Math.max(min, config.mcpMaxTranscriptTokens));
  if (!Number.isInteger(maxTokens) || maxTokens < min || maxTokens > max) {
    throw invalid(
      'maxTokens',
      `a whole number from ${min} to ${max}`,
      `maxTokens must be a whole number from ${min} to ${max}; got ${maxTokens}`,
    );
  }
  return { fromIndex, maxTokens };
}

// ---------------------------------------------------------------------------------------------------
// The three reads
// ---------------------------------------------------------------------------------------------------

/** Metadata, analytics (and the summary when asked) plus the sentences that fit what the rest leaves of the budget. */
async function readPage(db: Knex, config: Config, p: Principal, id: string, opts: PageOptions, withSummary: boolean) {
  const { fromIndex, maxTokens } = pageOptions(config, opts);
  const page = { fromIndex, cap: sentenceCap(maxTokens), rawTextWhenDifferent: opts.rawText === 'when-different' };
  const m = await readMeeting(db, p, id, { summary: withSummary ? 'full' : 'exists', page });
  const summary = withSummary ? toSummary(m, transcriptUrl(config, m.id)) : null;
  const hasSummary = withSummary ? summary !== null : m.status === 'completed' && m.has_summary === true;
  const envelope = {
    ...toMeetingRecord(config, m, (m.participants ?? []).join(', ')),
    status: m.status,
    meeting_info: meetingInfo(m, hasSummary),
    ...(withSummary ? { summary } : {}),
    meeting_analytics: toMeetingAnalytics(m.meeting_analytics),
    analytics: toSpeakerAnalytics(m.analytics),
  };
  const sentences = readable(m)
    ? sentencePage(
        m.sentences ?? [],
        maxTokens - estimateJsonTokens(envelope),
        opts.budgetFor === 'json' ? SENTENCE_JSON_EXTRA : 0,
      )
    : { sentences: [], has_more: false, next_index: null };
  return { ...envelope, ...sentences };
}

/**
 * One meeting's transcript page: metadata, status, analytics and sentences from fromIndex within
 * the token budget (has_more/next_index for the rest). No summary. Not visible → object_not_found.
 */
export async function getTranscript(
  db: Knex,
  config: Config,
  p: Principal,
  id: string,
  opts: PageOptions = {},
): Promise<TranscriptPage> {
  const meetingId = requireMeetingId('transcriptId', id);
  return readPage(db, config, p, meetingId, opts, false);
}

/** Everything about one meeting: metadata, summary, analytics and the first sentences within the budget. */
export async function fetchMeeting(
  db: Knex,
  config: Config,
  p: Principal,
  id: string,
  opts: PageOptions = {},
): Promise<FullMeeting> {
  const meetingId = requireMeetingId('id', id);
  return (await readPage(db, config, p, meetingId, opts, true)) as FullMeeting;
}

/**
 * One meeting's summary, no transcript. When there is none (processing, failed, live, or never
 * produced) the answer says so with summary_status and a message rather than failing.
 */
export async function getSummary(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  id: string,
): Promise<SummaryResult> {
  const meetingId = requireMeetingId('transcriptId', id);
  const m = await readMeeting(db, p, meetingId, { summary: 'full' });
  const summary = toSummary(m, transcriptUrl(config, m.id));
  const head = { id: m.id, title: m.title, dateString: new Date(m.date).toISOString() };
  if (summary) return { ...head, summary_status: 'processed' as const, ...summary };
  const info = meetingInfo(m, false);
  return { ...head, summary_status: info.summary_status as Exclude<SummaryStatus, 'processed'>, message: info.message };
}
