/**
 * Meetings in progress (is_live, live state active or paused) of the caller's team. A member sees the
 * live meetings they organize; an admin sees the whole team's, or one teammate's by email.
 */
import type { Knex } from 'knex';
import { requireAdmin, isAdmin, Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';
import type { Page } from '../meetings';
import { requireEmail, requireOneOf } from '../input';
import type { LiveState } from './protocol';

export const LIVE_STATES = ['active', 'paused'] as const satisfies readonly LiveState[];

/** Live meetings are few at any moment; the cap only bounds a pathological team. */
export const ACTIVE_MEETING_CAP = 100;

interface LiveRow {
  id: string;
  title: string;
  organizer_email: string;
  meeting_link: string | null;
  scheduled_start: Date | null;
  scheduled_end: Date | null;
  date: Date;
  privacy: string;
  live_state: LiveState;
}

interface Organizer {
  id: string;
  email: string;
}

export interface ActiveMeetingRecord {
  id: string;
  title: string;
  organizer_email: string;
  meeting_link: string | null;
  start_time: string;
  end_time: string | null;
  privacy: string;
  state: LiveState;
}

export async function listActiveMeetings(
  db: Knex,
  p: Principal,
  args: { email?: string; states?: string[] } = {},
): Promise<{ meetings: ActiveMeetingRecord[] } & Page> {
  if (args.states !== undefined && args.states.length === 0)
    throw invalid(
      'states',
      'at least one of active, paused',
      'states must list active, paused or both; omit it for both',
    );
  const states = [...new Set((args.states ?? LIVE_STATES).map((s) => requireOneOf('states', s, LIVE_STATES)))];
  const organizer = await organizerFilter(db, p, args.email);

  const rows: LiveRow[] = await db('meetings as m')
    .where('m.team_id', p.teamId)
    .where('m.is_live', true)
    .whereIn('m.live_state', states)
    .modify((qb) => {
      // The organizer by user id, or by email for meetings recorded before the user existed.
      if (organizer)
        qb.where((w) =>
          w.where('m.organizer_id', organizer.id).orWhereRaw('lower(m.organizer_email) = ?', [organizer.email]),
        );
    })
    .orderByRaw('coalesce(m.scheduled_start, m.date) desc, m.id desc')
    .limit(ACTIVE_MEETING_CAP + 1)
    .select(
      'm.id',
      'm.title',
      'm.organizer_email',
      'm.meeting_link',
      'm.scheduled_start',
      'm.scheduled_end',
      'm.date',
      'm.privacy',
      'm.live_state',
    );
  return {
    meetings: rows.slice(0, ACTIVE_MEETING_CAP).map((r) => ({
      id: r.id,
      title: r.title,
      organizer_email: r.organizer_email,
      meeting_link: r.meeting_link ?? null,
      start_time: new Date(r.scheduled_start ?? r.date).toISOString(),
      end_time: r.scheduled_end ? new Date(r.scheduled_end).toISOString() : null,
      privacy: r.privacy,
      state: r.live_state,
    })),
    has_more: rows.length > ACTIVE_MEETING_CAP,
  };
}

/**
 * Whose meetings to list: nobody in particular (admin, email omitted: the whole team), the caller
 * (member with email omitted, or anyone naming their own email), or a teammate (admin only).
 */
async function organizerFilter(db: Knex, p: Principal, email?: string): Promise<Organizer | undefined> {
  const wanted = email === undefined ? undefined : requireEmail('email', email);
  if (wanted === undefined) return isAdmin(p) ? undefined : { id: p.userId, email: p.email.toLowerCase() };
  if (wanted === p.email.toLowerCase()) return { id: p.userId, email: wanted };
  requireAdmin(p, "Listing another user's active meetings");
  const user = await db('users').where('team_id', p.teamId).whereRaw('lower(email) = ?', [wanted]).first('id');
  if (!user) throw notFound('team member', wanted);
  return { id: user.id, email: wanted };
}
