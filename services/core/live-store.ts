/**
 * The rows of a live meeting, as LiveMeetingWorkflow's activities write them (workflows/activities/
 * live.ts). Every function is idempotent, so a retried activity never duplicates or reorders anything:
 *
 * - Sentences are upserted by (meeting, chunk_id) under the meeting's row lock: a chunk seen before
 *   keeps its index and gets the new text; new chunks get the next indices, in the order they arrived,
 *   so indices stay contiguous from 0. A unique index on (meeting_id, chunk_id) backs this up.
 * - Speaker ids (small integers in order of first appearance) live in upload_options.live_speakers,
 *   so assigning one never scans the transcript.
 * - State changes only touch a meeting that is still live; ending one that has already ended is a no-op.
 *
 * Readers need no lock: svc_get_transcript reads in one REPEATABLE READ snapshot, so it sees each
 * append's transaction entirely or not at all.
 */
import type { Knex } from 'knex';
import type { Sentence } from '../intelligence/types';
import type { Principal } from './principal';
import { audit } from './audit';
import { notFound, ServiceError } from './errors';
import type { EndReason, LiveSentenceInput, LiveState } from './live-protocol';
import { validateLiveSentences } from './live';

export interface StoreResult {
  /** Per batch, in the order given. */
  results: { appended: number; replaced: number }[];
  /** Sentences of the meeting after this write. */
  sentence_count: number;
  /** New sentences written by this call (a retry that finds them stored writes none). */
  inserted: number;
}

interface LockedMeeting {
  id: string;
  team_id: string;
  is_live: boolean;
  status: string;
  live_state: LiveState | null;
  upload_options: { live_speakers?: Record<string, number> } | null;
}

interface Row {
  meeting_id: string;
  idx: number;
  speaker_name: string;
  speaker_id: number;
  text: string;
  raw_text: string;
  start_time: number;
  end_time: number;
  chunk_id: string;
}

const SENTENCE_COLUMNS = ['speaker_name', 'speaker_id', 'text', 'raw_text', 'start_time', 'end_time'] as const;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const sameContent = (a: Row, b: Row) => SENTENCE_COLUMNS.every((c) => a[c] === b[c]);

/** Thrown when the meeting exists but is no longer live (the worker maps it to a non-retryable failure). */
export class MeetingNotLiveError extends ServiceError {
  constructor(meetingId: string, status: string) {
    super('invariant_violation', `meeting ${JSON.stringify(meetingId)} is no longer live (it is ${status})`);
  }
}

async function lockMeeting(tx: Knex.Transaction, meetingId: string): Promise<LockedMeeting> {
  const m = await tx('meetings').where({ id: meetingId }).forUpdate().first('id', 'team_id', 'is_live', 'status', 'live_state', 'upload_options');
  if (!m) throw notFound('meeting', meetingId);
  return m;
}

async function sentenceCount(db: Knex, meetingId: string): Promise<number> {
  const [{ n }] = await db('sentences').where({ meeting_id: meetingId }).max({ n: 'idx' });
  return n === null || n === undefined ? 0 : Number(n) + 1;
}

/** The meeting's live state and sentence count, or undefined when it no longer exists. */
export async function openLiveMeeting(db: Knex, meetingId: string): Promise<{ is_live: boolean; state: LiveState | null; sentence_count: number } | undefined> {
  const m = await db('meetings').where({ id: meetingId }).first('is_live', 'live_state');
  if (!m) return undefined;
  return { is_live: m.is_live, state: m.live_state, sentence_count: await sentenceCount(db, meetingId) };
}

/**
 * Store batches of sentences in order, in one transaction. A chunk id sent before (in an earlier call
 * or earlier in this one) replaces that sentence at its index; unchanged repeats write nothing.
 */
