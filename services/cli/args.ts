/** Option parsing for the CLI: errors name the option and the rule, and exit 2. */
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

export function parse(argv: string[], options: Record<string, { type: 'string' | 'boolean' }>): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed['values'], positionals };
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

export function required(p: Parsed, name: string, rule = 'is required'): string {
  const v = p.values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} ${rule}`);
  return v.trim();
}

export function list(p: Parsed, name: string): string[] | undefined {
  const v = p.values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new UsageError(`--${name} takes a comma-separated list`);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
