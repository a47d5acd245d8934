/**
 * Pruning the change log: changes older than CHANGES_RETENTION go, in batches of one short
 * transaction each (the daily retention run calls this after the read audit). A day of slack past the
 * retention keeps the changes of a transaction that was long open when a cursor was handed out, so a
 * cursor the feed still honours never finds a change before it gone.
 */
import type { Knex } from 'knex';

const SLACK_MS = 86_400_000;

/** One batch: up to `batch` changes written before now - retentionMs - a day. Answers how many went. */
export async function pruneChanges(db: Knex, now: Date, retentionMs: number, batch: number): Promise<number> {
  const before = new Date(now.getTime() - retentionMs - SLACK_MS).toISOString();
  const r = await db.raw(
    'delete from meeting_changes where ctid = any(array(select ctid from meeting_changes where at < ?::timestamptz limit ?))',
    [before, batch],
  );
  return r.rowCount ?? 0;
}
