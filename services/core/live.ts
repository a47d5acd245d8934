/**
 * Live meetings (spec §2 active meeting, §3 states and `is_live`; DESIGN flow 4): a recorder or meeting
 * bot starts a meeting, streams sentences while it runs, pauses, resumes and ends it.
 *
 * This module is what the transports call, with the caller's principal: it validates (every refusal
 * names its field and rule; nothing is stored on refusal) and checks who may drive the meeting
 * (access.ts). Then:
 *   - sentences are stored here, at once, in one statement under the meeting's row lock
 *     (live-store.ts): readable as soon as the call answers, whether or not a worker is running. An
 *     append is the hot path (a recorder sends several a second per meeting); a Temporal round trip
 *     each would make the Temporal server the bottleneck of every live meeting in the service;
 *   - pause, resume and end go to the meeting's LiveMeetingWorkflow (`live-<meetingId>`) as Temporal
 *     Workflow Updates, so the caller learns synchronously whether the state machine took them
 *     (live-protocol.ts). The workflow owns the state, the idle timer and the post-processing.
 *
 * Reads need nothing of their own:
 * svc_get_transcript returns a live meeting's sentences as a point-in-time snapshot with is_live true,
 * and svc_get_active_meetings lists meetings whose is_live/live_state this flow maintains.
 */
import type { Knex } from 'knex';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../platform/config';
import { Logger, logger } from '../platform/logger';
import { liveMeetingDrivenBy, requireMayStartLiveMeetingFor, visibleTo } from './access';
import { audit } from './audit';
import { forbidden, invalid, notFound, ServiceError } from './errors';
import { newId } from './ids';
import { MeetingNotLiveError, storeLiveSentences } from './live-store';
import { liveSentencesIngested } from '../platform/metrics';
import {
  LIVE_FAILURE,
  LIVE_LIMITS,
  LIVE_UPDATES,
  LIVE_WORKFLOW,
  liveWorkflowId,
  type LiveAppendResult,
  type LiveMeetingWorkflowInput,
  type LiveSentenceInput,
  type LiveStateResult,
} from './live-protocol';
import { PRIVACIES, type Privacy } from './meeting-admin';
import type { Principal } from './principal';
import { UPLOAD_LIMITS, type Attendee, type AttendeeInput } from './uploads';
import { isEmail } from './validate';
import type { ServiceDeps } from './deps';

export { LIVE_LIMITS } from './live-protocol';

export type LiveDeps = ServiceDeps;

/** startLiveMeeting's input, field for field as GraphQL's LiveMeetingInput. */
export interface StartLiveMeetingInput {
  title?: string | null;
  meeting_link?: string | null;
  organizer_email?: string | null;
  scheduled_start?: string | null;
  scheduled_end?: string | null;
  privacy?: string | null;
  attendees?: AttendeeInput[] | null;
}

export interface NormalizedLiveMeeting {
  title: string;
  meetingLink: string | null;
  organizerEmail: string | null;
  scheduledStart: Date | null;
  scheduledEnd: Date | null;
  privacy: Privacy;
  attendees: Attendee[];
}

/** A Temporal that does not take the start within this long is treated as down (nothing is kept). */
const START_DEADLINE_MS = 5_000;
/**
 * How long a request waits for the workflow to answer. While no worker runs (a restart) the update
 * waits in Temporal and is applied when one is back; past this the caller is told to send it again,
 * which chunk ids make safe.
 */
export const LIVE_UPDATE_WAIT_MS = 60_000;
/** An idle timeout below this would end a meeting between two sentences of a normal conversation. */
const MIN_IDLE_TIMEOUT_MS = 1_000;

// ---------------------------------------------------------------------------------------------------
// Validation: every rule names its field (relative to the argument) and the rule.
// ---------------------------------------------------------------------------------------------------

const required = (field: string, what: string) => new ServiceError('args_required', `${field} is required: ${what}`, { field, rule: 'required' });
const hasControl = (s: string) => /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);
const chars = (s: string) => [...s].length;

