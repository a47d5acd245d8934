/**
 * fetchMedia: download the upload's URL through the SSRF guard (services/net: public addresses only
 * unless ALLOW_PRIVATE_NETWORK, DNS pinned, redirects checked, size cap MEDIA_MAX_BYTES unless an
 * admin set bypass_size_check, deadline MEDIA_FETCH_TIMEOUT), sniff what the bytes are (audio, video,
 * WebVTT, SRT; anything else refused), read the duration, stage the bytes, and charge the owner's
 * minutes once. download_auth travels as the request's Authorization header (never through history).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { chargeMinutes, loadIngestMeeting } from '../../services/core/ingest';
import { FetchSecret, MEDIA_HARD_CEILING_BYTES, readFetchSecret } from '../../services/core/uploads';
import type { MediaInput } from '../../services/intelligence/types';
import { fetchMedia } from '../../services/intelligence/media';
import { ActivityDeps, activitySignal, badInput, runStep, stageOf } from './context';
import { sha256 } from './stage';
import { FAILURE } from '../contracts';
import type { MediaRef, MeetingRef } from './types';

function authHeader(auth: FetchSecret['auth']): Record<string, string> {
  switch (auth.type) {
    case 'bearer_token':
      return { authorization: `Bearer ${auth.token}` };
    case 'basic_auth':
      return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}` };
    default:
      return {};
  }
}

export interface Downloaded {
  media: MediaInput;
  ref: MediaRef;
}

/** Download and recognise the meeting's media (no staging, no charge). */
export async function download(deps: ActivityDeps, meetingId: string): Promise<Downloaded> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  if (!meeting) throw ApplicationFailure.nonRetryable(`meeting ${meetingId} no longer exists`, FAILURE.meetingGone);
  const secret = await readFetchSecret(deps.db, deps.config, meetingId);
  if (!secret) throw badInput(`meeting ${meetingId} has no download to make: it is ${meeting.status} and its download instructions are gone`);

  const { config } = deps;
  const maxBytes = meeting.upload_options.bypass_size_check ? Math.max(config.media.maxBytes, MEDIA_HARD_CEILING_BYTES) : config.media.maxBytes;
  const fetched = await fetchMedia(secret.url, config, { maxBytes, headers: authHeader(secret.auth), signal: activitySignal() });
  const { bytes, contentType, fileName, kind, durationSeconds } = fetched;
  return {
    media: { bytes, contentType, fileName },
    ref: { contentType, fileName, bytes: bytes.length, sha256: sha256(bytes), durationSeconds, kind },
  };
}

/**
 * The media of this run: the staged bytes when they are exactly the file fetched, else downloaded
 * again (a worker that did not fetch it). Re-downloading never charges minutes again.
 */
export async function mediaFor(deps: ActivityDeps, meetingId: string, ref: MediaRef): Promise<MediaInput> {
  const stage = stageOf(deps, meetingId);
  const staged = await stage.readMedia(ref);
  if (staged) return { bytes: staged, contentType: ref.contentType, fileName: ref.fileName };
  const fresh = await download(deps, meetingId);
  await stage.writeMedia(fresh.media.bytes);
  return fresh.media;
}

export function fetchMediaActivity(deps: ActivityDeps) {
  return (input: MeetingRef): Promise<MediaRef> =>
    runStep('fetch_media', async () => {
      const { media, ref } = await download(deps, input.meetingId);
      await stageOf(deps, input.meetingId).writeMedia(media.bytes);
      if (ref.durationSeconds) await chargeMinutes(deps.db, input.meetingId, ref.durationSeconds);
      return ref;
    });
}
