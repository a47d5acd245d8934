/**
 * fetchMedia: download the upload's URL through the SSRF guard (services/net: public addresses only
 * unless ALLOW_PRIVATE_NETWORK, DNS pinned, redirects checked, size cap MEDIA_MAX_BYTES unless an
 * admin set bypass_size_check, deadline MEDIA_FETCH_TIMEOUT), streamed to a file in the stage (never
 * whole in memory), sniff what the bytes are (audio, video, WebVTT, SRT; anything else refused), and for
 * audio and video ask ffprobe what the file holds: a file ffmpeg cannot read, one without an audio
 * stream, or one longer than MEDIA_MAX_SECONDS is refused, naming the rule. Then charge the owner's
 * minutes once. download_auth travels as the request's Authorization header (never through history).
 */
import { rm, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { chargeMinutes, loadIngestMeeting, setProgress } from '../../services/core/ingest';
import { FetchSecret, MEDIA_HARD_CEILING_BYTES, readFetchSecret } from '../../services/core/uploads';
import type { MediaInput } from '../../services/intelligence/types';
import { fetchMediaToFile, probeMedia, UnreadableMediaError } from '../../services/intelligence/media';

/** The worker role checks at start that ffmpeg and ffprobe are on PATH (services/worker/main.ts). */
export { requireFfmpeg } from '../../services/intelligence/media';
import { ActivityDeps, activitySignal, badInput, runStep, stageOf } from './context';
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

const STAGED_MEDIA = 'media.bin';

/**
 * Download the meeting's media into its stage (media.bin), recognise and probe it (no charge). The
 * temporary file of an attempt that fails or is cancelled is removed.
 */
export async function download(deps: ActivityDeps, meetingId: string): Promise<{ ref: MediaRef; path: string }> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  if (!meeting) throw ApplicationFailure.nonRetryable(`meeting ${meetingId} no longer exists`, FAILURE.meetingGone);
  const secret = await readFetchSecret(deps.db, deps.config, meetingId);
  if (!secret)
    throw badInput(
      `meeting ${meetingId} has no download to make: it is ${meeting.status} and its download instructions are gone`,
    );

  const { config } = deps;
  const maxBytes = meeting.upload_options.bypass_size_check
    ? Math.max(config.media.maxBytes, MEDIA_HARD_CEILING_BYTES)
    : config.media.maxBytes;
  const stage = stageOf(deps, meetingId);
  const tmp = await stage.tempPath('media');
  const signal = activitySignal();
  try {
    const fetched = await fetchMediaToFile(secret.url, config, tmp, {
      maxBytes,
      headers: authHeader(secret.auth),
      signal,
    });
    const { contentType, fileName, kind, sizeBytes, sha256 } = fetched;
    let durationSeconds = fetched.durationSeconds;
    let audioChannels: number | undefined;
    if (kind !== 'captions') {
      let probe;
      try {
        probe = await probeMedia(tmp, signal);
      } catch (e) {
        if (e instanceof UnreadableMediaError)
          throw badInput(
            `url: the recording cannot be read (unreadable: ${e.message}); send a complete audio or video file`,
          );
        throw e;
      }
      if (!probe.audio) {
        throw badInput(
          `url: the ${kind} file has no audio stream (no_audio: ${probe.videoStreams} video, 0 audio streams); nothing to transcribe`,
        );
      }
      durationSeconds = probe.durationSeconds;
      audioChannels = probe.audio.channels;
      if (durationSeconds !== null && durationSeconds > config.media.maxSeconds) {
        throw badInput(
          `url: the recording lasts ${Math.round(durationSeconds)} s, longer than the ${config.media.maxSeconds}-second limit (too_long: MEDIA_MAX_SECONDS)`,
        );
      }
    }
    await stage.adopt(tmp, STAGED_MEDIA);
    const ref: MediaRef = { contentType, fileName, bytes: sizeBytes, sha256, durationSeconds, kind };
    if (audioChannels !== undefined) ref.audioChannels = audioChannels;
    return { ref, path: join(stage.dir, STAGED_MEDIA) };
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * The path of this run's media: the staged file when it is exactly the file fetched, else downloaded
 * again (a worker that did not fetch it). Re-downloading never charges minutes again.
 */
export async function mediaPathFor(deps: ActivityDeps, meetingId: string, ref: MediaRef): Promise<string> {
  const staged = await stageOf(deps, meetingId).mediaPath(ref);
  if (staged) return staged;
  return (await download(deps, meetingId)).path;
}

/** The media of this run as bytes: caption files (small) and the single-request path of runs started before chunking. */
export async function mediaFor(deps: ActivityDeps, meetingId: string, ref: MediaRef): Promise<MediaInput> {
  const path = await mediaPathFor(deps, meetingId, ref);
  return { bytes: await readFile(path), contentType: ref.contentType, fileName: ref.fileName };
}

export function fetchMediaActivity(deps: ActivityDeps) {
  return (input: MeetingRef): Promise<MediaRef> =>
    runStep('fetch_media', async () => {
      await setProgress(deps.db, input.meetingId, { stage: 'downloading', percent: 0 });
      const { ref } = await download(deps, input.meetingId);
      if (ref.durationSeconds) await chargeMinutes(deps.db, input.meetingId, ref.durationSeconds);
      await setProgress(deps.db, input.meetingId, { stage: 'downloaded', percent: 10 });
      return ref;
    });
}
