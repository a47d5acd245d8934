/**
 * The change audit: every change a caller makes (a meeting shared, a rule saved, a key revoked, …),
 * who made it, to what, with its details. Append-only (table audit_log).
 *
 * It is written in the same transaction as the change, so a change is never without its record and a
 * record never without its change. Reads of content are audited apart (reads.ts): they are far
 * more frequent, change nothing, and are buffered rather than written in the read's transaction.
 */
import type { Knex } from 'knex';
import type { Principal } from '../access';

/**
 * Who asked for the meetings this transaction deletes, and why (deleted by a person, expired by the
 * retention run): the change log's tombstones read both (migration 20261205000100_meeting_changes,
 * transaction-local settings mi.deletion_reason and mi.actor).
 */
export async function noteDeletion(
  trx: Knex.Transaction,
  reason: 'deleted' | 'expired',
  actor: Principal | null,
): Promise<void> {
  await trx.raw("select set_config('mi.deletion_reason', ?, true), set_config('mi.actor', ?, true)", [
    reason,
    actor?.userId ?? '',
  ]);
}

/** Every change a caller makes is written here, in the same transaction as the change. */
export async function audit(
  db: Knex | Knex.Transaction,
  actor: Principal | null,
  action: string,
  target: { type: string; id?: string | null; teamId?: string },
  details: Record<string, unknown> = {},
): Promise<void> {
  await db('audit_log').insert({
    team_id: target.teamId ?? actor?.teamId ?? null,
    actor_user_id: actor?.userId ?? null,
    action,
    target_type: target.type,
    target_id: target.id ?? null,
    details: JSON.stringify(details),
  });
}
