/**
 * Persisting what the transcription pipeline produced, and the two other writes the pipeline makes
 * to a meeting: charging the owner's minutes once, and ending a run as `failed`.
 *
 * A transcript becomes readable all at once: sentences, participants, summary and analytics are
 * written in ONE transaction that first removes whatever an earlier attempt wrote, and the same
 * transaction flips the meeting to `completed`. A retried persist therefore never duplicates rows,
 * and a reader never sees half a transcript.
 */
import type { Knex } from 'knex';
import type { Analytics } from '../../intelligence/analytics';
import type { Summary, SummaryRun } from '../../intelligence/summarize';
import type { Sentence } from '../../intelligence/types';
import { audit } from '../audit';
import { notFound } from '../../platform/errors';
import type { Attendee, UploadOptions } from '../uploads';
import type { MeetingRow } from '../meetings';
import { syncActionItems } from '../action-items';
import { recordDetectedLanguage } from '../languages';
import { profileEmails } from '../voiceprints';
import { recordSummaryRun, summaryRow } from '../summaries';

/** What the pipeline hands over for one meeting. */
export interface ProcessedTranscript {
  meetingId: string;
  sentences: Sentence[];
  /** Length of the recording in seconds (media duration, else the end of the last sentence). */
  durationSeconds: number;
  analytics: Analytics;
  summary: Summary;
  /** What the summary took (recorded in summary_runs); absent from a run staged before it was recorded. */
  summaryRun?: SummaryRun;
  /** What made this transcript: an upload's transcription (the default) or a live meeting's end. */
  trigger?: 'transcription' | 'live';
}

export interface PersistResult {
  sentences: number;
  speakers: number;
  participants: number;
}

/** The meeting as the pipeline needs it: owner, title, date, attendees and options. */
export interface IngestMeeting extends Pick<
  MeetingRow,
  'id' | 'team_id' | 'organizer_id' | 'organizer_email' | 'title' | 'date' | 'status'
> {
  custom_language: string | null;
  /** The meeting's language, given or detected (null: not known, taken as English). */
  language: string | null;
  /** The language the speech engine detected (meetings.detected_language), when none was given. */
  detected_language: string | null;
  upload_options: UploadOptions;
}

/**
 * The transcript's sentences in one statement, whatever their number: a column an array, so no
 * limit on bind parameters splits it. The sentences' statement triggers then build the meeting's
 * lexeme sets and best moments once (best_moments rebuilds a meeting whole: in batches of 1,000, a
 * 20,000-sentence meeting would rebuild 20 times over a growing transcript).
 */
const INSERT_SENTENCES =
  'insert into sentences (meeting_id, idx, speaker_name, speaker_id, text, raw_text, start_time, end_time)' +
  ' select ?, * from unnest(?::int[], ?::text[], ?::int[], ?::text[], ?::text[], ?::float8[], ?::float8[])';
const REASON_MAX = 500;

/**
 * Keep the language detected for a meeting's speech; the first one stored stays (two chunks detecting
 * at once on two workers agree on the first). It becomes the meeting's language too, unless one was
 * given, so its words are indexed and summarised as that language. Returns the meeting's detected
 * language after the write.
 */
export async function keepDetectedLanguage(db: Knex, meetingId: string, language: string): Promise<string> {
  await db('meetings').where({ id: meetingId }).whereNull('detected_language').update({ detected_language: language });
  const row = await db('meetings').where({ id: meetingId }).first('detected_language');
  const kept: string = row?.detected_language ?? language;
  await recordDetectedLanguage(db, meetingId, kept);
  return kept;
}

export async function loadIngestMeeting(db: Knex, meetingId: string): Promise<IngestMeeting | undefined> {
  const row = await db('meetings')
    .where({ id: meetingId })
    .first(
      'id',
      'team_id',
      'organizer_id',
      'organizer_email',
      'title',
      'date',
      'status',
      'custom_language',
      'language',
      'detected_language',
      'upload_options',
    );
  if (!row) return undefined;
  return {
    ...row,
    upload_options: {
      attendees: [],
      save_video: false,
      bypass_size_check: false,
      request_hash: '',
      ...(row.upload_options ?? {}),
    },
  };
}

/**
 * Speaker name → email, from the upload's attendees first (their display names), then from users of
 * the team whose name is unique in the team. Case-insensitive; unmatched speakers stay without email.
 */
