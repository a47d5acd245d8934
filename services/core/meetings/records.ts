/**
 * The public shapes of what tools and GraphQL return, with the field names of the best-known public
 * API of this kind (documented in docs/tools.md). Records are flat so TOON renders
 * lists as tables: participants are one comma-separated string.
 */
import type { Config } from '../../platform/config';

export interface MeetingRow {
  id: string;
  team_id: string;
  organizer_id: string | null;
  organizer_email: string;
  title: string;
  date: Date;
  duration_seconds: number;
  privacy: string;
  channel_id: string | null;
  status: string;
  failure_reason: string | null;
  is_live: boolean;
  live_state: string | null;
  meeting_link: string | null;
  meeting_type: string | null;
  client_reference_id: string | null;
}

/** The columns of a MeetingRow, for selects: `m.*` would also drag in the search vectors. */
export const MEETING_ROW_COLUMNS = [
  'id',
  'team_id',
  'organizer_id',
  'organizer_email',
  'title',
  'date',
  'duration_seconds',
  'privacy',
  'channel_id',
  'status',
  'failure_reason',
  'is_live',
  'live_state',
  'meeting_link',
  'meeting_type',
  'client_reference_id',
] as const satisfies readonly (keyof MeetingRow)[];

export const meetingColumns = (alias: string) => MEETING_ROW_COLUMNS.map((c) => `${alias}.${c}`);

export interface MeetingRecord {
  id: string;
  title: string;
  dateString: string;
  date: number;
  duration: number;
  organizer_email: string;
  participants: string;
  privacy: string;
  is_live: boolean;
  transcript_url: string;
}

/** The meeting page at a moment: transcript_url#t=<whole seconds>. */
export const momentLink = (transcriptUrl: string, startTime: number) =>
  `${transcriptUrl}#t=${Math.max(0, Math.floor(startTime))}`;

export function transcriptUrl(config: Pick<Config, 'publicBaseUrl'>, id: string): string {
  return `${config.publicBaseUrl}/meetings/${encodeURIComponent(id)}`;
}

/** Minutes with one decimal: what a person reads as a meeting's length. */
export const minutes = (seconds: number) => Math.round((seconds / 60) * 10) / 10;

/** `participants`: the emails as one comma-separated string (lists have PostgreSQL join them). */
export function toMeetingRecord(
  config: Pick<Config, 'publicBaseUrl'>,
  m: MeetingRow,
  participants: string,
): MeetingRecord {
  const date = new Date(m.date);
  return {
    id: m.id,
    title: m.title,
    dateString: date.toISOString(),
    date: date.getTime(),
    duration: minutes(Number(m.duration_seconds)),
    organizer_email: m.organizer_email,
    participants,
    privacy: m.privacy,
    is_live: m.is_live,
    transcript_url: transcriptUrl(config, m.id),
  };
}

/** Whether a list was cut: every list result carries this so a model never mistakes a page for the whole. */
export interface Page {
  has_more: boolean;
  next_skip?: number | null;
  next_cursor?: string | null;
}
