/**
 * Every line of a meeting's notes cites its moment: the overview's lines, the action items (and every
 * moment that repeats one) and the outline's sections carry the stored sentence index and start time
 * the summarizer gave them; reading a summary adds the link to the meeting page at that moment, the
 * same `transcript_url#t=<seconds>` a question's answer links to. Summaries stored before citations
 * (no index) are returned as they are.
 */
import { momentLink } from './records';

export interface CitedLine {
  text: string;
  index: number;
  start_time: number;
  link: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object';

function cited(v: unknown, transcriptUrl: string): unknown {
  if (!isObject(v) || typeof v.start_time !== 'number' || typeof v.index !== 'number') return v;
  const out: Record<string, unknown> = { ...v, link: momentLink(transcriptUrl, v.start_time) };
  if (Array.isArray(v.moments)) out.moments = v.moments.map((m) => cited(m, transcriptUrl));
  return out;
}

/** The overview lines, action items and outline of a stored summary, each with the link to its moment. */
export function citeSummary<T extends { overview_lines: unknown[]; action_items: unknown[]; outline: unknown[] }>(
  fields: T,
  transcriptUrl: string,
): T {
  return {
    ...fields,
    overview_lines: fields.overview_lines.map((l) => cited(l, transcriptUrl)),
    action_items: fields.action_items.map((a) => cited(a, transcriptUrl)),
    outline: fields.outline.map((o) => cited(o, transcriptUrl)),
  };
}
