/**
 * The three answer formats (docs/tools.md, Conventions). TOON (default) is written by ./toon.ts, the
 * text @toon-format/toon writes; records are shaped flat by the tools so lists render as TOON tables.
 * One representation per result.
 */
import { z } from 'zod';
import { encodeToon, type ToonDelimiter } from './toon';

export type { ToonDelimiter };

export const FORMATS = ['toon', 'json', 'text'] as const;
export type Format = (typeof FORMATS)[number];

export const formatParam = z
  .enum(FORMATS, { error: 'must be one of toon, json, text' })
  .optional()
  .describe('Text answer format (default toon).');

export function render(
  data: unknown,
  format: Format,
  text?: (data: never) => string,
  delimiter: ToonDelimiter = ',',
): string {
  switch (format) {
    case 'json':
      return JSON.stringify(data);
    case 'text':
      return text ? text(data as never) : genericText(data);
    default:
      return encodeToon(data, delimiter);
  }
}

/** Plain "key: value" lines; nested lists indented. For tools without a text renderer of their own. */
export function genericText(data: unknown, indent = ''): string {
  if (data === null || data === undefined) return `${indent}(none)`;
  if (Array.isArray(data)) {
    if (data.length === 0) return `${indent}(none)`;
    return data.map((item, i) => `${indent}${i + 1}.\n${genericText(item, indent + '   ')}`).join('\n');
  }
  if (typeof data === 'object') {
    return Object.entries(data as Record<string, unknown>)
      .map(([k, v]) =>
        v !== null && typeof v === 'object' && !(Array.isArray(v) && v.every((x) => typeof x !== 'object'))
          ? `${indent}${k}:\n${genericText(v, indent + '  ')}`
          : `${indent}${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`,
      )
      .join('\n');
  }
  return `${indent}${String(data)}`;
}

/** mm:ss (or h:mm:ss past an hour) for offsets inside a meeting. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
