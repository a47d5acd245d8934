/**
 * Caption format detection by content, never by file name or Content-Type: uploads arrive from URLs
 * whose names and headers are often wrong (".txt", "application/octet-stream").
 */
export type CaptionFormat = 'vtt' | 'srt';

const SRT_TIMESTAMP = /^\s*(?:\d+:)?\d{1,2}:\d{1,2}[,.]\d{1,3}\s*-->\s*(?:\d+:)?\d{1,2}:\d{1,2}[,.]\d{1,3}/;

/** Text of a caption file with any byte-order mark removed and line endings made `\n`. */
export function normalizeCaptionText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export function detectCaptionFormat(text: string): CaptionFormat | undefined {
  const body = normalizeCaptionText(text).replace(/^\s+/, '');
  // WebVTT: the file must start with "WEBVTT", alone or followed by a space/tab and a header text.
  if (/^WEBVTT(?:[ \t][^\n]*)?(?:\n|$)/.test(body)) return 'vtt';
  const [first = '', second = ''] = body.split('\n', 2);
  // SRT: a numbered first cue ("1" then a timestamp line); some exporters leave the number out.
  if (/^\d+\s*$/.test(first) && SRT_TIMESTAMP.test(second)) return 'srt';
  if (SRT_TIMESTAMP.test(first)) return 'srt';
  return undefined;
}

export function isTimestampLine(line: string): boolean {
  return SRT_TIMESTAMP.test(line);
}

/** Content types that name a caption file; used by the ASR selector before the content is read. */
export const CAPTION_CONTENT_TYPES = new Set([
  'text/vtt',
  'text/webvtt',
  'application/x-subrip',
  'application/srt',
  'text/srt',
  'text/x-srt',
  'application/x-srt',
]);
