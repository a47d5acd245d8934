/** Team, user and API-key administration: thin wrappers over core, which validates. */
import { createApiKey, revokeApiKey } from '../../core/people';
import { createTeam, setTeamFlags } from '../../core/people';
import { createUser } from '../../core/people';
import { list, Parsed, required, UsageError } from '../args';
import type { CommandContext } from '../context';

export async function teamCreate(ctx: CommandContext, p: Parsed): Promise<void> {
  const team = await createTeam(ctx.db(), { name: required(p, 'name'), tier: required(p, 'tier', 'is required: free, pro, business or enterprise') });
  ctx.out.result({ team }, `team ${team.id} (${team.name}, ${team.tier})`);
}

export async function teamFlags(ctx: CommandContext, p: Parsed): Promise<void> {
  const enable = list(p, 'enable');
  const disable = list(p, 'disable');
  if (!enable && !disable) throw new UsageError('--enable or --disable is required (comma-separated flags: search,fetch)');
  const team = await setTeamFlags(ctx.db(), required(p, 'team'), { enable, disable });
  ctx.out.result({ team }, `team ${team.id} flags: ${team.feature_flags.join(', ') || '(none)'}`);
}

export async function userCreate(ctx: CommandContext, p: Parsed): Promise<void> {
  const user = await createUser(ctx.db(), {
    teamId: required(p, 'team'),
    email: required(p, 'email'),
    name: required(p, 'name'),
    role: (p.values.role as string | undefined) ?? 'member',
  });
  ctx.out.result({ user: { id: user.id, team_id: user.team_id, email: user.email, name: user.name, role: user.role } }, `user ${user.id} <${user.email}> (${user.role})`);
}

export async function apikeyCreate(ctx: CommandContext, p: Parsed): Promise<void> {
  const key = await createApiKey(ctx.db(), { email: required(p, 'email'), name: p.values.name as string | undefined });
  ctx.out.result(
    { id: key.id, prefix: key.prefix, user_id: key.userId, key: key.key },
    `API key for ${p.values.email} (prefix ${key.prefix}); shown once, store it now:\n${key.key}`,
  );
}

export async function apikeyRevoke(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await revokeApiKey(ctx.db(), required(p, 'prefix'));
  ctx.out.result(r, r.revoked ? `revoked key ${r.prefix}` : `key ${r.prefix} was already revoked`);
}