function optionalString(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalid(field, 'must be a string', `${field} must be a string`);
  return v;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function optionalDateTime(field: string, v: unknown): Date | null {
  const s = optionalString(field, v)?.trim();
  if (!s) return null;
  const d = new Date(s);
  if (!ISO_DATE_TIME.test(s) || Number.isNaN(d.getTime())) {
    throw invalid(field, 'ISO 8601 date-time with a time zone', `${field} must be an ISO 8601 date-time with a time zone, like 2026-11-21T09:00:00Z`);
  }
  return d;
}

function validateMeetingLink(v: unknown): string | null {
  const s = optionalString('meeting_link', v)?.trim();
  if (!s) return null;
  if (chars(s) > LIVE_LIMITS.meetingLinkMax) {
    throw invalid('meeting_link', `at most ${LIVE_LIMITS.meetingLinkMax} characters`, `meeting_link must be at most ${LIVE_LIMITS.meetingLinkMax} characters long`);
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid('meeting_link', 'an http or https URL', 'meeting_link must be an http or https URL like https://meet.example.com/abc-defg-hij');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid('meeting_link', 'an http or https URL', `meeting_link must be an http or https URL; got a ${url.protocol.replace(/:$/, '')} URL`);
  }
  if (url.username || url.password) throw invalid('meeting_link', 'no credentials in the URL', 'meeting_link must not carry a user name or password');
  return url.toString();
}

/** Attendees as uploadAudio takes them (same limits, same field names); the same person twice is one. */
function validateAttendees(raw: unknown): Attendee[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('attendees', 'must be a list', 'attendees must be a list of {displayName, email, phoneNumber}');
  if (raw.length > UPLOAD_LIMITS.attendeesMax) {
    throw invalid('attendees', `at most ${UPLOAD_LIMITS.attendeesMax} attendees`, `attendees may list at most ${UPLOAD_LIMITS.attendeesMax} people; got ${raw.length}`);
  }
  const seen = new Set<string>();
  const out: Attendee[] = [];
  raw.forEach((a: AttendeeInput, i) => {
    const at = `attendees[${i}]`;
    const email = optionalString(`${at}.email`, a?.email)?.trim();
    if (!email) throw required(`${at}.email`, 'every attendee needs an email address');
    if (!isEmail(email)) throw invalid(`${at}.email`, 'must be an email address like name@example.com', `${at}.email: ${JSON.stringify(email)} is not an email address`);
    const displayName = optionalString(`${at}.displayName`, a?.displayName)?.trim() || null;
    if (displayName && (chars(displayName) > UPLOAD_LIMITS.displayNameMax || hasControl(displayName))) {
      throw invalid(`${at}.displayName`, `at most ${UPLOAD_LIMITS.displayNameMax} characters`, `${at}.displayName must be at most ${UPLOAD_LIMITS.displayNameMax} characters of text`);
    }
    const phoneNumber = optionalString(`${at}.phoneNumber`, a?.phoneNumber)?.trim() || null;
    if (phoneNumber && !/^\+?[0-9 ().-]{3,32}$/.test(phoneNumber)) {
      throw invalid(`${at}.phoneNumber`, 'digits, spaces, ()+-. only, 3 to 32 characters', `${at}.phoneNumber must look like +1 555 0100 (3 to 32 digits, spaces, ()+-.)`);
    }
    const key = email.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ displayName, email: key, phoneNumber });
  });
  return out;
}

export function validateLiveMeeting(input: StartLiveMeetingInput): NormalizedLiveMeeting {
  const rawTitle = optionalString('title', input?.title);
  if (rawTitle === null) throw required('title', `the meeting's title, 1 to ${LIVE_LIMITS.titleMax} characters`);
  const title = rawTitle.trim().replace(/\s+/g, ' ');
  const n = chars(title);
  if (n < 1 || n > LIVE_LIMITS.titleMax) {
    throw invalid('title', `1 to ${LIVE_LIMITS.titleMax} characters`, `title must be 1 to ${LIVE_LIMITS.titleMax} characters long; got ${n}`);
  }
  const meetingLink = validateMeetingLink(input.meeting_link);
  const rawOrganizer = optionalString('organizer_email', input.organizer_email)?.trim();
  if (rawOrganizer && !isEmail(rawOrganizer)) {
    throw invalid('organizer_email', 'must be an email address like name@example.com', `organizer_email: ${JSON.stringify(rawOrganizer)} is not an email address`);
  }
  const scheduledStart = optionalDateTime('scheduled_start', input.scheduled_start);
  const scheduledEnd = optionalDateTime('scheduled_end', input.scheduled_end);
  if (scheduledStart && scheduledEnd && scheduledEnd.getTime() < scheduledStart.getTime()) {
    throw invalid('scheduled_end', 'not before scheduled_start', 'scheduled_end must not be before scheduled_start');
  }
  const rawPrivacy = optionalString('privacy', input.privacy)?.trim();
  if (rawPrivacy && !(PRIVACIES as readonly string[]).includes(rawPrivacy)) {
    throw invalid('privacy', `one of ${PRIVACIES.join(', ')}`, `privacy must be one of ${PRIVACIES.join(', ')}; got ${JSON.stringify(rawPrivacy)}`);
  }
  return {
    title,
    meetingLink,
    organizerEmail: rawOrganizer ? rawOrganizer.toLowerCase() : null,
    scheduledStart,
    scheduledEnd,
    privacy: (rawPrivacy || 'teammatesandparticipants') as Privacy,
    attendees: validateAttendees(input.attendees),
  };
}

