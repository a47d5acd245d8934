/**
 * The rows of a live meeting. Sentences are written by the API pods as they arrive (drive.ts);
 * state changes by LiveMeetingWorkflow's activities (workflows/activities/live.ts). Every
 * function is idempotent, so a retried call or activity never duplicates or reorders anything:
 *
 * - Sentences are upserted by (meeting, chunk_id) under the meeting's row lock: a chunk seen before
 *   keeps its index and gets the new text; new chunks get the next indices, in the order they arrived,
 *   so indices stay contiguous from 0. A unique index on (meeting_id, chunk_id) backs this up.
 * - Speaker ids (small integers in order of first appearance) live in upload_options.live_speakers,
 *   so assigning one never scans the transcript.
 * - State changes only touch a meeting that is still live; ending one that has already ended is a no-op.
 * - The meeting's row lock orders appends against the end: an append either commits before the end
 *   (and post-processing reads it) or finds the meeting no longer live and is refused.
 * - meetings.updated_at is the meeting's last activity (an append or a state change): the idle end
 *   reads it, so appends need no word to the workflow.
 *
 * Readers need no lock: svc_get_transcript reads in one REPEATABLE READ snapshot, so it sees each
 * append's transaction entirely or not at all.
 */
import type { Knex } from 'knex';
import type { Sentence } from '../../intelligence/types';
import type { Principal } from '../access';
import { sentenceFromRow } from '../meetings';
import { audit } from '../audit';
import { notFound, ServiceError } from '../../platform/errors';
import type { EndReason, LiveSentenceInput, LiveState } from './protocol';

export interface StoreResult {
  /** The meeting's state when the sentences were stored. */
  state: LiveState;
  /** New sentences (chunk ids not seen before in this meeting). */
  appended: number;
  /** Sentences whose chunk id was stored before: their row was replaced, not duplicated. */
  replaced: number;
  /** Sentences of the meeting after this write. */
  sentence_count: number;
}

interface LockedMeeting {
  id: string;
  team_id: string;
  is_live: boolean;
  status: string;
  live_state: LiveState | null;
}

const SENTENCE_COLUMNS = ['speaker_name', 'speaker_id', 'text', 'raw_text', 'start_time', 'end_time'] as const;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Thrown when the meeting exists but is no longer live (the worker maps it to a non-retryable failure). */
export class MeetingNotLiveError extends ServiceError {
  constructor(
    meetingId: string,
    readonly status: string,
  ) {
    super('invariant_violation', `meeting ${JSON.stringify(meetingId)} is no longer live (it is ${status})`);
  }
}

async function lockMeeting(tx: Knex.Transaction, meetingId: string): Promise<LockedMeeting> {
  const m = await tx('meetings')
    .where({ id: meetingId })
    .forUpdate()
    .first('id', 'team_id', 'is_live', 'status', 'live_state');
  if (!m) throw notFound('meeting', meetingId);
  return m;
}

async function sentenceCount(db: Knex, meetingId: string): Promise<number> {
  const [{ n }] = await db('sentences').where({ meeting_id: meetingId }).max({ n: 'idx' });
  return n === null || n === undefined ? 0 : Number(n) + 1;
}

/** The meeting's live state and sentence count, or undefined when it no longer exists. */
export async function openLiveMeeting(
  db: Knex,
  meetingId: string,
): Promise<{ is_live: boolean; state: LiveState | null; sentence_count: number } | undefined> {
  const m = await db('meetings').where({ id: meetingId }).first('is_live', 'live_state');
  if (!m) return undefined;
  return { is_live: m.is_live, state: m.live_state, sentence_count: await sentenceCount(db, meetingId) };
}

/**
 * Store validated sentences (validateLiveSentences), in order, in one statement: the database function
 * live_append (migrations/…_live_append_function.ts) locks the meeting's row, so appends of one meeting
 * never interleave and the lock is held only for the database's own work. A chunk id sent before (in
 * an earlier call or earlier in this one) replaces that sentence at its index; unchanged repeats write
 * nothing.
 */
export async function storeLiveSentences(
  db: Knex,
  meetingId: string,
  sentences: LiveSentenceInput[],
): Promise<StoreResult> {
  const rows = sentences.map((s) => ({
    speaker_name: s.speaker_name,
    text: clean(s.text),
    raw_text: s.text,
    start_time: s.start_time,
    end_time: s.end_time,
    chunk_id: s.chunk_id,
  }));
  const { rows: out } = await db.raw('select live_append(?, ?::jsonb) as r', [meetingId, JSON.stringify(rows)]);
  const r = out[0].r as
    (StoreResult & { error?: undefined }) | { error: 'not_found' } | { error: 'not_live'; status: string };
  if (r.error === 'not_found') throw notFound('meeting', meetingId);
  if (r.error === 'not_live') throw new MeetingNotLiveError(meetingId, r.status);
  return r;
}

/** Who asked for a change, for the audit log (the workflow carries the id, not the whole principal). */
const actor = (userId: string | null, teamId: string) => (userId ? ({ userId, teamId } as Principal) : null);

