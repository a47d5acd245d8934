/**
 * Naming a meeting speaker: "Speaker 2" becomes "Priya Shah" (with her email where known) everywhere
 * the meeting keeps speaker names, in one transaction with its audit_log row:
 *   - the transcript's sentences (what transcripts, search moments, pages and exports read);
 *   - the speaker's analytics row (name, and the email that counts it for a person in team analytics);
 *   - the meeting's participants (a participant listed under the old name; the email joins them, so
 *     the person can find the meeting);
 *   - action items: the speaker who said them, and the owner where the owner was that speaker, unless
 *     a person set the owner (owner_set_by), which is never overwritten;
 *   - the summary: its action items' speaker and assignee, and the name where the overview and short
 *     summary mention it as a whole name.
 * The meeting's lexeme sets and best moments hold only what was said, not who said it, so they stay.
 *
 * With voiceprints on for the team (core/voiceprints), the speaker's kept voice takes the new name and is
 * enrolled in the team's speaker profile of that name; a name a person gives is no longer "inferred".
 *
 * Who may: the meeting's organizer or an admin of its team, as for its other edits (access.managedBy).
 * A name another speaker of the meeting already has is refused rather than merged: two speakers' talk
 * time, monologues and sentiment are measured apart and cannot be added up after the fact. A live
 * meeting keeps the names its source sends, so it is refused until it has ended; a meeting still
 * processing has no speakers yet.
 */
import type { Knex } from 'knex';
import { audit } from '../audit';
import { invalid, ServiceError } from '../../platform/errors';
import type { Principal } from '../access';
import { hasControl, requireEmail, requireLength } from '../input';
import { enrolSpeaker } from '../voiceprints';
import { lockManaged, requireMeetingId } from './admin';

/** The longest speaker name, in characters (the same as a live meeting's speaker names). */
export const SPEAKER_NAME_MAX = 256;

export interface RenameSpeakerInput {
  meetingId: string;
  /** The speaker's name as the transcript has it now. */
  from: string;
  /** The new name. */
  to: string;
  /** The person's email, where known. */
  email?: string | null;
}

export interface RenameSpeakerResult {
  success: true;
  meetingId: string;
  speaker: string;
  previous_speaker: string;
  /** The email now on the speaker's analytics, or null when none is known. */
  email: string | null;
  /** Sentences now said by `speaker`. */
  sentences: number;
  /** Action items whose owner became `speaker` (owners a person set are left as they are). */
  action_items_owned: number;
}

/** How many of a meeting's speakers an unknown `from` lists back. */
const SPEAKERS_LISTED = 20;

/** A speaker name: one line, trimmed, 1 to SPEAKER_NAME_MAX characters. */
function speakerName(field: string, raw: unknown): string {
  if (typeof raw !== 'string') throw invalid(field, 'must be a string', `${field} must be a speaker name (a string)`);
  if (hasControl(raw))
    throw invalid(
      field,
      'no control characters',
      `${field} must be one line of text without control characters (tabs, line breaks)`,
    );
  return requireLength(field, raw.trim(), 1, SPEAKER_NAME_MAX);
}

/** `text` with every whole-name occurrence of `from` (not part of a longer word or number) replaced by `to`. */
export function replaceName(text: string, from: string, to: string): string {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), () => to);
}

interface SummaryItem {
  speaker_name?: string;
  assignee?: string | null;
  [k: string]: unknown;
}

/** The summary's mentions of the speaker, renamed; false when nothing in it named them. */
async function renameInSummary(trx: Knex.Transaction, meetingId: string, from: string, to: string): Promise<boolean> {
  const s = await trx('summaries')
    .where('meeting_id', meetingId)
    .first('action_items', 'overview', 'overview_lines', 'short_summary');
  if (!s) return false;
  const lower = from.toLowerCase();
  // Items are objects; anything else (older rows held plain strings) is kept as it is.
  const items = (s.action_items as unknown[]).map((raw) => {
    if (!raw || typeof raw !== 'object') return raw;
    const it = raw as SummaryItem;
    return {
      ...it,
      ...(it.speaker_name === from ? { speaker_name: to } : {}),
      ...(typeof it.assignee === 'string' && it.assignee.toLowerCase() === lower ? { assignee: to } : {}),
    };
  });
  // The overview's lines say the same as the overview: renamed alike, their moments kept.
  const lines = (Array.isArray(s.overview_lines) ? s.overview_lines : []).map((raw: unknown) =>
    raw && typeof raw === 'object' && typeof (raw as { text?: unknown }).text === 'string'
      ? { ...raw, text: replaceName((raw as { text: string }).text, from, to) }
      : raw,
  );
  const change = {
    action_items: JSON.stringify(items),
    overview: replaceName(s.overview, from, to),
    overview_lines: JSON.stringify(lines),
    short_summary: replaceName(s.short_summary, from, to),
  };
  if (
    change.action_items === JSON.stringify(s.action_items) &&
    change.overview === s.overview &&
    change.overview_lines === JSON.stringify(s.overview_lines ?? []) &&
    change.short_summary === s.short_summary
  )
    return false;
  await trx('summaries').where('meeting_id', meetingId).update(change);
  return true;
}

