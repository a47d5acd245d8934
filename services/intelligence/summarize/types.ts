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
}

export interface OutlineSection {
  title: string;
  start_time: number;
  end_time: number;
  /** The sentence that best represents the section. */
  summary: string;
}

export type SummaryField =
  'keywords' | 'action_items' | 'overview' | 'short_summary' | 'topics_discussed' | 'meeting_type' | 'outline';

/** One row of `summaries` (without meeting_id). */
export interface Summary {
  keywords: string[];
  action_items: ActionItem[];
  overview: string;
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
  /** The meeting's language (a code like de); its stop words are kept out of keywords and topics. English when absent. */
  language?: string | null;
}