function finiteSeconds(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(field, 'a number of seconds, 0 or more', `${field} must be a number of seconds, 0 or more`);
  if (v < 0) throw invalid(field, '0 or more', `${field} must be 0 or more; got ${v}`);
  return v;
}

/**
 * Check a call's sentences and normalise them (trimmed speaker and chunk id). `text` keeps what the
 * caller sent; the stored clean text collapses its whitespace (live-store.ts).
 */
export function validateLiveSentences(raw: unknown, field = 'sentences'): LiveSentenceInput[] {
  if (raw === undefined || raw === null) throw required(field, `a list of ${LIVE_LIMITS.sentencesMin} to ${LIVE_LIMITS.sentencesMax} sentences`);
  if (!Array.isArray(raw)) throw invalid(field, 'must be a list', `${field} must be a list of {speaker_name, text, start_time, end_time, chunk_id}`);
  const { sentencesMin, sentencesMax, textMax, textTotalMax, speakerNameMax, chunkIdMax } = LIVE_LIMITS;
  if (raw.length < sentencesMin || raw.length > sentencesMax) {
    throw invalid(field, `${sentencesMin} to ${sentencesMax} sentences`, `${field} must hold ${sentencesMin} to ${sentencesMax} sentences per call; got ${raw.length}`);
  }
  let total = 0;
  return raw.map((s: Record<string, unknown>, i) => {
    const at = `${field}[${i}]`;
    if (!s || typeof s !== 'object') throw invalid(at, 'must be an object', `${at} must be {speaker_name, text, start_time, end_time, chunk_id}`);

    const speaker = optionalString(`${at}.speaker_name`, s.speaker_name)?.trim().replace(/\s+/g, ' ');
    if (!speaker) throw required(`${at}.speaker_name`, `who said it, 1 to ${speakerNameMax} characters`);
    if (chars(speaker) > speakerNameMax || hasControl(speaker)) {
      throw invalid(`${at}.speaker_name`, `1 to ${speakerNameMax} characters`, `${at}.speaker_name must be 1 to ${speakerNameMax} characters of text; got ${chars(speaker)}`);
    }

    const text = optionalString(`${at}.text`, s.text);
    if (text === null) throw required(`${at}.text`, `what was said, 1 to ${textMax} characters`);
    const n = chars(text);
    if (text.trim() === '' || n > textMax) {
      throw invalid(`${at}.text`, `1 to ${textMax} characters`, `${at}.text must be 1 to ${textMax} characters (not only spaces); got ${n}`);
    }
    if (hasControl(text)) throw invalid(`${at}.text`, 'no control characters', `${at}.text must not contain control characters (tabs and line breaks are fine)`);
    total += n;
    if (total > textTotalMax) {
      throw invalid(field, `at most ${textTotalMax} characters of text per call`, `${field} may carry at most ${textTotalMax} characters of text per call; split the sentences over several calls`);
    }

    const start = finiteSeconds(`${at}.start_time`, s.start_time);
    const end = finiteSeconds(`${at}.end_time`, s.end_time);
    if (end < start) throw invalid(`${at}.end_time`, 'not before start_time', `${at}.end_time must not be before start_time (${start}); got ${end}`);

    const chunk = optionalString(`${at}.chunk_id`, s.chunk_id)?.trim();
    if (!chunk) throw required(`${at}.chunk_id`, `the recorder's id of this sentence, 1 to ${chunkIdMax} characters; sending a chunk again replaces it`);
    if (chars(chunk) > chunkIdMax || hasControl(chunk)) {
      throw invalid(`${at}.chunk_id`, `1 to ${chunkIdMax} characters`, `${at}.chunk_id must be 1 to ${chunkIdMax} characters of text; got ${chars(chunk)}`);
    }
    return { speaker_name: speaker, text, start_time: start, end_time: end, chunk_id: chunk };
  });
}