export async function speakerEmails(
  db: Knex,
  teamId: string,
  speakerNames: string[],
  attendees: Attendee[],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const wanted = new Map(speakerNames.map((n) => [n.trim().toLowerCase(), n]));
  for (const a of attendees) {
    const name = a.displayName?.trim().toLowerCase();
    if (name && wanted.has(name) && !out[wanted.get(name)!]) out[wanted.get(name)!] = a.email;
  }
  const missing = [...wanted.keys()].filter((k) => !out[wanted.get(k)!]);
  if (missing.length) {
    const users: { key: string; email: string; n: string }[] = await db('users')
      .where({ team_id: teamId })
      .whereRaw('lower(name) = any(?)', [missing])
      .groupByRaw('lower(name)')
      .select(db.raw('lower(name) as key'), db.raw('min(lower(email)) as email'), db.raw('count(*) as n'));
    for (const u of users) if (Number(u.n) === 1) out[wanted.get(u.key)!] = u.email;
  }
  return out;
}

/** Everyone the meeting is about: the organizer, the attendees, and every speaker with a known email. */
function participantsOf(m: IngestMeeting, speakerNames: string[], emails: Record<string, string>) {
  const people = new Map<string, string | null>();
  people.set(m.organizer_email.toLowerCase(), null);
  for (const a of m.upload_options.attendees ?? []) if (!people.get(a.email)) people.set(a.email, a.displayName);
  for (const name of speakerNames) {
    const email = emails[name]?.toLowerCase();
    if (email && !people.get(email)) people.set(email, name);
  }
  return [...people.entries()].map(([email, name]) => ({ email, name }));
}

/** Replace the meeting's transcript with `t` and mark it completed, in one transaction. */
export async function persistTranscript(db: Knex, t: ProcessedTranscript): Promise<PersistResult> {
  return db.transaction(async (tx) => {
    // The row lock serialises two attempts of one persist (a retry racing a slow first attempt).
    const locked = await tx('meetings').where({ id: t.meetingId }).forUpdate().first('id');
    if (!locked) throw notFound('meeting', t.meetingId);
    const m = (await loadIngestMeeting(tx, t.meetingId))!;

    for (const table of [
      'sentences',
      'summaries',
      'meeting_analytics',
      'speaker_analytics',
      'meeting_participants',
      'transcript_chunks',
      // The vectors of the transcript being replaced go with it (passage and sentence vectors cascade).
      'meeting_embeddings',
    ]) {
      await tx(table).where({ meeting_id: t.meetingId }).delete();
    }

    const sentences = t.sentences;
    await tx.raw(INSERT_SENTENCES, [
      t.meetingId,
      sentences.map((s) => s.index),
      sentences.map((s) => s.speaker_name),
      sentences.map((s) => s.speaker_id),
      sentences.map((s) => s.text),
      sentences.map((s) => s.raw_text),
      sentences.map((s) => s.start_time),
      sentences.map((s) => s.end_time),
    ]);

    const speakerNames = [...new Set(sentences.map((s) => s.speaker_name))];
    // Speakers voiceprints named take their profile's email where the attendees and users give none.
    const emails = {
      ...(await profileEmails(tx, t.meetingId)),
      ...(await speakerEmails(tx, m.team_id, speakerNames, m.upload_options.attendees ?? [])),
    };
    const people = participantsOf(m, speakerNames, emails);
    const users: { id: string; email: string }[] = await tx('users')
      .where({ team_id: m.team_id })
      .whereRaw('lower(email) = any(?)', [people.map((x) => x.email)])
      .select('id', tx.raw('lower(email) as email'));
    const userIds = new Map(users.map((u) => [u.email, u.id]));
    await tx('meeting_participants').insert(
      people.map((x) => ({
        meeting_id: t.meetingId,
        email: x.email,
        name: x.name,
        user_id: userIds.get(x.email) ?? null,
      })),
    );

    const s = t.summary;
    await tx('summaries').insert(summaryRow(t.meetingId, s));
    if (t.summaryRun)
      await recordSummaryRun(tx, {
        meetingId: t.meetingId,
        teamId: m.team_id,
        trigger: t.trigger ?? 'transcription',
        run: t.summaryRun,
      });

    // The summary's items kept as records: found again on a re-run, what a person set left as set.
    const emailByName = new Map<string, string>();
    for (const x of people) if (x.name) emailByName.set(x.name.toLowerCase(), x.email);
    for (const [name, email] of Object.entries(emails)) emailByName.set(name.toLowerCase(), email.toLowerCase());
    await syncActionItems(tx, {
      meetingId: t.meetingId,
      teamId: m.team_id,
      meetingDate: m.date,
      items: s.action_items,
      sentences,
      emails: emailByName,
    });

    await tx('meeting_analytics').insert({ meeting_id: t.meetingId, ...t.analytics.meeting });
    if (t.analytics.speakers.length) {
      await tx('speaker_analytics').insert(
        t.analytics.speakers.map((sp) => ({
          meeting_id: t.meetingId,
          ...sp,
          email: sp.email ?? emails[sp.name]?.toLowerCase() ?? null,
        })),
      );
    }

    await tx('meetings')
      .where({ id: t.meetingId })
      .update({
        status: 'completed',
        // Only a note about the transcript (speaker labels per chunk), who transcribed it and which speakers
        // voiceprints named outlive processing. The names are those of the run's decision, which named the
        // sentences, whatever a late write did to the progress since.
        progress: tx.raw(
          "nullif(jsonb_strip_nulls(jsonb_build_object('note', progress->'note', 'transcribed_by', progress->'transcribed_by', 'inferred_speakers', coalesce(" +
            "(select jsonb_agg(jsonb_build_object('speaker', n->'speaker', 'confidence', n->'confidence')) from jsonb_array_elements(voiceprint_names->'speakers') n), " +
            "progress->'inferred_speakers'))), '{}'::jsonb)",
        ),
        failure_reason: null,
        // The run's voiceprint decision is in the sentences now; it named the chunks, which go too.
        voiceprint_names: null,
        duration_seconds: t.durationSeconds,
        meeting_type: s.meeting_type,
        // The download instructions are spent: nothing secret outlives processing.
        upload_options: tx.raw("upload_options - 'fetch_secret'"),
        updated_at: tx.fn.now(),
      });
    await audit(
      tx,
      null,
      'meeting.transcribed',
      { type: 'meeting', id: t.meetingId, teamId: m.team_id },
      { sentences: sentences.length, speakers: speakerNames.length },
    );
    return { sentences: sentences.length, speakers: speakerNames.length, participants: people.length };
  });
}

