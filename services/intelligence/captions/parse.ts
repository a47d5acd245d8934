import { parseSync, type NodeCue } from 'subtitle';
import { invalid } from '../../platform/errors';
import type { Sentence } from '../types';
import { detectCaptionFormat, isTimestampLine, normalizeCaptionText, type CaptionFormat } from './format';
import { utterancesOfCue } from './speakers';

export interface ParsedCaptions {
  format: CaptionFormat;
  sentences: Sentence[];
  /** End of the last cue, in seconds: the length of the captioned recording as far as the file tells. */
  duration_seconds: number;
}

/** Name given to cues before anyone has been named; later cues without a name keep the last speaker. */
export const UNKNOWN_SPEAKER = 'Unknown speaker';

const round3 = (n: number) => Math.round(n * 1000) / 1000;

function decode(input: string | Buffer): string {
  if (typeof input === 'string') return input;
  // Windows tools still write UTF-16 captions; everything else is UTF-8.
  if (input[0] === 0xff && input[1] === 0xfe) return input.subarray(2).toString('utf16le');
  return input.toString('utf8');
}

/**
 * Rewrites the file into the plain shape the `subtitle` parser reads without tripping: it rejects
 * WebVTT cue identifiers that are not numbers and STYLE/REGION blocks, and it glues a text-only
 * identifier onto the previous cue. Blocks are separated by blank lines in both formats; a block
 * without a timing line is not a cue and is dropped.
 */
function toParserInput(text: string, format: CaptionFormat): string {
  const blocks = normalizeCaptionText(text).split(/\n[ \t]*\n/);
  const out: string[] = [format === 'vtt' ? 'WEBVTT' : ''];
  for (const block of format === 'vtt' ? blocks.slice(1) : blocks) {
    const lines = block.split('\n').filter((l, i) => i > 0 || l.trim() !== '');
    const at = lines.findIndex(isTimestampLine);
    if (at < 0 || at > 1) continue;
    const timing = lines[at]
      .trim()
      .replace(/\s*-->\s*/, ' --> ')
      .replace(/[ \t]+/g, ' ');
    const body = lines.slice(at + 1).filter((l) => l.trim() !== '');
    if (body.length === 0) continue;
    out.push([timing, ...body].join('\n'));
  }
  return out.filter((b, i) => i > 0 || b).join('\n\n') + '\n';
}

function readCues(text: string, format: CaptionFormat): NodeCue['data'][] {
  try {
    return parseSync(toParserInput(text, format))
      .filter((n): n is NodeCue => n.type === 'cue')
      .map((n) => n.data);
  } catch (e) {
    const name = format === 'vtt' ? 'WebVTT' : 'SRT';
    throw invalid('file', 'malformed_captions', `file: not a well-formed ${name} file (${(e as Error).message})`);
  }
}

/**
 * A WebVTT or SRT file as sentences, one per speaker turn inside each cue. A cue shared by several
 * speakers is split and its time divided by the length of each part.
 */
export function parseCaptions(input: string | Buffer): ParsedCaptions {
  const text = decode(input);
  const format = detectCaptionFormat(text);
  if (!format) {
    throw invalid(
      'file',
      'unsupported_caption_format',
      'file: is neither WebVTT (must start with "WEBVTT") nor SRT (numbered cues with "00:00:01,000 --> 00:00:04,000" timings)',
    );
  }
  const cues = readCues(text, format).sort((a, b) => a.start - b.start);

  const speakerIds = new Map<string, { id: number; name: string }>();
  const sentences: Sentence[] = [];
  let current = UNKNOWN_SPEAKER;
  let duration = 0;
  for (const cue of cues) {
    const start = cue.start / 1000;
    const end = Math.max(cue.end, cue.start) / 1000;
    duration = Math.max(duration, end);
    const parts = utterancesOfCue(cue.text);
    const totalChars = parts.reduce((n, p) => n + p.text.length, 0);
    let at = start;
    for (const part of parts) {
      current = part.speaker ?? current;
      const key = current.toLowerCase();
      let speaker = speakerIds.get(key);
      if (!speaker) {
        speaker = { id: speakerIds.size, name: current };
        speakerIds.set(key, speaker);
      }
      const partEnd = parts.length === 1 ? end : at + ((end - start) * part.text.length) / totalChars;
      sentences.push({
        index: sentences.length,
        speaker_name: speaker.name,
        speaker_id: speaker.id,
        text: part.text,
        raw_text: parts.length === 1 ? cue.text : part.raw,
        start_time: round3(at),
        end_time: round3(partEnd),
      });
      at = partEnd;
    }
  }
  if (sentences.length === 0) {
    throw invalid('file', 'no_cues', 'file: the caption file has no cues with text');
  }
  return { format, sentences, duration_seconds: round3(duration) };
}
