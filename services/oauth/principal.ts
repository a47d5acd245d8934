/** The caller behind an OAuth sign-in: an active (not deactivated) user of the service, found by email (tokens) or id (grants). */
import type { Knex } from 'knex';
import { Principal, SHARED_WITH_SQL } from '../core/access';

type Where = (qb: Knex.QueryBuilder) => void;

async function findPrincipal(db: Knex, where: Where): Promise<Principal | undefined> {
  const row = await db('users as u')
    .join('teams as t', 't.id', 'u.team_id')
    .where(where)
    .whereNull('u.deactivated_at')
    .first(
      'u.id as user_id',
      'u.email',
      'u.name',
      'u.role',
      't.id as team_id',
      't.tier',
      't.feature_flags',
      db.raw(SHARED_WITH_SQL),
    );
  if (!row) return undefined;
  return {
    userId: row.user_id,
    teamId: row.team_id,
    email: row.email,
    name: row.name,
    role: row.role,
    tier: row.tier,
    flags: row.feature_flags,
    sharedWith: row.shared_with,
  };
}

export function principalByEmail(db: Knex, email: string): Promise<Principal | undefined> {
  return findPrincipal(db, (qb) => qb.whereRaw('lower(u.email) = lower(?)', [email.trim()]));
}

export function principalById(db: Knex, userId: string): Promise<Principal | undefined> {
  return findPrincipal(db, (qb) => qb.where('u.id', userId));
}
