/**
 * Retention: a team keeps its meetings for retention_days (null: for ever); the daily retention run
 * (RetentionWorkflow, a Temporal schedule the worker keeps) deletes meetings dated more than that many
 * days before the run, except those on legal hold and live ones, in batches of one transaction each,
 * and read-audit rows older than READ_AUDIT_RETENTION.
 *
 * A batch locks its meetings with SKIP LOCKED, so a meeting being changed is left for the next batch
 * or run, and short transactions keep reads and writes of other meetings going while a large backlog
 * is deleted.
 */
import type { Knex } from 'knex';
import { requireAdmin, type Principal } from '../access';
import { audit, noteDeletion, pruneReads } from '../audit';
import { removeMeetings } from '../meetings';
import { invalid } from '../../platform/errors';
import { retentionDeletedMeetings } from '../../platform/metrics';

/** A retention period is 1 day to 100 years. */
export const RETENTION_DAYS = { min: 1, max: 36_500 } as const;

export interface TeamRetention {
  team_id: string;
  /** null: meetings are kept for ever. */
  retention_days: number | null;
}

export async function getTeamRetention(db: Knex, p: Principal): Promise<TeamRetention> {
  const t = await db('teams').where({ id: p.teamId }).first('id', 'retention_days');
  return { team_id: p.teamId, retention_days: t?.retention_days ?? null };
}

/** Set (or clear, with null) the caller's team's retention period: team admins. */
export async function setTeamRetention(db: Knex, p: Principal, days: number | null): Promise<TeamRetention> {
  requireAdmin(p, 'Setting the retention period');
  if (days !== null && (!Number.isInteger(days) || days < RETENTION_DAYS.min || days > RETENTION_DAYS.max)) {
    throw invalid(
      'days',
      `a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep meetings for ever`,
      `days must be a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep meetings for ever; got ${days}`,
    );
  }
  return db.transaction(async (trx) => {
    const before = await trx('teams').where({ id: p.teamId }).forUpdate().first('retention_days');
    await trx('teams').where({ id: p.teamId }).update({ retention_days: days });
    await audit(
      trx,
      p,
      'team.retention_set',
      { type: 'team', id: p.teamId, teamId: p.teamId },
      { from: before?.retention_days ?? null, to: days },
    );
    return { team_id: p.teamId, retention_days: days };
  });
}

/**
 * One batch of the retention run: up to `batch` meetings dated before `now` minus their team's
 * retention_days, not on legal hold and not live, deleted in one transaction with one audit_log row
 * each. Answers how many were deleted (0: nothing left).
 */
export async function deleteExpiredMeetings(db: Knex, now: Date, batch: number): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `select m.id, m.team_id, m.date from meetings m join teams t on t.id = m.team_id
        where t.retention_days is not null and m.legal_hold_at is null and not m.is_live
          and m.date < ?::timestamptz - make_interval(days => t.retention_days)
        order by m.date limit ? for update of m skip locked`,
      [now.toISOString(), batch],
    );
    const found = rows as { id: string; team_id: string; date: Date }[];
    if (!found.length) return 0;
    await noteDeletion(trx, 'expired', null);
    const deleted = await removeMeetings(
      trx,
      found.map((r) => r.id),
    );
    await trx('audit_log').insert(
      found.map((r) => ({
        team_id: r.team_id,
        actor_user_id: null,
        action: 'meeting.delete_by_retention',
        target_type: 'meeting',
        target_id: r.id,
        details: JSON.stringify({ date: new Date(r.date).toISOString() }),
      })),
    );
    retentionDeletedMeetings.inc(deleted);
    return deleted;
  });
}

/** One batch of read-audit pruning: rows read before now - retentionMs. */
export function pruneReadAudit(db: Knex, now: Date, retentionMs: number, batch: number): Promise<number> {
  return pruneReads(db, new Date(now.getTime() - retentionMs), batch);
}
