/**
 * Driving a live meeting: append sentences (stored here at once, store.ts), pause, resume and end (the
 * meeting's workflow takes them as updates through the workflow port, and answers whether its state
 * machine took them). Only the organizer or a team admin may drive a meeting (../access/rules.ts).
 */
import type { Knex } from 'knex';
import { logger, type Logger } from '../../platform/logger';
import { forbidden, notFound, ServiceError } from '../../platform/errors';
import { liveSentencesIngested } from '../../platform/metrics';
import { liveMeetingDrivenBy, visibleTo, type Principal } from '../access';
import { WorkflowNotRunning, WorkflowRefusal, WorkflowTimedOut, type LiveUpdate } from '../ports';
import type { LiveActorArgs, LiveAppendResult, LiveStateResult } from './protocol';
import { requireWorkflows, startLiveWorkflow, type LiveDeps } from './start';
import { MeetingNotLiveError, storeLiveSentences } from './store';
import { requireMeetingId, validateLiveSentences } from './validate';

/**
 * How long a request waits for the workflow to answer. While no worker runs (a restart) the update
 * waits in Temporal and is applied when one is back; past this the caller is told to send it again,
 * which chunk ids make safe.
 */
export const LIVE_UPDATE_WAIT_MS = 60_000;

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
  const m: DrivenMeeting | undefined = await db('meetings as m')
    .modify(liveMeetingDrivenBy(p, 'm'))
    .where('m.id', id)
    .first('m.id', 'm.status', 'm.is_live');
  if (!m) {
    const seen = await db('meetings as m')
      .modify(visibleTo(p, 'm'))
      .where('m.team_id', p.teamId)
      .where('m.id', id)
      .first('m.organizer_email');
    if (!seen) throw notFound('meeting', id);
    throw forbidden(
      `you may not ${action} meeting ${JSON.stringify(id)}: ${WHO_MAY} (organizer: ${seen.organizer_email})`,
    );
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
  return new ServiceError(
    'invariant_violation',
    `meeting ${JSON.stringify(id)} is not live: ${now}. Start a new live meeting with startLiveMeeting.`,
  );
}

/** A failed update as the caller's error: the state machine's refusal is an invariant_violation. */
function updateError(e: unknown, meetingId: string, status: string, log: Logger): ServiceError {
  if (e instanceof WorkflowRefusal) {
    switch (e.refusal) {
      case 'invalid_transition':
        return new ServiceError('invariant_violation', `meeting ${JSON.stringify(meetingId)}: ${e.message}`);
      case 'not_live':
        return notLive(meetingId, status === 'live' ? 'no longer live' : status);
      case 'store_failed':
        return new ServiceError('internal_error', e.message);
    }
  }
  if (e instanceof WorkflowTimedOut) {
    return new ServiceError(
      'internal_error',
      `The live meeting did not confirm within ${LIVE_UPDATE_WAIT_MS / 1000} s (the service may be restarting). Send the same request again.`,
    );
  }
  log.error({ err: e, meetingId }, 'live meeting update failed');
  return new ServiceError(
    'internal_error',
    'The live meeting could not take this request right now; it has been logged. Send it again in a moment.',
  );
}

async function runUpdate(
  deps: LiveDeps,
  m: DrivenMeeting,
  update: LiveUpdate,
  args: LiveActorArgs,
): Promise<LiveStateResult> {
  const workflows = requireWorkflows(deps);
  const log = deps.log ?? logger;
  const deadline = Date.now() + LIVE_UPDATE_WAIT_MS;
  try {
    return await workflows.updateLiveMeeting(m.id, update, args, deadline);
  } catch (e) {
    if (!(e instanceof WorkflowNotRunning)) throw updateError(e, m.id, m.status, log);
  }
  // No running workflow. Either the meeting ended a moment ago (its run is closed), or its workflow was
  // never started (the API pod stopped between storing the meeting and starting it): start it now.
  let started: 'started' | 'exists';
  try {
    started = await startLiveWorkflow(workflows, deps.config, m.id);
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
    return await workflows.updateLiveMeeting(m.id, update, args, deadline);
  } catch (e) {
    throw updateError(e, m.id, m.status, log);
  }
}

/**
 * Append sentences to a live meeting (active or paused). Answers once they are stored: a reader sees
 * them at once. A chunk_id sent before replaces its earlier sentence (same index) instead of adding one.
 * The row lock orders it against the end: once the end has committed, an append is refused.
 */
export async function appendLiveSentences(
  deps: LiveDeps,
  p: Principal,
  meetingId: string,
  sentences: unknown,
): Promise<LiveAppendResult> {
  const id = requireMeetingId('meetingId', meetingId);
  const valid = validateLiveSentences(sentences);
  await drivenMeeting(deps.db, p, id, 'append sentences to');
  try {
    const r = await storeLiveSentences(deps.db, id, valid);
    liveSentencesIngested.inc(r.appended);
    return {
      meetingId: id,
      state: r.state,
      appended: r.appended,
      replaced: r.replaced,
      sentence_count: r.sentence_count,
    };
  } catch (e) {
    if (e instanceof MeetingNotLiveError) throw notLive(id, e.status);
    throw e;
  }
}

/** active → paused. */
export async function pauseLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'pause');
  return runUpdate(deps, m, 'pause', { actorUserId: p.userId });
}

/** paused → active. */
export async function resumeLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'resume');
  return runUpdate(deps, m, 'resume', { actorUserId: p.userId });
}

/**
 * active or paused → ended. Answers once the meeting has left the active meetings (is_live false); its
 * transcript is then post-processed like an upload (status processing → completed, with summary and
 * analytics, automation rules and webhooks).
 */
export async function endLiveMeeting(deps: LiveDeps, p: Principal, meetingId: string): Promise<LiveStateResult> {
  const m = await drivenMeeting(deps.db, p, requireMeetingId('meetingId', meetingId), 'end');
  return runUpdate(deps, m, 'end', { actorUserId: p.userId });
}
