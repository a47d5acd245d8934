/**
 * Correcting what a transcript says: one sentence's text replaced by what was really said (a name
 * the engine misheard, a number, a product). The sentence keeps its index, speaker and times, and
 * `raw_text` keeps what the engine heard, so exports and re-transcription can still tell the two apart.
 *
 * Everything that reads the words follows in the same statement, through the sentences table's
 * triggers: the sentence's search vector, the meeting's lexeme sets and best moments, the changes feed
 * (`transcript`) and `transcript.updated` with `changed: ["sentences"]`. What a model made from the
 * words is not rewritten: the notes stay as they are until someone asks for them again
 * (requestResummary), and the meeting's vectors (search by meaning) are computed again by a workflow
 * the correction starts, since embedding takes seconds a request should not wait for.
 *
 * Who may: the meeting's organizer or an admin of its team, as for its other edits (access.managedBy).
 * Only a completed meeting: a live one keeps what its source sends, one still processing has no
 * transcript yet.
 */
import type { Knex } from 'knex';
import { invalid, ServiceError } from '../../platform/errors';
import { logger } from '../../platform/logger';
import type { Principal } from '../access';
import { audit } from '../audit';
import { hasControl, requireLength, requireStorableText } from '../input';
import type { ServiceDeps } from '../ports';
import { lockManaged, requireMeetingId } from './admin';

/** The longest sentence text, in characters: the same as a live meeting's sentences. */
export const SENTENCE_TEXT_MAX = 5000;

export interface CorrectSentenceInput {
  meetingId: string;
  /** The sentence's index, as svc_get_transcript and moments give it. */
  index: number;
  /** What was said. */
  text: string;
}

export interface CorrectSentenceResult {
  success: true;
  meetingId: string;
  index: number;
  text: string;
  previous_text: string;
  /** false when the sentence said this already: nothing was written and no event is sent. */
  changed: boolean;
  /**
   * Search by meaning: `updating` when its vectors are being computed again, `unchanged` when nothing
   * changed or the meeting has none yet (the backfill embeds it from its current words), `stale` when
   * the workflow could not be started (the old vectors stay until the meeting is embedded again).
   */
  meaning: 'updating' | 'unchanged' | 'stale';
}

function sentenceIndex(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0)
    throw invalid('index', 'a whole number, 0 or more', `index must be a whole number, 0 or more; got ${String(raw)}`);
  return raw;
}

function sentenceText(raw: unknown): string {
  if (typeof raw !== 'string') throw invalid('text', 'must be a string', 'text must be the sentence as it was said');
  if (hasControl(raw))
    throw invalid(
      'text',
      'no control characters',
      'text must be one line without control characters (tabs, line breaks): a sentence is one line',
    );
  // Runs of spaces are one, as in the sentences the engines write.
  const text = requireLength('text', raw.trim().replace(/ {2,}/g, ' '), 1, SENTENCE_TEXT_MAX);
  return requireStorableText('text', text);
}

/** Replace one sentence's text (see the file's comment for what follows it). */
export async function correctSentence(
  deps: ServiceDeps,
  p: Principal,
  input: CorrectSentenceInput,
): Promise<CorrectSentenceResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const index = sentenceIndex(input.index);
  const text = sentenceText(input.text);
  const done = await deps.db.transaction(async (trx) => {
    const [m] = await lockManaged(trx, p, [meetingId], 'correct a sentence of');
    const state = await trx('meetings').where('id', m.id).first('status');
    if (state.status !== 'completed') {
      throw new ServiceError(
        'invariant_violation',
        state.status === 'live'
          ? `meeting ${JSON.stringify(m.id)} is live: it keeps the sentences its source sends; correct them once it has ended`
          : `meeting ${JSON.stringify(m.id)} has no transcript yet (status ${state.status}); correct it once it is completed`,
      );
    }
    const row = await sentenceAt(trx, m.id, index);
    if (row.text === text) return { previous: row.text, changed: false, embedded: false };
    await trx('sentences').where({ meeting_id: m.id, idx: index }).update({ text });
    await trx('meetings').where('id', m.id).update({ updated_at: trx.fn.now() });
    // The index alone: an audit row outlives its meeting, so it keeps no words of it.
    await audit(trx, p, 'meeting.correct_sentence', { type: 'meeting', id: m.id, teamId: m.team_id }, { index });
    const embedded = await trx('meeting_embeddings').where('meeting_id', m.id).first('meeting_id');
    return { previous: row.text, changed: true, embedded: !!embedded };
  });
  const meaning = done.embedded ? await embedAgain(deps, meetingId) : 'unchanged';
  return { success: true, meetingId, index, text, previous_text: done.previous, changed: done.changed, meaning };
}

/** The sentence at `index`, locked; an index past the transcript is refused with the range there is. */
async function sentenceAt(trx: Knex.Transaction, meetingId: string, index: number): Promise<{ text: string }> {
  const row = await trx('sentences').where({ meeting_id: meetingId, idx: index }).forUpdate().first('text');
  if (row) return row;
  const { n } = (await trx('sentences').where('meeting_id', meetingId).count({ n: '*' }).first()) as { n: string };
  const count = Number(n);
  throw invalid(
    'index',
    count ? `0 to ${count - 1}` : 'a sentence of the meeting',
    count
      ? `index ${index} is past the transcript: meeting ${JSON.stringify(meetingId)} has sentences 0 to ${count - 1}`
      : `meeting ${JSON.stringify(meetingId)} has no sentences to correct`,
  );
}

/** Start computing the meeting's vectors again; the correction stands whatever happens here. */
async function embedAgain(deps: ServiceDeps, meetingId: string): Promise<'updating' | 'stale'> {
  if (!deps.workflows) return 'stale';
  try {
    await deps.workflows.startEmbedding(meetingId);
    return 'updating';
  } catch (e) {
    (deps.log ?? logger).warn({ err: e, meetingId }, 'could not start embedding a corrected meeting again');
    return 'stale';
  }
}
