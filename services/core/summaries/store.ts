/**
 * Writing a meeting's summary again (a re-summary): the `summaries` row replaced, the action items
 * kept as records (what a person changed stays: action-items/store.ts), the meeting's type, and the
 * run, in one transaction. Only a completed meeting's summary is replaced: a meeting deleted or
 * re-processed meanwhile is left alone.
 */
import type { Knex } from 'knex';
import type { SummarizeOptions, Summary, SummaryRun } from '../../intelligence/summarize';
import type { Sentence } from '../../intelligence/types';
import { syncActionItems } from '../action-items';
import { audit } from '../audit';
import { noteMeetingSummarized } from '../webhooks';
import { recordSummaryRun } from './runs';

/** The `summaries` row of a summary (without dropping what a newer field may add). */
export function summaryRow(meetingId: string, s: Summary): Record<string, unknown> {
  return {
    meeting_id: meetingId,
    keywords: JSON.stringify(s.keywords),
    action_items: JSON.stringify(s.action_items),
    overview: s.overview,
    overview_lines: JSON.stringify(s.overview_lines ?? []),
    short_summary: s.short_summary,
    topics_discussed: JSON.stringify(s.topics_discussed),
    meeting_type: s.meeting_type,
    outline: JSON.stringify(s.outline),
    notes: JSON.stringify(s.notes ?? {}),
    source: s.source,
  };
}

/** What a summary of a stored meeting is made from: its sentences and what the summarizer is told. */
export interface StoredMeetingText {
  meetingId: string;
  teamId: string;
  status: string;
  sentences: Sentence[];
  options: SummarizeOptions;
}

export async function storedMeetingText(db: Knex, meetingId: string): Promise<StoredMeetingText | undefined> {
  const m = await db('meetings').where({ id: meetingId }).first('id', 'team_id', 'title', 'date', 'status');
  if (!m) return undefined;
  const sentences: Sentence[] = (
    await db('sentences')
      .where({ meeting_id: meetingId })
      .orderBy('idx')
      .select('idx', 'speaker_name', 'speaker_id', 'text', 'raw_text', 'start_time', 'end_time')
  ).map((s) => ({
    index: s.idx,
    speaker_name: s.speaker_name,
    speaker_id: s.speaker_id,
    text: s.text,
    raw_text: s.raw_text,
    start_time: Number(s.start_time),
    end_time: Number(s.end_time),
  }));
  const people: { email: string; name: string | null }[] = await db('meeting_participants')
    .where({ meeting_id: meetingId })
    .orderBy('email')
    .select('email', 'name');
  return {
    meetingId,
    teamId: m.team_id,
    status: m.status,
    sentences,
    options: {
      title: m.title,
      meetingDate: new Date(m.date).toISOString(),
      participants: people.map((p) => ({ name: p.name ?? p.email, email: p.email })),
    },
  };
}

export interface ReplacedSummary {
  replaced: boolean;
  runId: string | null;
  actionItems: { created: number; kept: number; removed: number };
}

export async function replaceSummary(
  db: Knex,
  input: {
    meetingId: string;
    summary: Summary;
    run: SummaryRun;
    requestedBy: string | null;
    /** Names this re-summary for its meeting.summarized event: the same on a retry, new for the next. */
    changeKey: string;
  },
): Promise<ReplacedSummary> {
  return db.transaction(async (tx) => {
    const m = await tx('meetings').where({ id: input.meetingId }).forUpdate().first('id', 'team_id', 'date', 'status');
    if (!m || m.status !== 'completed')
      return { replaced: false, runId: null, actionItems: { created: 0, kept: 0, removed: 0 } };
    const sentences = (
      await tx('sentences').where({ meeting_id: m.id }).orderBy('idx').select('idx', 'speaker_name', 'start_time')
    ).map((s) => ({ index: s.idx, speaker_name: s.speaker_name, start_time: Number(s.start_time) }));
    await tx('summaries').where({ meeting_id: m.id }).delete();
    await tx('summaries').insert(summaryRow(m.id, input.summary));
    const emails = new Map<string, string>();
    for (const p of await tx('meeting_participants').where({ meeting_id: m.id }).select('email', 'name'))
      if (p.name) emails.set(String(p.name).toLowerCase(), String(p.email).toLowerCase());
    const synced = await syncActionItems(tx, {
      meetingId: m.id,
      teamId: m.team_id,
      meetingDate: m.date,
      items: input.summary.action_items,
      sentences,
      emails,
    });
    await tx('meetings')
      .where({ id: m.id })
      .update({ meeting_type: input.summary.meeting_type, updated_at: tx.fn.now() });
    const runId = await recordSummaryRun(tx, {
      meetingId: m.id,
      teamId: m.team_id,
      trigger: 'resummary',
      requestedBy: input.requestedBy,
      run: input.run,
    });
    // Subscribers of meeting.summarized hear of the new notes, once for this re-summary.
    await noteMeetingSummarized(tx, m.id, input.changeKey);
    await audit(
      tx,
      null,
      'meeting.resummarized',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      {
        source: input.summary.source,
        requested_by: input.requestedBy,
        action_items: { created: synced.created.length, kept: synced.kept, removed: synced.removed },
      },
    );
    return {
      replaced: true,
      runId,
      actionItems: { created: synced.created.length, kept: synced.kept, removed: synced.removed },
    };
  });
}
