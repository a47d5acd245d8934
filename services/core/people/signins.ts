/**
 * Sign-ins and their lineage. Everything obtained with a credential ends with it: an OAuth grant of
 * the built-in server (its access and refresh tokens) and a page session remember the API key they
 * were signed in with (api_key_id) and their user. Ending a key, a user, or a sign-in by hand goes
 * through endLineage, which revokes the grants and ends the sessions in the caller's transaction; the
 * checks on every request (oauth grantIsActive, sessionOf, the API-key lookup) refuse them from then on.
 *
 * Team governors (access/rules.ts requireTeamGovernor) list and end a teammate's sign-ins and deactivate or
 * reactivate teammates; everyone may list and end their own sign-ins.
 */
import type { Knex } from 'knex';
import { audit } from '../audit';
import { requireMayGovern, requireTeamGovernor, type Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';

export type LineageReason = 'api_key_revoked' | 'user_deactivated' | 'ended_by_user' | 'ended_by_admin';

/** End the grants and sessions of a key or of a user (all of them, or the one named). Counts what ended. */
export async function endLineage(
  tx: Knex.Transaction,
  actor: Principal | null,
  of: { apiKeyId: string } | { userId: string; grantId?: string; sessionId?: string },
  reason: LineageReason,
): Promise<{ grants: number; sessions: number }> {
  const grants = tx('oauth_grants').whereNull('revoked_at');
  const sessions = tx('web_sessions').whereNull('ended_at').where('expires_at', '>', tx.fn.now());
  if ('apiKeyId' in of) {
    grants.where('api_key_id', of.apiKeyId);
    sessions.where('api_key_id', of.apiKeyId);
  } else {
    grants.where('user_id', of.userId);
    sessions.where('user_id', of.userId);
    // Naming one sign-in ends only that one; naming none ends them all.
    if (of.grantId || of.sessionId) {
      if (of.grantId) grants.where('id', of.grantId);
      else grants.whereRaw('false');
      if (of.sessionId) sessions.where('id', of.sessionId);
      else sessions.whereRaw('false');
    }
  }
  const endedGrants: { id: string; user_id: string }[] = await grants
    .update({ revoked_at: tx.fn.now(), revoked_reason: reason })
    .returning(['id', 'user_id']);
  const endedSessions: { id: string; user_id: string }[] = await sessions
    .update({ ended_at: tx.fn.now() })
    .returning(['id', 'user_id']);
  const userIds = [...new Set([...endedGrants, ...endedSessions].map((r) => r.user_id))];
  if (userIds.length) {
    const teams = new Map(
      (await tx('users').whereIn('id', userIds).select('id', 'team_id')).map((u: { id: string; team_id: string }) => [
        u.id,
        u.team_id,
      ]),
    );
    for (const g of endedGrants)
      await audit(
        tx,
        actor,
        'oauth.family_revoke',
        { type: 'oauth_grant', id: g.id, teamId: teams.get(g.user_id) },
        { reason, user_id: g.user_id },
      );
    for (const s of endedSessions)
      await audit(
        tx,
        actor,
        'session.end',
        { type: 'web_session', id: s.id, teamId: teams.get(s.user_id) },
        { reason, user_id: s.user_id },
      );
  }
  return { grants: endedGrants.length, sessions: endedSessions.length };
}

export interface SignInRecord {
  /** An OAuth grant id (g_…) or a page session id. */
  id: string;
  kind: 'oauth' | 'page';
  /** The OAuth client's id and name (oauth only). */
  client_id: string | null;
  client_name: string | null;
  scopes: string[];
  /** How the person proved who they were: api_key or oidc (page sessions), the key's prefix when it was a key. */
  signed_in_with: string | null;
  api_key_prefix: string | null;
  created_at: string;
  /** When a page session expires; an OAuth sign-in lives as long as its refresh tokens are used. */
  expires_at: string | null;
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** The user (by id within the caller's team, or by email for an operator) the call is about. */
async function targetUser(
  db: Knex,
  actor: Principal | null,
  who: { userId?: string; email?: string },
  what: string,
): Promise<{ id: string; team_id: string; email: string; deactivated_at: Date | null }> {
  const q = db('users');
  if (actor) {
    const id = who.userId ?? actor.userId;
    requireMayGovern(actor, id, what);
    q.where({ id, team_id: actor.teamId });
  } else if (who.email) q.whereRaw('lower(email) = lower(?)', [who.email.trim()]);
  else if (who.userId) q.where({ id: who.userId });
  else throw invalid('email', 'is required', 'email: name the user');
  const user = await q.first('id', 'team_id', 'email', 'deactivated_at');
  if (!user) throw notFound('user', who.userId ?? who.email ?? '');
  return user;
}

/** The live sign-ins of a user (the caller's own by default): OAuth grants not revoked, page sessions not ended or expired. */
export async function listSignIns(
  db: Knex,
  actor: Principal | null,
  who: { userId?: string; email?: string } = {},
): Promise<SignInRecord[]> {
  const user = await targetUser(db, actor, who, "Listing another user's sign-ins");
  const grants = await db('oauth_grants as g')
    .leftJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .leftJoin('api_keys as k', 'k.id', 'g.api_key_id')
    .where('g.user_id', user.id)
    .whereNull('g.revoked_at')
    .select('g.id', 'g.client_id', 'c.client_name', 'g.scopes', 'g.created_at', 'k.prefix');
  const sessions = await db('web_sessions as s')
    .leftJoin('api_keys as k', 'k.id', 's.api_key_id')
    .where('s.user_id', user.id)
    .whereNull('s.ended_at')
    .where('s.expires_at', '>', db.fn.now())
    .select('s.id', 's.signed_in_with', 's.created_at', 's.expires_at', 'k.prefix');
  const out: SignInRecord[] = [
    ...grants.map((g) => ({
      id: g.id,
      kind: 'oauth' as const,
      client_id: g.client_id,
      client_name: g.client_name ?? null,
      scopes: g.scopes,
      signed_in_with: g.prefix ? 'api_key' : 'oidc',
      api_key_prefix: g.prefix ?? null,
      created_at: iso(g.created_at)!,
      expires_at: null,
    })),
    ...sessions.map((s) => ({
      id: s.id,
      kind: 'page' as const,
      client_id: null,
      client_name: null,
      scopes: [],
      signed_in_with: s.signed_in_with,
      api_key_prefix: s.prefix ?? null,
      created_at: iso(s.created_at)!,
      expires_at: iso(s.expires_at),
    })),
  ];
  return out.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
}

/** End a user's sign-ins: the one named by `id` (a grant or session id), else all of them. */
export async function endSignIns(
  db: Knex,
  actor: Principal | null,
  who: { userId?: string; email?: string; id?: string },
): Promise<{ grants_ended: number; sessions_ended: number }> {
  const user = await targetUser(db, actor, who, "Ending another user's sign-ins");
  const reason: LineageReason = actor && actor.userId === user.id ? 'ended_by_user' : 'ended_by_admin';
  return db.transaction(async (tx) => {
    const one = who.id ? (who.id.startsWith('g_') ? { grantId: who.id } : { sessionId: who.id }) : {};
    const ended = await endLineage(tx, actor, { userId: user.id, ...one }, reason);
    if (who.id && !ended.grants && !ended.sessions) throw notFound('live sign-in', who.id);
    return { grants_ended: ended.grants, sessions_ended: ended.sessions };
  });
}

export interface UserStatus {
  user_id: string;
  email: string;
  deactivated_at: string | null;
  keys_revoked: number;
  grants_ended: number;
  sessions_ended: number;
}

/**
 * Deactivate a user: they can no longer sign in, and every key, OAuth grant and page session of theirs
 * ends at once. Their meetings stay. A governor cannot deactivate themself (the team would be left
 * without the admin who could undo it).
 */
export async function deactivateUser(
  db: Knex,
  actor: Principal | null,
  who: { userId?: string; email?: string },
): Promise<UserStatus> {
  if (actor) requireTeamGovernor(actor, 'Deactivating a user');
  const user = await targetUser(
    db,
    actor,
    { userId: who.userId ?? (actor ? '' : undefined), email: who.email },
    'Deactivating a user',
  );
  if (actor && user.id === actor.userId)
    throw invalid('userId', 'another user', 'userId: you cannot deactivate yourself; ask another admin of your team');
  return db.transaction(async (tx) => {
    await tx('users').where({ id: user.id }).whereNull('deactivated_at').update({ deactivated_at: tx.fn.now() });
    const keys: { id: string }[] = await tx('api_keys')
      .where({ user_id: user.id })
      .whereNull('revoked_at')
      .update({ revoked_at: tx.fn.now() })
      .returning(['id']);
    const ended = await endLineage(tx, actor, { userId: user.id }, 'user_deactivated');
    await audit(
      tx,
      actor,
      'user.deactivate',
      { type: 'user', id: user.id, teamId: user.team_id },
      { keys_revoked: keys.length, grants_ended: ended.grants, sessions_ended: ended.sessions },
    );
    const row = await tx('users').where({ id: user.id }).first('deactivated_at');
    return {
      user_id: user.id,
      email: user.email,
      deactivated_at: iso(row.deactivated_at),
      keys_revoked: keys.length,
      grants_ended: ended.grants,
      sessions_ended: ended.sessions,
    };
  });
}

/** Let a deactivated user sign in again. Their old keys stay revoked: they make new ones. */
export async function reactivateUser(
  db: Knex,
  actor: Principal | null,
  who: { userId?: string; email?: string },
): Promise<UserStatus> {
  if (actor) requireTeamGovernor(actor, 'Reactivating a user');
  const user = await targetUser(
    db,
    actor,
    { userId: who.userId ?? (actor ? '' : undefined), email: who.email },
    'Reactivating a user',
  );
  await db.transaction(async (tx) => {
    await tx('users').where({ id: user.id }).update({ deactivated_at: null });
    await audit(tx, actor, 'user.reactivate', { type: 'user', id: user.id, teamId: user.team_id }, {});
  });
  return {
    user_id: user.id,
    email: user.email,
    deactivated_at: null,
    keys_revoked: 0,
    grants_ended: 0,
    sessions_ended: 0,
  };
}
