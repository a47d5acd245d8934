/**
 * The demo meetings' sentences (services/cli/demo/meetings, as the caption import stores them) and
 * passages of a few consecutive sentences made of them: what scripts/models/eval-embeddings.ts ranks
 * and test/bench/embeddings.bench.ts embeds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCaptions } from '../../services/intelligence';

export const MEETINGS = join(resolve(__dirname, '..', '..'), 'services', 'cli', 'demo', 'meetings');

export interface Line {
  meeting: number;
  index: number;
  speaker: string;
  text: string;
  /** Seconds from the start of its meeting. */
  start: number;
}
/** How a meeting's sentences are grouped into passages. */
export interface Layout {
  window: number;
  stride: number;
  /** 'turn': a passage never spans two speakers' turns; 'across': it may. */
  boundary: 'turn' | 'across';
  /** Each sentence of the passage written as "Speaker: text". */
  labels: boolean;
}
export interface Passage {
  lines: number[];
  text: string;
}

/** Every demo meeting's sentences, the meetings in date order, and when each was said in its meeting. */
export function readLines(): { lines: Line[]; files: string[] } {
  const files = readdirSync(MEETINGS)
    .filter((f) => /\.(vtt|srt)$/.test(f))
    .sort();
  const lines: Line[] = [];
  files.forEach((f, m) => {
    for (const s of parseCaptions(readFileSync(join(MEETINGS, f))).sentences)
      lines.push({ meeting: m, index: s.index, speaker: s.speaker_name, text: s.text, start: s.start_time });
  });
  return { lines, files };
}

/** The lines of one meeting, split where the speaker changes (for 'turn') or kept whole. */
function runs(lines: Line[], boundary: Layout['boundary']): number[][] {
  const out: number[][] = [];
  lines.forEach((l, i) => {
    const prev = lines[i - 1];
    const split = !prev || prev.meeting !== l.meeting || (boundary === 'turn' && prev.speaker !== l.speaker);
    if (split) out.push([i]);
    else out[out.length - 1].push(i);
  });
  return out;
}

export function passages(lines: Line[], layout: Layout): Passage[] {
  const out: Passage[] = [];
  for (const run of runs(lines, layout.boundary)) {
    for (let at = 0; ; at += layout.stride) {
      const part = run.slice(at, at + layout.window);
      out.push({
        lines: part,
        text: part.map((i) => (layout.labels ? `${lines[i].speaker}: ${lines[i].text}` : lines[i].text)).join(' '),
      });
      if (at + layout.window >= run.length) break;
    }
  }
  return out;
}