export async function storeLiveSentences(db: Knex, meetingId: string, batches: LiveSentenceInput[][]): Promise<StoreResult> {
  const valid = batches.map((b) => validateLiveSentences(b));
  return db.transaction(async (tx) => {
    const m = await lockMeeting(tx, meetingId);
    if (!m.is_live) throw new MeetingNotLiveError(meetingId, m.status);

    const chunkIds = [...new Set(valid.flat().map((s) => s.chunk_id))];
    const existing: Row[] = (
      await tx('sentences')
        .where({ meeting_id: meetingId })
        .whereIn('chunk_id', chunkIds)
        .select('meeting_id', 'idx', 'chunk_id', ...SENTENCE_COLUMNS)
    ).map((r: Row) => ({ ...r, start_time: Number(r.start_time), end_time: Number(r.end_time) }));
    let next = await sentenceCount(tx, meetingId);

    const speakers: Record<string, number> = { ...(m.upload_options?.live_speakers ?? {}) };
    let nextSpeaker = Object.values(speakers).reduce((a, b) => Math.max(a, b + 1), 0);
    let speakersChanged = false;
    const speakerId = (name: string) => {
      if (speakers[name] === undefined) {
        speakers[name] = nextSpeaker++;
        speakersChanged = true;
      }
      return speakers[name];
    };

    const stored = new Map(existing.map((r) => [r.chunk_id, r]));
    /** chunk id → the row it must have after this call. */
    const target = new Map<string, Row>();
    const results = valid.map((batch) => {
      let appended = 0;
      let replaced = 0;
      for (const s of batch) {
        const before = target.get(s.chunk_id) ?? stored.get(s.chunk_id);
        const row: Row = {
          meeting_id: meetingId,
          idx: before ? before.idx : next++,
          speaker_name: s.speaker_name,
          speaker_id: speakerId(s.speaker_name),
          text: clean(s.text),
          raw_text: s.text,
          start_time: s.start_time,
          end_time: s.end_time,
          chunk_id: s.chunk_id,
        };
        if (before) replaced++;
        else appended++;
        target.set(s.chunk_id, row);
      }
      return { appended, replaced };
    });

    const fresh = [...target.values()].filter((r) => !stored.has(r.chunk_id));
    // Only rows whose content changed are rewritten (an update rebuilds the meeting's search lexemes).
    const changed = [...target.values()].filter((r) => stored.has(r.chunk_id) && !sameContent(r, stored.get(r.chunk_id)!));
    if (fresh.length) await tx('sentences').insert(fresh);
    if (changed.length) await tx('sentences').insert(changed).onConflict(['meeting_id', 'idx']).merge([...SENTENCE_COLUMNS]);

    const lastEnd = Math.max(0, ...[...target.values()].map((r) => r.end_time));
    await tx('meetings')
      .where({ id: meetingId })
      .update({
        duration_seconds: tx.raw('greatest(duration_seconds, ?::float8)', [lastEnd]),
        ...(speakersChanged ? { upload_options: tx.raw("upload_options || jsonb_build_object('live_speakers', ?::jsonb)", [JSON.stringify(speakers)]) } : {}),
        updated_at: tx.fn.now(),
      });
    return { results, sentence_count: next, inserted: fresh.length };
  });
}

/** Who asked for a change, for the audit log (the workflow carries the id, not the whole principal). */
const actor = (userId: string | null, teamId: string) => (userId ? ({ userId, teamId } as Principal) : null);

/** active ⇄ paused. Setting the state it already has changes nothing. */
export async function setLiveState(db: Knex, meetingId: string, state: LiveState, actorUserId: string | null): Promise<{ sentence_count: number }> {
  await db.transaction(async (tx) => {
    const m = await lockMeeting(tx, meetingId);
    if (!m.is_live) throw new MeetingNotLiveError(meetingId, m.status);
    if (m.live_state === state) return;
    await tx('meetings').where({ id: meetingId }).update({ live_state: state, updated_at: tx.fn.now() });
    await audit(tx, actor(actorUserId, m.team_id), state === 'paused' ? 'meeting.live_paused' : 'meeting.live_resumed', { type: 'meeting', id: meetingId, teamId: m.team_id });
  });
  return { sentence_count: await sentenceCount(db, meetingId) };
}

/**
 * The end of the live part: is_live false (it leaves the active meetings), status `processing` until
 * post-processing completes it. Ending a meeting that already ended changes nothing.
 */
export async function closeLiveMeeting(db: Knex, meetingId: string, reason: EndReason, actorUserId: string | null): Promise<{ sentence_count: number }> {
  await db.transaction(async (tx) => {
    const m = await lockMeeting(tx, meetingId);
    if (!m.is_live) return;
    await tx('meetings').where({ id: meetingId }).update({ is_live: false, live_state: null, status: 'processing', updated_at: tx.fn.now() });
    await audit(tx, actor(actorUserId, m.team_id), 'meeting.live_ended', { type: 'meeting', id: meetingId, teamId: m.team_id }, { reason });
  });
  return { sentence_count: await sentenceCount(db, meetingId) };
}

/** The meeting's sentences in index order, as the intelligence steps take them. */
export async function readLiveSentences(db: Knex, meetingId: string): Promise<Sentence[]> {
  const rows = await db('sentences').where({ meeting_id: meetingId }).orderBy('idx').select('idx', ...SENTENCE_COLUMNS);
  return rows.map((r) => ({
    index: r.idx,
    speaker_name: r.speaker_name,
    speaker_id: r.speaker_id,
    text: r.text,
    raw_text: r.raw_text,
    start_time: Number(r.start_time),
    end_time: Number(r.end_time),
  }));
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
    await tx('meetings').where({ id: meetingId }).update({ status: 'failed', failure_reason: text, is_live: false, live_state: null, updated_at: tx.fn.now() });
    await audit(tx, null, 'meeting.live_processing_failed', { type: 'meeting', id: meetingId, teamId: m.team_id }, { reason: text });
    return true;
  });
}

/** Live meetings of the whole service by state (the live_meetings gauge). */
export async function countLiveMeetings(db: Knex): Promise<Record<LiveState, number>> {
  const rows: { live_state: LiveState; n: string }[] = await db('meetings').where('is_live', true).groupBy('live_state').select('live_state', db.raw('count(*) as n'));
  const out: Record<LiveState, number> = { active: 0, paused: 0 };
  for (const r of rows) if (r.live_state in out) out[r.live_state] = Number(r.n);
  return out;
}
