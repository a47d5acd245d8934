/**
 * A per-process, per-user limit on calls per minute (fixed one-minute windows). Pods are stateless,
 * so the cluster-wide allowance is this times the replica count; it exists to stop a runaway client
 * loop, not to meter billing.
 */
import { ServiceError } from '../platform/errors';

const windows = new Map<string, { start: number; count: number }>();

export function checkRateLimit(key: string, perMinute: number, now = Date.now()): void {
  const start = now - (now % 60_000);
  const w = windows.get(key);
  if (!w || w.start !== start) {
    if (windows.size > 10_000) windows.clear();
    windows.set(key, { start, count: 1 });
    return;
  }
  w.count += 1;
  if (w.count > perMinute) {
    const retryAfterSeconds = Math.ceil((start + 60_000 - now) / 1000);
    throw new ServiceError(
      'too_many_requests',
      `more than ${perMinute} calls this minute; retry after ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
}
