import { detectCaptionFormat, type CaptionFormat } from '../captions';

/**
 * What a downloaded file is, from its bytes: magic numbers (file-type) for audio and video, and the
 * text itself for WebVTT and SRT captions. Server-sent Content-Type and file names are not trusted.
 */
export type MediaKind = 'audio' | 'video' | 'captions';

export interface Sniffed {
  kind: MediaKind;
  /** The content type the bytes show (audio/mpeg, video/mp4, text/vtt, application/x-subrip). */
  contentType: string;
  /** The usual file extension, without the dot. */
  extension: string;
  captionFormat?: CaptionFormat;
}

export type SniffResult = { ok: true; media: Sniffed } | { ok: false; found: string };

const CAPTIONS: Record<CaptionFormat, { contentType: string; extension: string }> = {
  vtt: { contentType: 'text/vtt', extension: 'vtt' },
  srt: { contentType: 'application/x-subrip', extension: 'srt' },
};

/** Caption detection reads only the start of the file: a header or first cue decides. */
const TEXT_PREFIX = 64 * 1024;

function textStart(bytes: Buffer): string {
  const head = bytes.subarray(0, TEXT_PREFIX);
  if (head[0] === 0xff && head[1] === 0xfe) return head.subarray(2).toString('utf16le');
  return head.toString('utf8');
}

export async function sniffMedia(bytes: Buffer): Promise<SniffResult> {
  // Captions first: a text header is unambiguous, and file-type knows WebVTT but not SRT.
  const format = detectCaptionFormat(textStart(bytes));
  if (format) return { ok: true, media: { kind: 'captions', captionFormat: format, ...CAPTIONS[format] } };
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    const [family] = detected.mime.split('/');
    if (family === 'audio' || family === 'video') {
      return { ok: true, media: { kind: family, contentType: detected.mime, extension: detected.ext } };
    }
    if (detected.mime === 'application/ogg')
      return { ok: true, media: { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' } };
    return { ok: false, found: detected.mime };
  }
  return { ok: false, found: bytes.length === 0 ? 'an empty file' : 'unrecognized content' };
}
