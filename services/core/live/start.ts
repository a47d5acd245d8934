/**
 * Live meetings: a recorder or meeting bot starts a meeting (start.ts), streams sentences while it
 * runs, pauses, resumes and ends it (drive.ts).
 *
 * This module is what the transports call, with the caller's principal: it validates (every refusal
 * names its field and rule; nothing is stored on refusal) and checks who may drive the meeting
 * (../access/rules.ts). Then:
 *   - sentences are stored here, at once, in one statement under the meeting's row lock
 *     (store.ts): readable as soon as the call answers, whether or not a worker is running. An
 *     append is the hot path (a recorder sends several a second per meeting); a Temporal round trip
 *     each would make the Temporal server the bottleneck of every live meeting in the service;
 *   - pause, resume and end go to the meeting's LiveMeetingWorkflow (`live-<meetingId>`) as Temporal
 *     Workflow Updates, so the caller learns synchronously whether the state machine took them
 *     (protocol.ts). The workflow owns the state, the idle timer and the post-processing.
 *
 * Reads need nothing of their own:
 * svc_get_transcript returns a live meeting's sentences as a point-in-time snapshot with is_live true,
 * and svc_get_active_meetings lists meetings whose is_live/live_state this flow maintains.
 */
import type { Config } from '../../platform/config';
import { logger } from '../../platform/logger';
import { invalid, ServiceError } from '../../platform/errors';
import { requireMayStartLiveMeetingFor, type Principal } from '../access';
import { audit } from '../audit';
import type { ServiceDeps, StartOutcome, WorkflowPort } from '../ports';
import { newId } from '../input';
import { addParticipants } from '../meetings';
import { validateLiveMeeting, type StartLiveMeetingInput } from './validate';

export type LiveDeps = ServiceDeps;

/** An idle timeout below this would end a meeting between two sentences of a normal conversation. */
const MIN_IDLE_TIMEOUT_MS = 1_000;

export function requireWorkflows(deps: LiveDeps): WorkflowPort {
  if (!deps.workflows)
    throw new ServiceError(
      'feature_unavailable',
      'live meetings are not available on this server: it has no Temporal connection',
    );
  return deps.workflows;
}

/** Start the meeting's workflow; 'exists' when a run with its id exists already (running or closed). */
export function startLiveWorkflow(workflows: WorkflowPort, config: Config, meetingId: string): Promise<StartOutcome> {
  return workflows.startLiveMeeting({
    meetingId,
    idleTimeoutMs: Math.max(MIN_IDLE_TIMEOUT_MS, config.liveIdleTimeoutMs),
  });
}

/**
 * startLiveMeeting: the meeting row (status `live`, is_live, state `active`) and its workflow. The
 * organizer must be a user of the caller's team; starting one for someone else takes a team admin.
 * Returns the meeting id (= transcript id).
 */
export async function startLiveMeeting(deps: LiveDeps, p: Principal, input: StartLiveMeetingInput): Promise<string> {
  const m = validateLiveMeeting(input);
  const workflows = requireWorkflows(deps);
  const { db } = deps;

  const organizerEmail = m.organizerEmail ?? p.email.toLowerCase();
  const organizer: { id: string; email: string; name: string } | undefined = await db('users')
    .where('team_id', p.teamId)
    .whereRaw('lower(email) = ?', [organizerEmail])
    .first('id', 'email', 'name');
  if (!organizer) {
    throw invalid(
      'organizer_email',
      'a user of your team',
      `organizer_email ${JSON.stringify(organizerEmail)} is not a user of your team; the organizer of a live meeting must be one`,
    );
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
      upload_options: JSON.stringify({
        attendees: m.attendees,
        save_video: false,
        bypass_size_check: false,
        request_hash: '',
        live_speakers: {},
      }),
    });
    await addParticipants(tx, id, [
      { email: organizer.email.toLowerCase(), name: organizer.name, userId: organizer.id },
      ...m.attendees.map((a) => ({ email: a.email, name: a.displayName, userId: null })),
    ]);
    await audit(
      tx,
      p,
      'meeting.live_started',
      { type: 'meeting', id },
      { organizer: organizer.email.toLowerCase(), meeting_link: m.meetingLink, privacy: m.privacy },
    );
  });

  try {
    await startLiveWorkflow(workflows, deps.config, id);
  } catch (e) {
    // Nothing stays behind a refusal: without its workflow the meeting could never be driven or end.
    (deps.log ?? logger).error({ err: e, meetingId: id }, 'could not start LiveMeetingWorkflow');
    await db('meetings').where({ id }).delete();
    throw new ServiceError(
      'internal_error',
      'The live meeting could not be started right now; nothing was stored. Send the same request again in a moment.',
    );
  }
  return id;
}