function requireMeetingId(field: string, id: unknown): string {
  const v = typeof id === 'string' ? id.trim() : '';
  if (!v) throw required(field, 'the live meeting id that startLiveMeeting returned');
  return v;
}

// ---------------------------------------------------------------------------------------------------
// Starting
// ---------------------------------------------------------------------------------------------------

function requireTemporal(deps: LiveDeps): Client {
  if (!deps.temporal) throw new ServiceError('feature_unavailable', 'live meetings are not available on this server: it has no Temporal connection');
  return deps.temporal;
}

/** Start the meeting's workflow; 'exists' when a run with its id exists already (running or closed). */
async function startWorkflow(temporal: Client, config: Config, meetingId: string): Promise<'started' | 'exists'> {
  const input: LiveMeetingWorkflowInput = { meetingId, idleTimeoutMs: Math.max(MIN_IDLE_TIMEOUT_MS, config.liveIdleTimeoutMs) };
  try {
    await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.workflow.start(LIVE_WORKFLOW, {
        taskQueue: config.temporal.taskQueue,
        workflowId: liveWorkflowId(meetingId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      }),
    );
    return 'started';
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
    throw e;
  }
}

/**
 * startLiveMeeting: the meeting row (status `live`, is_live, state `active`) and its workflow. The
 * organizer must be a user of the caller's team; starting one for someone else takes a team admin.
 * Returns the meeting id (= transcript id).
 */
export async function startLiveMeeting(deps: LiveDeps, p: Principal, input: StartLiveMeetingInput): Promise<string> {
  const m = validateLiveMeeting(input);
  const temporal = requireTemporal(deps);
  const { db } = deps;

  const organizerEmail = m.organizerEmail ?? p.email.toLowerCase();
  const organizer: { id: string; email: string; name: string } | undefined = await db('users')
    .where('team_id', p.teamId)
    .whereRaw('lower(email) = ?', [organizerEmail])
    .first('id', 'email', 'name');
  if (!organizer) {
    throw invalid('organizer_email', 'a user of your team', `organizer_email ${JSON.stringify(organizerEmail)} is not a user of your team; the organizer of a live meeting must be one`);
  }
  requireMayStartLiveMeetingFor(p, organizer.id);

  const id = newId();
  await db.transaction(async (tx) => {
    await tx('meetings').insert({
      id,
      team_id: p.teamId,
      organizer_id: organizer.id,
      organizer_email: organizer.email.toLowerCase(),
      uploader_id: p.userId,
      title: m.title,
      date: new Date(),
      privacy: m.privacy,
      status: 'live',
      is_live: true,
      live_state: 'active',
      // No per-meeting lexeme set while live: keeping it current would rewrite the meeting's whole
      // lexeme set (and its GIN entries) on every append. NULL makes search read this meeting's
      // sentences instead (migrations/…_search_indexes.ts); persisting the transcript at the end
      // rebuilds it.
      transcript_tsv: null,
      meeting_link: m.meetingLink,
      scheduled_start: m.scheduledStart,
      scheduled_end: m.scheduledEnd,
      upload_options: JSON.stringify({ attendees: m.attendees, save_video: false, bypass_size_check: false, request_hash: '', live_speakers: {} }),
    });
    const people = [{ email: organizer.email.toLowerCase(), name: organizer.name, userId: organizer.id as string | null }, ...m.attendees.map((a) => ({ email: a.email, name: a.displayName, userId: null }))];
    await tx('meeting_participants')
      .insert(people.map((x) => ({ meeting_id: id, email: x.email, name: x.name ?? null, user_id: x.userId })))
      .onConflict(['meeting_id', 'email'])
      .ignore();
    await audit(tx, p, 'meeting.live_started', { type: 'meeting', id }, { organizer: organizer.email.toLowerCase(), meeting_link: m.meetingLink, privacy: m.privacy });
  });

  try {
    await startWorkflow(temporal, deps.config, id);
  } catch (e) {
    // Nothing stays behind a refusal: without its workflow the meeting could never be driven or end.
    (deps.log ?? logger).error({ err: e, meetingId: id }, 'could not start LiveMeetingWorkflow');
    await db('meetings').where({ id }).delete();
    throw new ServiceError('internal_error', 'The live meeting could not be started right now; nothing was stored. Send the same request again in a moment.');
  }
  return id;
}

