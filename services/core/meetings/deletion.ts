/**
 * Deleting a meeting and keeping one: an owner or an admin of its team deletes a meeting
 * (access.managedBy); a team admin sets and lifts a legal hold, which keeps a meeting from every
 * deletion (its owner's, an admin's and the retention run's) until it is lifted.
 *
 * A deletion removes the meeting row and, in the same transaction, everything that hangs off it:
 * sentences, summary, analytics, participants, shares, soundbites, rule log, webhook deliveries and
 * attempts (foreign keys ON DELETE CASCADE; the life events' deliveries by a trigger, which writes the
 * meeting.deleted event, whose delivery outlives the meeting: webhooks/life.ts), and its search data (the lexeme and pair sets are columns
 * of the meeting row). What happens afterwards: a webhook delivery run finds its ledger row gone and
 * ends `skipped` without sending (webhooks/sender.ts); a transcription or live run finds the meeting
 * gone and ends with MeetingGone. The audit_log row and the read audit stay.
 */
import type { Knex } from 'knex';
import { managedBy, requireAdmin, visibleTo, type Principal } from '../access';
import { audit, noteDeletion } from '../audit';
import { forbidden, invalid, notFound, ServiceError } from '../../platform/errors';

export interface DeletedMeeting {
  id: string;
  deleted: true;
}

export interface LegalHold {
  id: string;
  /** ISO 8601 when the hold was set; null when there is none. */
  legal_hold_at: string | null;
  legal_hold_by: string | null;
}

function requireId(field: string, id: string): string {
  const v = (id ?? '').trim();
  if (!v) throw invalid(field, 'must not be empty', `${field} must not be empty`);
  return v;
}

const onHold = (id: string) =>
  new ServiceError(
    'invariant_violation',
    `meeting ${JSON.stringify(id)} is on legal hold and cannot be deleted; a team admin must lift the hold first`,
  );

/**
 * Remove meetings and everything that hangs off them, in the caller's transaction. Sentences go first
 * in one statement (their delete trigger rebuilds the search sets of meetings about to go, which is
 * cheap once the sentences are gone), then the meeting rows, whose cascades take the rest.
 */
export async function removeMeetings(trx: Knex.Transaction, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  await trx('sentences').whereIn('meeting_id', ids).delete();
  return trx('meetings').whereIn('id', ids).delete();
}

/** Delete one meeting: its organizer or an admin of its team; refused while it is on legal hold. */
export async function deleteMeeting(db: Knex, p: Principal, id: string): Promise<DeletedMeeting> {
  const meetingId = requireId('id', id);
  return db.transaction(async (trx) => {
    const m = await trx('meetings as m')
      .modify(managedBy(p, 'm'))
      .where('m.id', meetingId)
      .forUpdate()
      .first('m.id', 'm.team_id', 'm.title', 'm.legal_hold_at', 'm.date');
    if (!m) {
      const seen = await trx('meetings as m')
        .modify(visibleTo(p, 'm'))
        .where('m.id', meetingId)
        .first('m.organizer_email');
      if (!seen) throw notFound('meeting', meetingId);
      throw forbidden(
        `you may not delete meeting ${JSON.stringify(meetingId)}: only its organizer or an admin of its team may (organizer: ${seen.organizer_email})`,
      );
    }
    if (m.legal_hold_at) throw onHold(meetingId);
    await noteDeletion(trx, 'deleted', p);
    await removeMeetings(trx, [meetingId]);
    await audit(
      trx,
      p,
      'meeting.delete',
      { type: 'meeting', id: meetingId, teamId: m.team_id },
      { title: m.title, date: new Date(m.date).toISOString() },
    );
    return { id: meetingId, deleted: true as const };
  });
}

async function setHold(db: Knex, p: Principal, id: string, hold: boolean): Promise<LegalHold> {
  requireAdmin(p, hold ? 'Setting a legal hold' : 'Lifting a legal hold');
  const meetingId = requireId('id', id);
  return db.transaction(async (trx) => {
    const m = await trx('meetings')
      .where({ id: meetingId, team_id: p.teamId })
      .forUpdate()
      .first('id', 'team_id', 'legal_hold_at', 'legal_hold_by');
    if (!m) throw notFound('meeting', meetingId);
    const changed = hold ? !m.legal_hold_at : !!m.legal_hold_at;
    let row = m;
    if (changed) {
      [row] = await trx('meetings')
        .where({ id: meetingId })
        .update(
          hold
            ? { legal_hold_at: trx.fn.now(), legal_hold_by: trx.raw('(select id from users where id = ?)', [p.userId]) }
            : { legal_hold_at: null, legal_hold_by: null },
        )
        .returning(['id', 'legal_hold_at', 'legal_hold_by']);
      await audit(trx, p, hold ? 'meeting.legal_hold_set' : 'meeting.legal_hold_lifted', {
        type: 'meeting',
        id: meetingId,
        teamId: m.team_id,
      });
    }
    return {
      id: row.id,
      legal_hold_at: row.legal_hold_at ? new Date(row.legal_hold_at).toISOString() : null,
      legal_hold_by: row.legal_hold_by ?? null,
    };
  });
}

/** Keep a meeting from every deletion until the hold is lifted (team admins; idempotent). */
export const setLegalHold = (db: Knex, p: Principal, id: string) => setHold(db, p, id, true);
/** Lift a legal hold (team admins; idempotent). */
export const liftLegalHold = (db: Knex, p: Principal, id: string) => setHold(db, p, id, false);