/** The meeting's progress without `speaker` among the names voiceprints inferred (a person named it now). */
function withoutInference(progress: { inferred_speakers?: { speaker: string }[] } | null, speaker: string) {
  const inferred = progress?.inferred_speakers;
  if (!inferred?.some((x) => x.speaker === speaker)) return {};
  const rest = inferred.filter((x) => x.speaker !== speaker);
  const { inferred_speakers: _, ...others } = progress!;
  return { progress: JSON.stringify(rest.length ? { ...others, inferred_speakers: rest } : others) };
}

/**
 * Rename one speaker of a meeting everywhere (see the file's comment for where), optionally with the
 * person's email. Renaming a speaker to the name it has changes nothing but the email, so a retry
 * (an automation rule's, say) of a rename that went through finds `from` gone and is told so.
 */
export async function renameSpeaker(db: Knex, p: Principal, input: RenameSpeakerInput): Promise<RenameSpeakerResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const from = speakerName('from', input.from);
  // Runs of spaces in a new name are one space, as in the names a live source sends.
  const to = speakerName('to', input.to).replace(/ {2,}/g, ' ');
  const email = input.email === undefined || input.email === null ? null : requireEmail('email', input.email);
  return db.transaction(async (trx) => {
    const [m] = await lockManaged(trx, p, [meetingId], 'rename a speaker of');
    const state = await trx('meetings').where('id', m.id).first('status', 'is_live', 'progress');
    if (state.status === 'live') {
      throw new ServiceError(
        'invariant_violation',
        `meeting ${JSON.stringify(m.id)} is live: it keeps the speaker names its source sends; rename speakers once it has ended`,
      );
    }
    if (state.status !== 'completed') {
      throw new ServiceError(
        'invariant_violation',
        `meeting ${JSON.stringify(m.id)} has no transcript yet (status ${state.status}); rename speakers once it is completed`,
      );
    }

    const names: string[] = (
      await trx('sentences').where('meeting_id', m.id).distinct('speaker_name').orderBy('speaker_name')
    ).map((r) => r.speaker_name);
    if (!names.includes(from)) {
      const listed = names
        .slice(0, SPEAKERS_LISTED)
        .map((n) => JSON.stringify(n))
        .join(', ');
      throw invalid(
        'from',
        'a speaker of this meeting, as its transcript names them',
        `from: ${JSON.stringify(from)} is not a speaker of meeting ${JSON.stringify(m.id)}; its speakers are ${listed || 'none'}${names.length > SPEAKERS_LISTED ? ', …' : ''}`,
      );
    }
    const taken = names.find((n) => n !== from && n.toLowerCase() === to.toLowerCase());
    if (taken !== undefined) {
      throw invalid(
        'to',
        'a name no other speaker of this meeting has',
        `to: ${JSON.stringify(taken)} is already another speaker of this meeting; speakers are not merged, so choose a different name`,
      );
    }

    const sentences = await trx('sentences')
      .where({ meeting_id: m.id, speaker_name: from })
      .update({ speaker_name: to });
    const [analytics] = await trx('speaker_analytics')
      .where({ meeting_id: m.id, name: from })
      .update({ name: to, ...(email ? { email } : {}) })
      .returning('email');
    await trx('meeting_participants').where({ meeting_id: m.id, name: from }).update({ name: to });
    if (email) {
      // The person takes part in the meeting; a participant already listed keeps the name they had.
      await trx.raw(
        `insert into meeting_participants (meeting_id, email, name, user_id)
         values (?, ?, ?, (select id from users where team_id = ? and lower(email) = ? limit 1))
         on conflict (meeting_id, email) do update set name = coalesce(meeting_participants.name, excluded.name)`,
        [m.id, email, to, m.team_id, email],
      );
    }
    await trx('action_items')
      .where({ meeting_id: m.id, speaker_name: from })
      .update({ speaker_name: to, updated_at: trx.fn.now() });
    const owned = await trx('action_items')
      .where('meeting_id', m.id)
      .whereNull('owner_set_by')
      .whereRaw('lower(owner_name) = lower(?)', [from])
      .update({ owner_name: to, ...(email ? { owner_email: email } : {}), updated_at: trx.fn.now() });
    const summary = await renameInSummary(trx, m.id, from, to);
    await trx('meetings')
      .where('id', m.id)
      .update({ updated_at: trx.fn.now(), ...withoutInference(state.progress, from) });
    const enrolled = await enrolSpeaker(trx, p, { meetingId: m.id, teamId: m.team_id, from, to, email });

    const result = { sentences, action_items_owned: owned };
    await audit(
      trx,
      p,
      'meeting.rename_speaker',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      { from, to, email, ...result, summary, ...(enrolled ? { enrolled: true } : {}) },
    );
    return {
      success: true as const,
      meetingId: m.id,
      speaker: to,
      previous_speaker: from,
      email: email ?? analytics?.email ?? null,
      ...result,
    };
  });
}