// ---------------------------------------------------------------------------------------------------
// Driving: append, pause, resume, end
// ---------------------------------------------------------------------------------------------------

interface DrivenMeeting {
  id: string;
  status: string;
  is_live: boolean;
}

const WHO_MAY = 'only its organizer or an admin of its team may drive a live meeting';

/**
 * The meeting, if the caller may drive it and it is live. Another team's meeting, or one the caller
 * cannot see, is not found; a teammate's they can see is forbidden; a meeting that is not live (an
 * upload, or a live meeting that ended) is an invariant_violation.
 */
async function drivenMeeting(db: Knex, p: Principal, id: string, action: string): Promise<DrivenMeeting> {
  const m: DrivenMeeting | undefined = await db('meetings as m').modify(liveMeetingDrivenBy(p, 'm')).where('m.id', id).first('m.id', 'm.status', 'm.is_live');
  if (!m) {
    const seen = await db('meetings as m').modify(visibleTo(p, 'm')).where('m.team_id', p.teamId).where('m.id', id).first('m.organizer_email');
    if (!seen) throw notFound('meeting', id);
    throw forbidden(`you may not ${action} meeting ${JSON.stringify(id)}: ${WHO_MAY} (organizer: ${seen.organizer_email})`);
  }
  if (!m.is_live) throw notLive(id, m.status);
  return m;
}

function notLive(id: string, status: string): ServiceError {
  const now =
    status === 'completed'
      ? 'it has ended and its transcript is ready'
      : status === 'processing'
        ? 'it has ended and is being processed'
        : status === 'failed'
          ? 'its processing failed'
          : status === 'closed'
            ? 'its live session was closed by an operator'
            : `it is ${status}`;
  return new ServiceError('invariant_violation', `meeting ${JSON.stringify(id)} is not live: ${now}. Start a new live meeting with startLiveMeeting.`);
}

const rootCause = (e: unknown): unknown => {
  let err = e as { cause?: unknown } | undefined;
  while (err && !(err instanceof ApplicationFailure) && err.cause) err = err.cause as { cause?: unknown };
  return err;
};

/** A failed update as the caller's error: the state machine's refusal is an invariant_violation. */
function updateError(e: unknown, meetingId: string, status: string, log: Logger): ServiceError {
  if (e instanceof WorkflowUpdateFailedError) {
    const cause = rootCause(e);
    if (cause instanceof ApplicationFailure) {
      switch (cause.type) {
        case LIVE_FAILURE.invalidTransition:
          return new ServiceError('invariant_violation', `meeting ${JSON.stringify(meetingId)}: ${cause.message}`);
        case LIVE_FAILURE.notLive:
        case LIVE_FAILURE.meetingGone:
          return notLive(meetingId, status === 'live' ? 'no longer live' : status);
        case LIVE_FAILURE.storeFailed:
          return new ServiceError('internal_error', cause.message);
      }
    }
  }
  if (e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new ServiceError(
      'internal_error',
      `The live meeting did not confirm within ${LIVE_UPDATE_WAIT_MS / 1000} s (the service may be restarting). Send the same request again.`,
    );
  }
  log.error({ err: e, meetingId }, 'live meeting update failed');
  return new ServiceError('internal_error', 'The live meeting could not take this request right now; it has been logged. Send it again in a moment.');
}

/**
 * Temporal refuses an update it has not taken, for a moment: while the workflow's last task failed and
 * is retried (a restarting or overloaded worker), while the workflow has as many updates in flight as
 * the server allows (10 by default), or when the update was aborted because the run closed to
 * continue as new. The update was not applied, so sending it again is safe.
 */