/**
 * Add the recording's length to the owner's minutes_consumed exactly once per meeting, however often
 * the step that knows the length is retried: the meeting row records the charge in the same transaction.
 * Returns whether this call charged.
 */
export async function chargeMinutes(db: Knex, meetingId: string, seconds: number): Promise<boolean> {
  if (!(seconds > 0)) return false;
  return db.transaction(async (tx) => {
    const marked = await tx('meetings')
      .where({ id: meetingId })
      .whereRaw("upload_options -> 'minutes_charged_seconds' is null")
      .update({
        upload_options: tx.raw("upload_options || jsonb_build_object('minutes_charged_seconds', ?::float8)", [seconds]),
      })
      .returning(['organizer_id', 'team_id']);
    const row = marked[0] as { organizer_id: string | null; team_id: string } | undefined;
    if (!row) return false;
    if (row.organizer_id) {
      await tx('users')
        .where({ id: row.organizer_id })
        .increment('minutes_consumed', Math.round((seconds / 60) * 100) / 100);
    }
    await audit(
      tx,
      null,
      'meeting.minutes_charged',
      { type: 'meeting', id: meetingId, teamId: row.team_id },
      { seconds, user_id: row.organizer_id },
    );
    return true;
  });
}

/**
 * End a run that could not finish: the meeting reads `failed` with a reason a person can act on.
 * Only a meeting still `processing` changes (a completed transcript is never taken back), and any row
 * a broken attempt might have left goes, so nothing half-written is readable.
 */
export async function markMeetingFailed(db: Knex, meetingId: string, reason: string): Promise<boolean> {
  const text = [...reason.replace(/\s+/g, ' ').trim()].slice(0, REASON_MAX).join('') || 'transcription failed';
  return db.transaction(async (tx) => {
    const m = await tx('meetings').where({ id: meetingId }).forUpdate().first('id', 'status', 'team_id');
    if (!m || m.status !== 'processing') return false;
    for (const table of [
      'sentences',
      'summaries',
      'meeting_analytics',
      'speaker_analytics',
      'transcript_chunks',
      'meeting_voices',
    ]) {
      await tx(table).where({ meeting_id: meetingId }).delete();
    }
    await tx('meetings')
      .where({ id: meetingId })
      .update({
        status: 'failed',
        failure_reason: text,
        progress: null,
        voiceprint_names: null,
        upload_options: tx.raw("upload_options - 'fetch_secret'"),
        updated_at: tx.fn.now(),
      });
    await audit(
      tx,
      null,
      'meeting.transcription_failed',
      { type: 'meeting', id: meetingId, teamId: m.team_id },
      { reason: text },
    );
    return true;
  });
}
