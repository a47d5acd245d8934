/** Team, user, API-key and sign-in administration: thin wrappers over core, which validates. */
import {
  createApiKey,
  deactivateUser,
  endSignIns,
  listApiKeys,
  listSignIns,
  reactivateUser,
  revokeApiKey,
  setApiKeyRateLimit,
} from '../../core/people';
import { createTeam, setTeamFlags } from '../../core/people';
import { createUser } from '../../core/people';
import { list, Parsed, required, UsageError } from '../args';
import type { CommandContext } from '../context';

export async function teamCreate(ctx: CommandContext, p: Parsed): Promise<void> {
  const team = await createTeam(ctx.db(), {
    name: required(p, 'name'),
    tier: required(p, 'tier', 'is required: free, pro, business or enterprise'),
  });
  ctx.out.result({ team }, `team ${team.id} (${team.name}, ${team.tier})`);
}

export async function teamFlags(ctx: CommandContext, p: Parsed): Promise<void> {
  const enable = list(p, 'enable');
  const disable = list(p, 'disable');
  if (!enable && !disable)
    throw new UsageError('--enable or --disable is required (comma-separated flags: search,fetch)');
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
  ctx.out.result(
    { user: { id: user.id, team_id: user.team_id, email: user.email, name: user.name, role: user.role } },
    `user ${user.id} <${user.email}> (${user.role})`,
  );
}

export async function apikeyCreate(ctx: CommandContext, p: Parsed): Promise<void> {
  const key = await createApiKey(ctx.db(), {
    email: required(p, 'email'),
    name: p.values.name as string | undefined,
    scopes: p.values.scopes as string | undefined,
    expires: p.values.expires as string | undefined,
  });
  ctx.out.result(
    {
      id: key.id,
      prefix: key.prefix,
      user_id: key.userId,
      scopes: key.scopes,
      expires_at: key.expiresAt,
      key: key.key,
    },
    `API key for ${p.values.email} (prefix ${key.prefix}, scopes ${key.scopes.join(' ')}, ${key.expiresAt ? `expires ${key.expiresAt}` : 'no expiry'}); shown once, store it now:\n${key.key}`,
  );
}

export async function apikeyList(ctx: CommandContext, p: Parsed): Promise<void> {
  const keys = await listApiKeys(ctx.db(), null, { email: p.values.email as string | undefined });
  const line = (k: (typeof keys)[number]) =>
    `${k.prefix}  ${k.status.padEnd(7)}  ${k.user_email}  ${k.scopes.join(',')}  created ${k.created_at}${k.expires_at ? `  expires ${k.expires_at}` : ''}${k.name ? `  ${k.name}` : ''}`;
  ctx.out.result({ keys }, keys.length ? keys.map(line).join('\n') : 'no API keys');
}

export async function apikeyRevoke(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await revokeApiKey(ctx.db(), required(p, 'prefix'));
  const ended = `; ended ${r.grants_ended} OAuth sign-in(s) and ${r.sessions_ended} page session(s) made with it`;
  ctx.out.result({ ...r }, `${r.revoked ? `revoked key ${r.prefix}` : `key ${r.prefix} was already revoked`}${ended}`);
}

export async function apikeyLimit(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await setApiKeyRateLimit(
    ctx.db(),
    null,
    required(p, 'prefix'),
    required(p, 'per-minute', 'is required: calls a minute, or default'),
  );
  ctx.out.result(
    { ...r },
    `key ${r.prefix} (${r.user_email}): ${r.rate_limit_per_minute === null ? 'the service default (RATE_LIMIT_PER_MINUTE)' : `${r.rate_limit_per_minute} calls`} a minute, across every pod`,
  );
}

export async function userDeactivate(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await deactivateUser(ctx.db(), null, { email: required(p, 'email') });
  ctx.out.result(
    { ...r },
    `deactivated ${r.email}: revoked ${r.keys_revoked} API key(s), ended ${r.grants_ended} OAuth sign-in(s) and ${r.sessions_ended} page session(s)`,
  );
}

export async function userReactivate(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await reactivateUser(ctx.db(), null, { email: required(p, 'email') });
  ctx.out.result({ ...r }, `reactivated ${r.email}; their old API keys stay revoked`);
}

export async function userSignins(ctx: CommandContext, p: Parsed): Promise<void> {
  const signIns = await listSignIns(ctx.db(), null, { email: required(p, 'email') });
  const line = (s: (typeof signIns)[number]) =>
    `${s.id}  ${s.kind}  ${s.kind === 'oauth' ? `${s.client_name ?? s.client_id} ${s.scopes.join(',')}` : ''}  ${s.signed_in_with ?? ''}${s.api_key_prefix ? ` ${s.api_key_prefix}` : ''}  since ${s.created_at}`;
  ctx.out.result({ sign_ins: signIns }, signIns.length ? signIns.map(line).join('\n') : 'no live sign-ins');
}

export async function userEndSignins(ctx: CommandContext, p: Parsed): Promise<void> {
  const r = await endSignIns(ctx.db(), null, { email: required(p, 'email'), id: p.values.id as string | undefined });
  ctx.out.result({ ...r }, `ended ${r.grants_ended} OAuth sign-in(s) and ${r.sessions_ended} page session(s)`);
}
