/** Users of the caller's team, as the user tools show them. */
import type { Knex } from 'knex';
import { notFound } from './errors';
import type { Principal } from './principal';

export interface UserRecord {
  user_id: string;
  email: string;
  name: string;
  num_transcripts: number;
  recent_meeting: string | null;
  minutes_consumed: number;
  is_admin: boolean;
  integrations: string;
}

/** One user of the caller's team (the caller when userId is omitted); other teams' users are not found. */
export async function getUser(db: Knex, p: Principal, userId?: string): Promise<UserRecord> {
  const id = userId ?? p.userId;
  const user = await db('users').where({ id, team_id: p.teamId }).first();
  if (!user) throw notFound('user', id);
  const [{ n }] = await db('meetings').where({ team_id: p.teamId, organizer_id: id }).count({ n: '*' });
  const recent = await db('meetings as m')
    .where('m.team_id', p.teamId)
    .where((w) =>
      w.where('m.organizer_id', id).orWhereExists((sq) =>
        sq.select(db.raw('1')).from('meeting_participants as mp').whereRaw('mp.meeting_id = m.id').whereRaw('lower(mp.email) = lower(?)', [user.email]),
      ),
    )
    .max({ d: 'm.date' })
    .first();
  return {
    user_id: user.id,
    email: user.email,
    name: user.name,
    num_transcripts: Number(n),
    recent_meeting: recent?.d ? new Date(recent.d).toISOString() : null,
    minutes_consumed: Number(user.minutes_consumed),
    is_admin: user.role === 'admin' || user.role === 'super_admin',
    integrations: (user.integrations as string[]).join(', '),
  };
}