function isNotTaken(e: unknown): boolean {
  const grpc = (e as { cause?: { code?: number; message?: string } } | undefined)?.cause;
  const message = String(grpc?.message ?? '');
  switch (grpc?.code) {
    case 9: // FAILED_PRECONDITION
      return /Workflow Task in failed state/i.test(message);
    case 8: // RESOURCE_EXHAUSTED: in-flight update limit, workflow busy
      return true;
    case 14: // UNAVAILABLE
      return /update was aborted/i.test(message);
    default:
      return false;
  }
}

async function runUpdate<R>(deps: LiveDeps, m: DrivenMeeting, name: string, arg: unknown): Promise<R> {
  const temporal = requireTemporal(deps);
  const log = deps.log ?? logger;
  const deadline = Date.now() + LIVE_UPDATE_WAIT_MS;
  const call = async (handle: WorkflowHandle): Promise<R> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await temporal.connection.withDeadline(deadline, () => handle.executeUpdate<R, [unknown]>(name, { args: [arg] }));
      } catch (e) {
        if (!isNotTaken(e) || Date.now() + 100 * attempt >= deadline) throw e;
        // Backoff with jitter, so the callers of a busy meeting do not all come back at once.
        await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 2_000) * (0.5 + Math.random())));
      }
    }
  };
  const handle = temporal.workflow.getHandle(liveWorkflowId(m.id));
  try {
    return await call(handle);
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError)) throw updateError(e, m.id, m.status, log);
  }
  // No running workflow. Either the meeting ended a moment ago (its run is closed), or its workflow was
  // never started (the API pod stopped between storing the meeting and starting it): start it now.
  let started: 'started' | 'exists';
  try {
    started = await startWorkflow(temporal, deps.config, m.id);
  } catch (e) {
    throw updateError(e, m.id, m.status, log);
  }
  if (started === 'exists') {
    // Its run is closed: it ended a moment ago, or an operator closed the workflow by hand.
    const now = await deps.db('meetings').where({ id: m.id }).first('status');
    throw notLive(m.id, !now ? 'gone' : now.status === 'live' ? 'closed' : now.status);
  }
  log.warn({ meetingId: m.id }, 'live meeting had no workflow; started it');
  try {
    return await call(handle);
  } catch (e) {
    throw updateError(e, m.id, m.status, log);
  }
}

export interface LiveActorArgs {
  actorUserId: string;
}

/**
 * Append sentences to a live meeting (active or paused). Answers once they are stored: a reader sees
 * them at once. A chunk_id sent before replaces its earlier sentence (same index) instead of adding one.
 * The row lock orders it against the end: once the end has committed, an append is refused.
 */
export async function appendLiveSentences(deps: LiveDeps, p: Principal, meetingId: string, sentences: unknown): Promise<LiveAppendResult> {
  const id = requireMeetingId('meetingId', meetingId);
  const valid = validateLiveSentences(sentences);
  await drivenMeeting(deps.db, p, id, 'append sentences to');
  try {
    const r = await storeLiveSentences(deps.db, id, valid);
    liveSentencesIngested.inc(r.appended);
    return { meetingId: id, state: r.state, appended: r.appended, replaced: r.replaced, sentence_count: r.sentence_count };
  } catch (e) {
    if (e instanceof MeetingNotLiveError) throw notLive(id, e.status);
    throw e;
  }
}

/** active → paused. */
export async function pauseLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'pause');
  return runUpdate<LiveStateResult>(deps, m, LIVE_UPDATES.pause, { actorUserId: p.userId } satisfies LiveActorArgs);
}

/** paused → active. */
export async function resumeLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'resume');
  return runUpdate<LiveStateResult>(deps, m, LIVE_UPDATES.resume, { actorUserId: p.userId } satisfies LiveActorArgs);
}

/**
 * active or paused → ended. Answers once the meeting has left the active meetings (is_live false); its
 * transcript is then post-processed like an upload (status processing → completed, with summary and
 * analytics, automation rules and webhooks).
 */
export async function endLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'end');
  return runUpdate<LiveStateResult>(deps, m, LIVE_UPDATES.end, { actorUserId: p.userId } satisfies LiveActorArgs);
}
