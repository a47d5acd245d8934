/**
 * Timings a test measures on the side (how long the stack took to start, a build, a scrape): printed
 * only with MI_TEST_TIMINGS=1, so a green run prints nothing but results.
 */
export const TIMINGS = process.env.MI_TEST_TIMINGS === '1';

export function reportTiming(line: string): void {
  if (TIMINGS) process.stderr.write(`${line}\n`);
}
