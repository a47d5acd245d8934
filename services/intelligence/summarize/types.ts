/** Meeting types the summarizer tells apart; `general` when no type's cue words stand out. */
export const MEETING_TYPES = [
  'standup',
  'sales',
  'interview',
  'planning',
  'one_on_one',
  'retrospective',
  'demo',
  'general',
] as const;
export type MeetingType = (typeof MEETING_TYPES)[number];

/** A sentence of the stored transcript that a line of the notes rests on (index as in sentences.idx). */
export interface Citation {
  index: number;
  start_time: number;
}

/** Who takes the work on: the speaker promising it, someone asked to do it, or the speaker offering it. */
export type ActionItemKind = 'commitment' | 'request' | 'offer';

export interface ActionItem {
  /** The sentence that makes the commitment or request. */
  text: string;
  /** Who is to do it: the named person where the words say so, else the speaker (or the person asked). */
  assignee: string | null;
  /** When, as said ("Friday", "end of day", "November 3"); null when the words give no time. */
  due: string | null;
  /** `due` as a calendar date (YYYY-MM-DD) when the meeting date is known and the phrase is a date. */
  due_date: string | null;
  speaker_name: string;
  start_time: number;
  /** The stored sentence that states it. */
  index: number;
  kind: ActionItemKind;
  /** Every moment that states or repeats it, in time order; the first is the item's own. */
  moments: Citation[];
}

export interface OutlineSection {
  title: string;
  start_time: number;
  end_time: number;
  /** The sentence that best represents the section. */
  summary: string;
  /** The stored sentence `summary` is. */
  index: number;
}

/** A line of the overview and the moment it rests on. */
export interface OverviewLine {
  text: string;
  index: number;
  start_time: number;
}

export type SummaryField =
  'keywords' | 'action_items' | 'overview' | 'short_summary' | 'topics_discussed' | 'meeting_type' | 'outline';

/** One row of `summaries` (without meeting_id). */
export interface Summary {
  keywords: string[];
  action_items: ActionItem[];
  /** The overview's lines joined by newlines; kept for readers of the plain text. */
  overview: string;
  /** The overview line by line, each citing its moment. */
  overview_lines: OverviewLine[];
  short_summary: string;
  topics_discussed: string[];
  meeting_type: MeetingType;
  outline: OutlineSection[];
  /** Why a field is empty or how it was decided, by field name; `llm` when the chat model failed. */
  notes: Partial<Record<SummaryField | 'llm', string>>;
  source: 'extractive' | 'llm';
}

export interface SummarizeOptions {
  title?: string;
  /** ISO date or date-time of the meeting; lets "by Friday" become a calendar date. */
  meetingDate?: string;
  /** People invited; their names help find who an action item is for. */
  participants?: { name: string; email?: string }[];
  /**
   * The embedding model, when one is loaded: the extractive notes then segment topics and match
   * repeated commitments by meaning (summarizeNotes). Without it, or when it fails, words are compared.
   */
  embedder?: SentenceEmbedder | null;
}

/** What the notes need of an embedding model: unit vectors, one per text. */
export interface SentenceEmbedder {
  embedPassages(texts: string[]): Promise<Float32Array[]>;
}
