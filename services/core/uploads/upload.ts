/**
 * uploadAudio: validate the request (validate.ts), create the meeting (status `processing`) and ask for
 * its transcription (the workflow port, workflow id `transcription-<meetingId>`). The answer comes at
 * once; the work runs in Temporal.
 *
 * Idempotency: the same request retried with the same client_reference_id by the same user finds the
 * meeting it created (unique index meetings_client_reference_unique) and never starts a second run
 * (the port refuses a duplicate workflow id). A different request under a used client_reference_id is
 * refused rather than silently answered with someone else's meeting.
 *
 * Secrets: the download URL (which may be pre-signed) and download_auth credentials are sealed with
 * SECRETS_KEY into upload_options (fetch-secret.ts) and removed once the meeting leaves `processing`.
 */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { audit } from '../audit';
import { invalid, ServiceError } from '../../platform/errors';
import { newId } from '../input';
import { addParticipants } from '../meetings';
import type { Principal } from '../access';
import type { Config } from '../../platform/config';
import { logger } from '../../platform/logger';
import { sealJson } from '../../platform/sealing';
import type { ServiceDeps } from '../ports';
import type { NormalizedUpload, UploadInput, UploadOptions, UploadResult } from './types';
import { validateUpload } from './validate';
import { checkSpeechLanguage } from '../../intelligence/asr';

/** Caption files are text: their language needs no speech model. */
const CAPTION_PATH = /\.(vtt|srt)$/i;

/**
 * A recording in a language no configured speech model transcribes is refused now, not after its
 * download: the field the client used (custom_language or language) is named with the settings.
 */
function checkLanguageServed(config: Config, input: UploadInput, u: NormalizedUpload): void {
  if (!u.customLanguage || CAPTION_PATH.test(new URL(u.fetch.url).pathname)) return;
  checkSpeechLanguage(config, u.customLanguage, input.custom_language ? 'custom_language' : 'language');
}

/**
 * Same request, same hash: what decides whether a reused client_reference_id is a retry. Keyed with
 * SECRETS_KEY, because the request includes download credentials a plain hash would let one guess at.
 */
function requestHash(u: NormalizedUpload, key: Buffer | undefined): string {
  const canonical = JSON.stringify([
    u.fetch,
    u.title,
    u.webhook,
    u.customLanguage,
    u.attendees,
    u.saveVideo,
    u.bypassSizeCheck,
    // A retry without meeting_date gets a new "now"; only an explicit date takes part.
    u.meetingDateGiven ? u.meetingDate.toISOString() : null,
    // Only when given, so the hash of an upload without them is what it always was.
    ...(u.speakerNames.length > 0 || u.splitChannels !== null ? [u.speakerNames, u.splitChannels] : []),
    ...(u.webhookEvents ? [u.webhookEvents] : []),
    ...(u.speakerCount !== null ? [{ speaker_count: u.speakerCount }] : []),
  ]);
  if (!key)
    throw new ServiceError(
      'invariant_violation',
      'SECRETS_KEY is not configured on this server; an operator must set it',
    );
  return createHmac('sha256', key).update(canonical).digest('hex');
}

const UNIQUE_VIOLATION = '23505';

interface ExistingMeeting {
  id: string;
  title: string;
  status: string;
  failure_reason: string | null;
  upload_options: UploadOptions;
}

async function findByReference(db: Knex, p: Principal, ref: string): Promise<ExistingMeeting | undefined> {
  return db('meetings')
    .where({ uploader_id: p.userId, client_reference_id: ref })
    .first('id', 'title', 'status', 'failure_reason', 'upload_options');
}

