/** Command-line options the benches share. */

/** `--<name> N`: a whole number of 1 or more, or `fallback` when the option is absent. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number of 1 or more`);
  return n;
}
