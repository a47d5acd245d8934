import type { Knex } from 'knex';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { newId, requireEmail, requireLength, requireOneOf } from '../input';
import { Role, ROLES } from '../access';

export interface UserRow {
  id: string;
  team_id: string;
  email: string;
  name: string;
  role: Role;
  picture: string | null;
  minutes_consumed: string;
  integrations: string[];
  deactivated_at: Date | null;
}

export async function createUser(
  db: Knex,
  input: { teamId: string; email: string; name: string; role: string; picture?: string; id?: string },
): Promise<UserRow> {
  const email = requireEmail('email', input.email);
  const name = requireLength('name', input.name.trim(), 1, 200);
  const role = requireOneOf('role', input.role, ROLES);
  return db.transaction(async (tx) => {
    const team = await tx('teams').where({ id: input.teamId }).first();
    if (!team) throw notFound('team', input.teamId);
    const taken = await tx('users').whereRaw('lower(email) = ?', [email]).first();
    if (taken) throw invalid('email', 'must be unique', `email: a user with ${email} already exists`);
    const row = { id: input.id ?? newId(), team_id: input.teamId, email, name, role, picture: input.picture ?? null };
    await tx('users').insert(row);
    await audit(tx, null, 'user.create', { type: 'user', id: row.id, teamId: input.teamId }, { email, role });
    return (await tx('users').where({ id: row.id }).first()) as UserRow;
  });
}

export async function findUserByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return db('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first();
}
