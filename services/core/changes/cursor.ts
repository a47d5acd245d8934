/**
 * The changes cursor: where a reader is in the change log, opaque to callers (base64url JSON).
 *
 * Two phases. `snapshot`: a reader that started without a cursor is walked through every meeting it
 * can read, by id (`after`), and then through the changes after `xid`/`meeting`, the log position
 * taken before the first meeting was read (so nothing written meanwhile is missed; what is read twice
 * is the same current state). `changes`: the position in the log, (xid, meeting id) of the last change
 * answered. `issued` (epoch seconds) is when the cursor was handed out: the log keeps changes for
 * CHANGES_RETENTION, so an older cursor could have missed pruned ones and is refused.
 */
import { invalid } from '../../platform/errors';

export interface ChangesCursor {
  phase: 'snapshot' | 'changes';
  /** snapshot: the last meeting id answered ('' before the first). */
  after: string;
  /** The log position: a transaction id (xid8, as decimal text) and a meeting id. */
  xid: string;
  meeting: string;
  /** Epoch seconds the cursor was handed out. */
  issued: number;
}

/** The longest cursor accepted, in characters (ids are short; a longer one is not ours). */
export const CURSOR_MAX = 512;

/** The largest transaction id PostgreSQL's xid8 holds (2^64 - 1). */
const XID8_MAX = 18_446_744_073_709_551_615n;

const RULE = 'a next_cursor this service returned (or none, to start from every meeting you can read)';

export function encodeCursor(c: ChangesCursor): string {
  const body = { v: 1, p: c.phase === 'snapshot' ? 's' : 'c', a: c.after, x: c.xid, m: c.meeting, t: c.issued };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** A cursor from a caller, checked: its shape, then its age against the log's retention. */
export function decodeCursor(raw: string, now: Date, retentionMs: number): ChangesCursor {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > CURSOR_MAX || !/^[A-Za-z0-9_-]+$/.test(raw))
    throw invalid('cursor', RULE, `cursor must be ${RULE}; this one is not`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor', RULE, `cursor must be ${RULE}; this one does not decode`);
  }
  const ok =
    body &&
    body.v === 1 &&
    (body.p === 's' || body.p === 'c') &&
    typeof body.a === 'string' &&
    typeof body.x === 'string' &&
    /^\d{1,20}$/.test(body.x) &&
    BigInt(body.x) <= XID8_MAX &&
    typeof body.m === 'string' &&
    typeof body.t === 'number' &&
    Number.isInteger(body.t);
  if (!ok) throw invalid('cursor', RULE, `cursor must be ${RULE}; this one was altered or is not ours`);
  const cursor: ChangesCursor = {
    phase: body.p === 's' ? 'snapshot' : 'changes',
    after: body.a as string,
    xid: body.x as string,
    meeting: body.m as string,
    issued: body.t as number,
  };
  if (cursor.issued * 1000 < now.getTime() - retentionMs) {
    const days = Math.round(retentionMs / 86_400_000);
    throw invalid(
      'cursor',
      `issued within the change log's retention (CHANGES_RETENTION, ${days} days)`,
      `cursor is older than the change log keeps changes (${days} days), so changes after it may be gone: start again without a cursor, which answers every meeting you can read and then the changes`,
    );
  }
  return cursor;
}