async function insertMeeting(
  db: Knex,
  p: Principal,
  u: NormalizedUpload,
  config: Pick<Config, 'secretsKey'>,
  hash: string,
): Promise<string> {
  const id = newId();
  const options: UploadOptions = {
    attendees: u.attendees,
    save_video: u.saveVideo,
    bypass_size_check: u.bypassSizeCheck,
    request_hash: hash,
    fetch_secret: sealJson(config.secretsKey, u.fetch),
    ...(u.speakerNames.length > 0 ? { speaker_names: u.speakerNames } : {}),
    ...(u.splitChannels !== null ? { split_channels: u.splitChannels } : {}),
    ...(u.speakerCount !== null ? { speaker_count: u.speakerCount } : {}),
  };
  await db.transaction(async (tx) => {
    await tx('meetings').insert({
      id,
      team_id: p.teamId,
      organizer_id: p.userId,
      organizer_email: p.email.toLowerCase(),
      uploader_id: p.userId,
      title: u.title,
      date: u.meetingDate,
      status: 'processing',
      source_url: u.displayUrl,
      client_reference_id: u.clientReferenceId,
      custom_language: u.customLanguage,
      upload_webhook: u.webhook,
      upload_webhook_events: u.webhookEvents,
      upload_options: JSON.stringify(options),
    });
    const organizer = p.email.toLowerCase();
    await addParticipants(tx, id, [
      { email: organizer, name: p.name, userId: p.userId },
      ...u.attendees.map((a) => ({
        email: a.email,
        name: a.displayName,
        userId: a.email === organizer ? p.userId : null,
      })),
    ]);
    await audit(
      tx,
      p,
      'meeting.upload',
      { type: 'meeting', id },
      {
        source_url: u.displayUrl,
        client_reference_id: u.clientReferenceId,
        webhook: u.webhook !== null,
        download_auth: u.fetch.auth.type,
      },
    );
  });
  return id;
}

const startFailed = () =>
  new ServiceError(
    'internal_error',
    'The upload could not be queued for transcription right now; nothing was stored. Send the same request again in a moment.',
  );

function replayAnswer(m: ExistingMeeting, ref: string): UploadResult {
  const base = { title: m.title, meetingId: m.id, clientReferenceId: ref, status: m.status };
  if (m.status === 'failed') {
    return {
      ...base,
      success: false,
      message: `This upload (client_reference_id ${JSON.stringify(ref)}) was received before as meeting ${m.id} and failed: ${m.failure_reason ?? 'unknown reason'}. Send it with a new client_reference_id to try again.`,
    };
  }
  return {
    ...base,
    success: true,
    message:
      m.status === 'completed'
        ? `This upload was received before as meeting ${m.id}; its transcript is ready.`
        : `This upload was received before as meeting ${m.id}; it is still being transcribed.`,
  };
}

/**
 * uploadAudio: validate, create the meeting, start its transcription, answer at once.
 * A retry of the same request (same client_reference_id, same fields) answers with the first meeting.
 */
export async function uploadAudio(deps: ServiceDeps, p: Principal, input: UploadInput): Promise<UploadResult> {
  const u = validateUpload(p, input, deps.config);
  checkLanguageServed(deps.config, input, u);
  if (!deps.workflows)
    throw new ServiceError(
      'feature_unavailable',
      'uploads are not available on this server: it has no Temporal connection',
    );
  const hash = requestHash(u, deps.config.secretsKey);
  const ref = u.clientReferenceId;

  const existing = ref ? await findByReference(deps.db, p, ref) : undefined;
  let meetingId: string;
  if (existing) {
    if (existing.upload_options?.request_hash !== hash) {
      throw invalid(
        'client_reference_id',
        'unique per upload',
        `client_reference_id ${JSON.stringify(ref)} was already used for a different upload (meeting ${existing.id}); use a new one`,
      );
    }
    if (existing.status !== 'processing') return replayAnswer(existing, ref!);
    meetingId = existing.id;
  } else {
    try {
      meetingId = await insertMeeting(deps.db, p, u, deps.config, hash);
    } catch (e) {
      // Two copies of one request at the same instant: the loser answers as a retry of the winner.
      if ((e as { code?: string }).code === UNIQUE_VIOLATION && ref) return uploadAudio(deps, p, input);
      throw e;
    }
  }

  try {
    await deps.workflows.startTranscription(meetingId);
  } catch (e) {
    (deps.log ?? logger).error({ err: e, meetingId }, 'could not start the transcription workflow');
    // A fresh meeting without a run would sit in `processing` forever: take it back, so the refusal
    // stores nothing and the client's retry starts clean. A replayed one stays for the next retry.
    if (!existing) await deps.db('meetings').where({ id: meetingId, status: 'processing' }).delete();
    throw startFailed();
  }

  return {
    success: true,
    title: u.title,
    meetingId,
    clientReferenceId: ref,
    status: 'processing',
    message: existing
      ? `This upload was received before as meeting ${meetingId}; it is still being transcribed.`
      : `Upload received: meeting ${meetingId} is being transcribed. Query transcript(id: "${meetingId}") for its status, or wait for the webhook.`,
  };
}
