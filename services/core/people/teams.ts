import type { Knex } from 'knex';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { newId, requireLength, requireOneOf } from '../input';
import { FEATURE_FLAGS, Tier, TIERS } from '../access';

export interface Team {
  id: string;
  name: string;
  tier: Tier;
  feature_flags: string[];
}

export async function createTeam(db: Knex, input: { name: string; tier: string; id?: string }): Promise<Team> {
  const name = requireLength('name', input.name.trim(), 1, 200);
  const tier = requireOneOf('tier', input.tier, TIERS);
  const team: Team = { id: input.id ?? newId(), name, tier, feature_flags: [] };
  await db.transaction(async (tx) => {
    await tx('teams').insert(team);
    await audit(tx, null, 'team.create', { type: 'team', id: team.id, teamId: team.id }, { name, tier });
  });
  return team;
}

export async function getTeam(db: Knex, id: string): Promise<Team> {
  const team = await db('teams').where({ id }).first();
  if (!team) throw notFound('team', id);
  return team;
}

/** Enable or disable experimental tools (svc_search, svc_fetch) for a team. */
export async function setTeamFlags(
  db: Knex,
  teamId: string,
  change: { enable?: string[]; disable?: string[] },
): Promise<Team> {
  for (const [field, flags] of [
    ['enable', change.enable ?? []],
    ['disable', change.disable ?? []],
  ] as const) {
    for (const f of flags) {
      if (!(FEATURE_FLAGS as readonly string[]).includes(f)) {
        throw invalid(
          field,
          `flags are ${FEATURE_FLAGS.join(', ')}`,
          `${field}: unknown flag ${JSON.stringify(f)}; known flags are ${FEATURE_FLAGS.join(', ')}`,
        );
      }
    }
  }
  return db.transaction(async (tx) => {
    const team = await tx('teams').where({ id: teamId }).forUpdate().first();
    if (!team) throw notFound('team', teamId);
    const flags = new Set<string>(team.feature_flags);
    change.enable?.forEach((f) => flags.add(f));
    change.disable?.forEach((f) => flags.delete(f));
    const feature_flags = [...flags].sort();
    await tx('teams').where({ id: teamId }).update({ feature_flags });
    await audit(tx, null, 'team.flags', { type: 'team', id: teamId, teamId }, { feature_flags });
    return { ...team, feature_flags };
  });
}
