/** Users of the caller's team, their groups, and the people the caller has met, as the people tools show them. */
import type { Knex } from 'knex';
import { visibleTo, type Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';
import type { Page } from '../meetings';

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
      w
        .where('m.organizer_id', id)
        .orWhereExists((sq) =>
          sq
            .select(db.raw('1'))
            .from('meeting_participants as mp')
            .whereRaw('mp.meeting_id = m.id')
            .whereRaw('lower(mp.email) = lower(?)', [user.email]),
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

// ---------------------------------------------------------------------------------------------------
// User groups and contacts
// ---------------------------------------------------------------------------------------------------

export interface GroupMember {
  email: string;
  name: string;
  role: string;
}

export interface UserGroupRecord {
  id: string;
  name: string;
  handle: string;
  member_count: number;
  members: GroupMember[];
}

/** Teams have tens of groups; the cap keeps a pathological team from flooding a model. */
export const GROUP_LIST_CAP = 200;

/** The team's user groups by name (mine: only those the caller belongs to), each with its members. */
export async function getUserGroups(
  db: Knex,
  p: Principal,
  opts: { mine?: boolean } = {},
): Promise<{ groups: UserGroupRecord[] } & Page> {
  const groups: { id: string; name: string; handle: string }[] = await db('user_groups as g')
    .where('g.team_id', p.teamId)
    .modify((qb) => {
      if (opts.mine)
        qb.whereExists((sq) =>
          sq
            .select(db.raw('1'))
            .from('user_group_members as gm')
            .whereRaw('gm.group_id = g.id')
            .where('gm.user_id', p.userId),
        );
    })
    .orderByRaw('lower(g.name), g.id')
    .limit(GROUP_LIST_CAP + 1)
    .select('g.id', 'g.name', 'g.handle');
  const page = groups.slice(0, GROUP_LIST_CAP);
  // One query for the members of every group on the page, not one per group.
  const members: (GroupMember & { group_id: string })[] = page.length
    ? await db('user_group_members as gm')
        .join('users as u', 'u.id', 'gm.user_id')
        .whereIn(
          'gm.group_id',
          page.map((g) => g.id),
        )
        .orderByRaw('lower(u.email)')
        .select('gm.group_id', db.raw('lower(u.email) as email'), 'u.name', 'gm.role')
    : [];
  return {
    groups: page.map((g) => {
      const own = members.filter((m) => m.group_id === g.id).map(({ email, name, role }) => ({ email, name, role }));
      return { id: g.id, name: g.name, handle: g.handle, member_count: own.length, members: own };
    }),
    has_more: groups.length > GROUP_LIST_CAP,
  };
}

export interface ContactRecord {
  email: string;
  name: string;
  picture: string | null;
  last_meeting_date: string;
}

/** Enough for "who have I met lately"; the list says has_more beyond it. */
export const CONTACT_LIST_CAP = 200;

/**
 * People the caller has met: everyone other than the caller who organized or took part in a meeting
 * the caller can see, most recently met first. Name and picture come from the team's user record when
 * the contact is a teammate (pictures of other teams' users are not exposed), else from the meeting.
 * Paged with limit (at most CONTACT_LIST_CAP, the default) and skip; next_skip when more follow.
 */
export async function getUserContacts(
  db: Knex,
  p: Principal,
  opts: { limit?: number; skip?: number } = {},
): Promise<{ contacts: ContactRecord[] } & Page> {
  const limit = opts.limit ?? CONTACT_LIST_CAP;
  const skip = opts.skip ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > CONTACT_LIST_CAP) {
    throw invalid(
      'limit',
      `a whole number from 1 to ${CONTACT_LIST_CAP}`,
      `limit must be a whole number from 1 to ${CONTACT_LIST_CAP}; got ${limit}`,
    );
  }
  if (!Number.isInteger(skip) || skip < 0)
    throw invalid('skip', 'a whole number, 0 or more', `skip must be a whole number, 0 or more; got ${skip}`);
  const rows: {
    email: string;
    met_name: string | null;
    last: Date;
    user_name: string | null;
    picture: string | null;
  }[] = await db
    .with('vis', (qb) =>
      qb.from('meetings as m').modify(visibleTo(p, 'm')).select('m.id', 'm.date', 'm.organizer_email'),
    )
    .with('people', (qb) =>
      qb
        .from('meeting_participants as mp')
        .join('vis', 'vis.id', 'mp.meeting_id')
        .select(db.raw('lower(mp.email) as email'), 'mp.name', 'vis.date')
        .unionAll((u) =>
          u.from('vis').select(db.raw('lower(vis.organizer_email) as email'), db.raw('null::text as name'), 'vis.date'),
        ),
    )
    .with('met', (qb) =>
      qb
        .from('people')
        .whereNot('people.email', p.email.toLowerCase())
        .groupBy('people.email')
        .select('people.email', db.raw('max(people.date) as last'))
        // The name as written on the most recent meeting that carried one.
        .select(
          db.raw(
            "(array_agg(people.name order by people.date desc) filter (where people.name is not null and people.name <> ''))[1] as met_name",
          ),
        ),
    )
    .from('met')
    .leftJoin('users as u', (j) => j.on(db.raw('lower(u.email) = met.email')).andOnVal('u.team_id', '=', p.teamId))
    .orderBy([{ column: 'met.last', order: 'desc' }, { column: 'met.email' }])
    .offset(skip)
    .limit(limit + 1)
    .select('met.email', 'met.met_name', 'met.last', 'u.name as user_name', 'u.picture');
  const has_more = rows.length > limit;
  return {
    contacts: rows.slice(0, limit).map((r) => ({
      email: r.email,
      name: r.user_name ?? r.met_name ?? r.email.split('@')[0],
      picture: r.picture ?? null,
      last_meeting_date: new Date(r.last).toISOString(),
    })),
    has_more,
    next_skip: has_more ? skip + limit : null,
  };
}
