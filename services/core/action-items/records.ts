/**
 * The shapes of action items as tools, GraphQL and pages answer them: flat records (TOON renders a
 * list of them as a table), each carrying the moment it was said (meeting, sentence index, start time
 * and the meeting page's `#t=` link) so an answer can cite it.
 */
import type { Config } from '../../platform/config';
import { transcriptUrl } from '../meetings';

export const ACTION_ITEM_STATUSES = ['open', 'done'] as const;
export type ActionItemStatus = (typeof ACTION_ITEM_STATUSES)[number];

export interface ActionItemRow {
  id: string;
  team_id: string;
  meeting_id: string;
  meeting_date: Date;
  item_key: string;
  text: string;
  sentence_index: number;
  start_time: number;
  speaker_name: string | null;
  owner_name: string | null;
  owner_email: string | null;
  due_phrase: string | null;
  due_date: string | null;
  status: ActionItemStatus;
  status_set_by: string | null;
  owner_set_by: string | null;
  due_set_by: string | null;
}

export interface ActionItemRecord {
  id: string;
  meeting_id: string;
  meeting_title: string;
  /** The meeting's start, ISO 8601 (UTC). */
  meeting_date: string;
  text: string;
  owner_name: string | null;
  owner_email: string | null;
  /** The deadline as said ("Friday"), null when none was said. */
  due: string | null;
  /** YYYY-MM-DD: as said, counted from the meeting's date, or as a person set it. */
  due_date: string | null;
  status: ActionItemStatus;
  sentence_index: number;
  /** Seconds from the start of the meeting. */
  start_time: number;
  /** The meeting page at the moment it was said. */
  link: string;
}

/** The item's words as a list shows them: at most this many characters, cut with "…". */
export const ACTION_ITEM_TEXT_MAX = 500;

const cut = (s: string) =>
  [...s].length > ACTION_ITEM_TEXT_MAX ? [...s].slice(0, ACTION_ITEM_TEXT_MAX - 1).join('') + '…' : s;

/** YYYY-MM-DD of a `date` column, whichever type the driver answered. */
export function dayOf(v: string | Date | null): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date)
    return `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}`;
  return String(v).slice(0, 10);
}

export function momentLink(config: Pick<Config, 'publicBaseUrl'>, meetingId: string, startTime: number): string {
  return `${transcriptUrl(config, meetingId)}#t=${Math.floor(startTime)}`;
}

export function toActionItemRecord(
  config: Pick<Config, 'publicBaseUrl'>,
  r: ActionItemRow & { meeting_title: string },
): ActionItemRecord {
  return {
    id: r.id,
    meeting_id: r.meeting_id,
    meeting_title: r.meeting_title,
    meeting_date: new Date(r.meeting_date).toISOString(),
    text: cut(r.text),
    owner_name: r.owner_name,
    owner_email: r.owner_email,
    due: r.due_phrase,
    due_date: dayOf(r.due_date),
    status: r.status,
    sentence_index: r.sentence_index,
    start_time: Number(r.start_time),
    link: momentLink(config, r.meeting_id, Number(r.start_time)),
  };
}
