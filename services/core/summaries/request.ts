/**
 * A person asks for a meeting's notes again (after naming its speakers, or once a chat model is
 * configured): its organizer or an admin of its team may (access/rules.ts, managedBy), for a completed
 * meeting. The summary is written by a workflow (the port's startResummary), not in the request:
 * a chat model may take minutes. One re-summary per meeting runs at a time; asking while one runs
 * joins it.
 */
import { invalid, ServiceError } from '../../platform/errors';
import { logger } from '../../platform/logger';
import { audit } from '../audit';
import type { ServiceDeps } from '../ports';
import { lockManaged } from '../meetings';
import type { Principal } from '../access';

export interface ResummaryRequest {
  success: true;
  meetingId: string;
  /** queued: a run was started; running: one was running already and this request joined it. */
  status: 'queued' | 'running';
  /** Who will write the notes: the chat model at LLM_URL, or the built-in summarizer. */
  summarizer: 'llm' | 'extractive';
  message: string;
}

export async function requestResummary(
  deps: ServiceDeps,
  p: Principal,
  input: { meetingId: string },
): Promise<ResummaryRequest> {
  const meetingId = (input.meetingId ?? '').trim();
  if (!meetingId) throw invalid('meetingId', 'must not be empty', 'meetingId must not be empty');
  const m = await deps.db.transaction(async (trx) => {
    const [row] = await lockManaged(trx, p, [meetingId], 'summarize again');
    const state = await trx('meetings').where('id', row.id).first('status');
    if (state.status !== 'completed')
      throw new ServiceError(
        'invariant_violation',
        `meeting ${JSON.stringify(row.id)} is ${state.status}: only a completed meeting's notes can be written again`,
      );
    return row;
  });
  if (!deps.workflows)
    throw new ServiceError(
      'feature_unavailable',
      'summarizing again is not available on this server: it has no Temporal connection',
    );
  let outcome;
  try {
    outcome = await deps.workflows.startResummary({ meetingId: m.id, requestedBy: p.userId });
  } catch (e) {
    (deps.log ?? logger).error({ err: e, meetingId: m.id }, 'could not start a re-summary');
    throw new ServiceError(
      'internal_error',
      'The re-summary could not be queued right now; nothing changed. Ask again in a moment.',
    );
  }
  const summarizer = deps.config.llm.url ? 'llm' : 'extractive';
  await audit(
    deps.db,
    p,
    'meeting.resummary_requested',
    { type: 'meeting', id: m.id, teamId: m.team_id },
    {
      summarizer,
      joined: outcome === 'exists',
    },
  );
  const status = outcome === 'exists' ? 'running' : 'queued';
  const by = summarizer === 'llm' ? 'the chat model' : 'the built-in summarizer';
  return {
    success: true,
    meetingId: m.id,
    status,
    summarizer,
    message:
      status === 'queued'
        ? `The notes are being written again by ${by}; the meeting keeps its current notes until the new ones are stored, and action items a person changed keep their changes.`
        : 'A re-summary of this meeting is running already; its notes arrive when it ends.',
  };
}