/** active ⇄ paused. Setting the state it already has changes nothing. */
export async function setLiveState(
  db: Knex,
  meetingId: string,
  state: LiveState,
  actorUserId: string | null,
): Promise<{ sentence_count: number }> {
  await db.transaction(async (tx) => {
    const m = await lockMeeting(tx, meetingId);
    if (!m.is_live) throw new MeetingNotLiveError(meetingId, m.status);
    if (m.live_state === state) return;
    await tx('meetings').where({ id: meetingId }).update({ live_state: state, updated_at: tx.fn.now() });
    await audit(
      tx,
      actor(actorUserId, m.team_id),
      state === 'paused' ? 'meeting.live_paused' : 'meeting.live_resumed',
      { type: 'meeting', id: meetingId, teamId: m.team_id },
    );
  });
  return { sentence_count: await sentenceCount(db, meetingId) };
}

async function close(
  tx: Knex.Transaction,
  m: LockedMeeting,
  reason: EndReason,
  actorUserId: string | null,
): Promise<void> {
  await tx('meetings')
    .where({ id: m.id })
    .update({ is_live: false, live_state: null, status: 'processing', updated_at: tx.fn.now() });
  await audit(
    tx,
    actor(actorUserId, m.team_id),
    'meeting.live_ended',
    { type: 'meeting', id: m.id, teamId: m.team_id },
    { reason },
  );
}

/**
 * The end of the live part: is_live false (it leaves the active meetings), status `processing` until
 * post-processing completes it. Ending a meeting that already ended changes nothing.
 */
export async function closeLiveMeeting(
  db: Knex,
  meetingId: string,
  reason: EndReason,
  actorUserId: string | null,
): Promise<{ sentence_count: number }> {
  await db.transaction(async (tx) => {
    const m = await lockMeeting(tx, meetingId);
    if (m.is_live) await close(tx, m, reason, actorUserId);
  });
  return { sentence_count: await sentenceCount(db, meetingId) };
}

export type IdleCheck = { ended: true; sentence_count: number } | { ended: false; idleMs: number };

/**
 * End the meeting if nothing happened to it (no append, no state change) for `idleTimeoutMs`, judged
 * under its row lock so an append that just arrived keeps it open; otherwise say how long it has been
 * idle. A meeting that has already ended counts as ended.
 */
export async function closeLiveMeetingIfIdle(db: Knex, meetingId: string, idleTimeoutMs: number): Promise<IdleCheck> {
  const check = await db.transaction(async (tx): Promise<IdleCheck> => {
    const m = await lockMeeting(tx, meetingId);
    if (!m.is_live) return { ended: true, sentence_count: 0 };
    const { rows } = await tx.raw(
      'select extract(epoch from clock_timestamp() - updated_at) * 1000 as idle_ms from meetings where id = ?',
      [meetingId],
    );
    const idleMs = Math.max(0, Math.floor(Number(rows[0].idle_ms)));
    if (idleMs < idleTimeoutMs) return { ended: false, idleMs };
    await close(tx, m, 'idle', null);
    return { ended: true, sentence_count: 0 };
  });
  return check.ended ? { ended: true, sentence_count: await sentenceCount(db, meetingId) } : check;
}

/** The meeting's sentences in index order, as the intelligence steps take them. */
export async function readLiveSentences(db: Knex, meetingId: string): Promise<Sentence[]> {
  const rows = await db('sentences')
    .where({ meeting_id: meetingId })
    .orderBy('idx')
    .select('idx', ...SENTENCE_COLUMNS);
  // Live sentences always keep their raw text (it is what the recorder sent).
  return rows.map((r) => sentenceFromRow(r) as Sentence);
}

/**
 * Post-processing of an ended live meeting could not finish: the meeting reads `failed` with the
 * reason. Unlike a failed upload its sentences stay (they cannot be fetched again), so an operator can
 * re-run post-processing. Only a meeting that is live or processing changes.
 */
export async function failLiveMeeting(db: Knex, meetingId: string, reason: string): Promise<boolean> {
  const text = [...reason.replace(/\s+/g, ' ').trim()].slice(0, 500).join('') || 'post-processing failed';
  return db.transaction(async (tx) => {
    const m = await tx('meetings').where({ id: meetingId }).forUpdate().first('id', 'status', 'team_id');
    if (!m || !['live', 'processing'].includes(m.status)) return false;
    await tx('meetings')
      .where({ id: meetingId })
      .update({ status: 'failed', failure_reason: text, is_live: false, live_state: null, updated_at: tx.fn.now() });
    await audit(
      tx,
      null,
      'meeting.live_processing_failed',
      { type: 'meeting', id: meetingId, teamId: m.team_id },
      { reason: text },
    );
    return true;
  });
}

/** Live meetings of the whole service by state (the live_meetings gauge). */
export async function countLiveMeetings(db: Knex): Promise<Record<LiveState, number>> {
  const rows: { live_state: LiveState; n: string }[] = await db('meetings')
    .where('is_live', true)
    .groupBy('live_state')
    .select('live_state', db.raw('count(*) as n'));
  const out: Record<LiveState, number> = { active: 0, paused: 0 };
  for (const r of rows) if (r.live_state in out) out[r.live_state] = Number(r.n);
  return out;
}
