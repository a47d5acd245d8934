import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseCaptions } from '../captions';
import type { MediaInput } from '../types';
import { NetError } from '../../net/errors';
import { safeFetch, type BodySink, type SafeFetchOptions } from '../../net/safe-fetch';
import { sniffMedia, type MediaKind } from './sniff';

/** The refusal of a file that is neither audio, video nor captions. */
const unsupportedType = (found: string) =>
  new NetError(`url: unsupported file type (${found}); send audio, video, WebVTT or SRT`, {
    retryable: false,
    rule: 'unsupported_media_type',
    field: 'url',
  });

export interface FetchedMedia extends MediaInput {
  kind: MediaKind;
  /** Seconds of audio/video (from the container's metadata) or the end of the last caption cue; null when unknown. */
  durationSeconds: number | null;
  /** The URL that served the file, after redirects. */
  url: string;
  sizeBytes: number;
}

/** The service settings fetchMedia needs (Config satisfies it). */
export interface MediaFetchConfig {
  allowPrivateNetwork: boolean;
  media: { maxBytes: number; fetchTimeoutMs: number };
}

/**
 * Downloads a user's media URL for transcription: safeFetch (SSRF guard, size cap, deadline), then the
 * bytes decide what it is; anything but audio, video, WebVTT or SRT is refused.
 */
export async function fetchMedia(
  url: string,
  config: MediaFetchConfig,
  overrides: Partial<
    Pick<SafeFetchOptions, 'resolve' | 'signal' | 'allowedPrivateAddresses' | 'headers' | 'maxBytes'>
  > = {},
): Promise<FetchedMedia> {
  const response = await safeFetch(url, {
    timeoutMs: config.media.fetchTimeoutMs,
    allowPrivateNetwork: config.allowPrivateNetwork,
    ...overrides,
    maxBytes: overrides.maxBytes ?? config.media.maxBytes,
    // credentials for the download (a signed link's bearer token) travel as headers; Accept is ours
    headers: { accept: 'audio/*, video/*, text/vtt, application/x-subrip, */*;q=0.5', ...overrides.headers },
  });
  const sniffed = await sniffMedia(response.body);
  if (!sniffed.ok) throw unsupportedType(sniffed.found);
  const { media } = sniffed;
  const durationSeconds =
    media.kind === 'captions'
      ? parseCaptions(response.body).duration_seconds
      : await mediaDuration(response.body, media.contentType, media.extension);
  return {
    bytes: response.body,
    contentType: media.contentType,
    fileName: fileNameFor(response.url, response.headers['content-disposition'], media.extension),
    kind: media.kind,
    durationSeconds,
    url: response.url,
    sizeBytes: response.body.length,
  };
}

/**
 * Duration from the container (MP3 frames, MP4 atoms, WAV header…); null when the file does not say.
 * The extension is passed along with the type: music-metadata picks its parser by either, and its
 * Content-Type parsing breaks when the package is transpiled (as under jest).
 */
export async function mediaDuration(bytes: Buffer, contentType: string, extension?: string): Promise<number | null> {
  try {
    const sniffed = extension ? undefined : await sniffMedia(bytes);
    const ext = extension ?? (sniffed?.ok ? sniffed.media.extension : undefined);
    const { parseBuffer } = await import('music-metadata');
    const fileInfo = { mimeType: contentType, path: ext ? `media.${ext}` : undefined, size: bytes.length };
    const meta = await parseBuffer(bytes, fileInfo, { duration: true, skipCovers: true });
    const d = meta.format.duration;
    return typeof d === 'number' && Number.isFinite(d) && d > 0 ? Math.round(d * 1000) / 1000 : null;
  } catch {
    // A file that plays but has odd metadata still goes to transcription; the ASR result gives the length.
    return null;
  }
}

/**
 * A safe file name with the extension the content really has: speech-to-text servers pick their decoder
 * by extension, and a URL like /download?id=7 has none.
 */
export function fileNameFor(url: string, contentDisposition: string | undefined, extension: string): string {
  const fromHeader = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(contentDisposition ?? '')?.[1];
  let base = fromHeader ?? decodeSafe(new URL(url).pathname.split('/').pop() ?? '');
  base = base
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 120);
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'media';
  return `${stem}.${extension}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface FetchedFile {
  kind: MediaKind;
  contentType: string;
  fileName: string;
  sizeBytes: number;
  sha256: string;
  /** Caption files: the end of the last cue (audio and video are measured by ffprobe afterwards). */
  durationSeconds: number | null;
  url: string;
}

/** How much of the file's start decides what it is (magic numbers, a caption header). */
const SNIFF_BYTES = 256 * 1024;

/**
 * fetchMedia for recordings of any size: the body streams to `path` (never whole in memory), hashed on
 * the way; the file's start decides what it is, as in fetchMedia. The caller removes `path`.
 */
export async function fetchMediaToFile(
  url: string,
  config: MediaFetchConfig,
  path: string,
  overrides: Partial<
    Pick<SafeFetchOptions, 'resolve' | 'signal' | 'allowedPrivateAddresses' | 'headers' | 'maxBytes'>
  > = {},
): Promise<FetchedFile> {
  const file = createWriteStream(path);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headBytes = 0;
  const sink: BodySink = {
    write(chunk) {
      hash.update(chunk);
      if (headBytes < SNIFF_BYTES) {
        head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
        headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
      }
      return file.write(chunk);
    },
    once: (event, listener) => file.once(event, listener),
  };
  let response;
  try {
    response = await safeFetch(url, {
      timeoutMs: config.media.fetchTimeoutMs,
      allowPrivateNetwork: config.allowPrivateNetwork,
      ...overrides,
      maxBytes: overrides.maxBytes ?? config.media.maxBytes,
      headers: { accept: 'audio/*, video/*, text/vtt, application/x-subrip, */*;q=0.5', ...overrides.headers },
      sink,
    });
  } finally {
    await new Promise<void>((resolve, reject) => file.end((e?: Error | null) => (e ? reject(e) : resolve())));
  }
  const start = Buffer.concat(head);
  const sniffed = await sniffMedia(start);
  if (!sniffed.ok) throw unsupportedType(sniffed.found);
  const { media } = sniffed;
  return {
    kind: media.kind,
    contentType: media.contentType,
    fileName: fileNameFor(response.url, response.headers['content-disposition'], media.extension),
    sizeBytes: response.size,
    sha256: hash.digest('hex'),
    durationSeconds: media.kind === 'captions' ? parseCaptions(await readFile(path)).duration_seconds : null,
    url: response.url,
  };
}
