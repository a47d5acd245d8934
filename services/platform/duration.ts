const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "500ms", "15s", "5m", "2h", "1d" or a bare number of milliseconds; undefined when malformed. */
export function parseDuration(raw: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']);
}
