/**
 * Grants and refresh tokens. A grant is one consented sign-in of a user for a client; its refresh
 * tokens form a family. Every refresh rotates the token (the old one is spent); presenting a spent
 * token again means two parties hold the family, so the whole grant is revoked (OAuth 2.1 §4.3.1,
 * OAuth Security BCP §4.14.2) and its access tokens stop working at once (they carry the grant id).
 */
import type { Knex } from 'knex';
import { audit } from '../core/audit';
import type { Principal } from '../core/access';
import { runSql } from '../platform/sql';
import { randomSecret, sha256 } from './crypto';
import { invalidGrant, OAuthError } from './errors';
import { principalById } from './principal';
import { knownScopes, Scope } from './scopes';

export interface Grant {
  id: string;
  client_id: string;
  user_id: string;
  scopes: Scope[];
  resource: string;
  /** The API key the user signed in with, if any: revoking it ends this grant. */
  api_key_id: string | null;
  revoked_at: Date | null;
}

export type RevocationReason = 'refresh_token_reuse' | 'code_replay' | 'revoked_by_client';

export async function createGrant(
  tx: Knex.Transaction,
  g: { clientId: string; userId: string; scopes: Scope[]; resource: string; apiKeyId: string | null },
): Promise<Grant> {
  const [row] = await tx('oauth_grants')
    .insert({
      id: `g_${randomSecret(16)}`,
      client_id: g.clientId,
      user_id: g.userId,
      scopes: g.scopes,
      resource: g.resource,
      api_key_id: g.apiKeyId,
    })
    .returning('*');
  return row as Grant;
}

/** A refresh token of the grant: returned once, stored as its hash. */
export async function issueRefreshToken(tx: Knex | Knex.Transaction, grantId: string, ttlMs: number): Promise<string> {
  const token = `mirt_${randomSecret(32)}`;
  await tx('oauth_refresh_tokens').insert({
    token_hash: sha256(token),
    grant_id: grantId,
    expires_at: new Date(Date.now() + ttlMs),
  });
  // Expired tokens go as new ones come (spent ones stay until they expire: reuse detection needs them).
  await tx('oauth_refresh_tokens')
    .where('expires_at', '<', new Date(Date.now() - 86_400_000))
    .delete();
  return token;
}

/**
 * The grant's lineage, checked on every request made with one of its access tokens and on every
 * refresh: the grant is not revoked, its user exists and is not deactivated, and the API key it was
 * signed in with (if any) is neither revoked nor expired. One indexed statement, prepared once per
 * connection, so a revocation anywhere up the line takes effect on the next call, not at token expiry.
 */
export const GRANT_ACTIVE_SQL =
  'select 1 from oauth_grants g join users u on u.id = g.user_id left join api_keys k on k.id = g.api_key_id ' +
  'where g.id = $1 and g.revoked_at is null and u.deactivated_at is null ' +
  'and (g.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())))';

/** Whether access and refresh tokens of this grant may still be used (see GRANT_ACTIVE_SQL). */
export async function grantIsActive(db: Knex | Knex.Transaction, grantId: string): Promise<boolean> {
  const rows = await runSql<{ '?column?': number }>(
    db as Knex,
    { text: GRANT_ACTIVE_SQL, values: [grantId] },
    'mi_oauth_grant_active',
  );
  return rows.length === 1;
}

/** Revoke a grant (the whole refresh-token family and its access tokens). Idempotent; audited once. */
export async function revokeGrant(
  db: Knex | Knex.Transaction,
  grantId: string,
  reason: RevocationReason,
): Promise<boolean> {
  const [row] = await db('oauth_grants')
    .where({ id: grantId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now(), revoked_reason: reason })
    .returning(['id', 'user_id', 'client_id']);
  if (!row) return false;
  const user = await db('users').where({ id: row.user_id }).first('team_id');
  await audit(
    db,
    null,
    'oauth.family_revoke',
    { type: 'oauth_grant', id: row.id, teamId: user?.team_id },
    { reason, client_id: row.client_id, user_id: row.user_id },
  );
  return true;
}

export interface Rotated {
  grant: Grant;
  principal: Principal;
  scopes: Scope[];
  refreshToken: string;
}

/**
 * Spend a refresh token and hand out its successor. `scope`, when given, may narrow the grant's scopes
 * for the new access token, never widen them (RFC 6749 §6).
 */
export async function rotateRefreshToken(
  db: Knex,
  input: { token: string; clientId: string; scope?: string; resource?: string; ttlMs: number },
): Promise<Rotated> {
  const hash = sha256(input.token);
  const outcome = await db.transaction(async (tx): Promise<Rotated | { reuse: Grant }> => {
    const row = await tx('oauth_refresh_tokens as r')
      .join('oauth_grants as g', 'g.id', 'r.grant_id')
      .where('r.token_hash', hash)
      .first('r.used_at', 'r.expires_at', 'g.*');
    if (!row) throw invalidGrant('refresh_invalid', 'the refresh token is not valid; sign in again');
    const grant = {
      id: row.id,
      client_id: row.client_id,
      user_id: row.user_id,
      scopes: row.scopes,
      resource: row.resource,
      api_key_id: row.api_key_id,
      revoked_at: row.revoked_at,
    } as Grant;
    if (grant.client_id !== input.clientId)
      throw invalidGrant('refresh_invalid', 'the refresh token was issued to another client');
    // Revoked here, or ended up its lineage (the key it was signed in with revoked or expired, its user deactivated).
    if (grant.revoked_at || !(await grantIsActive(tx, grant.id)))
      throw invalidGrant('revoked', 'this sign-in was revoked; sign in again');
    if (input.resource !== undefined && input.resource !== grant.resource) {
      throw new OAuthError(
        'invalid_target',
        `resource must be ${grant.resource}, as when this sign-in was granted`,
        'invalid_target',
      );
    }
    // Spend it atomically: of two concurrent presentations exactly one wins; the other is a reuse.
    const spent = row.used_at
      ? 0
      : await tx('oauth_refresh_tokens')
          .where({ token_hash: hash })
          .whereNull('used_at')
          .update({ used_at: tx.fn.now() });
    if (!spent) {
      await revokeGrant(tx, grant.id, 'refresh_token_reuse');
      return { reuse: grant };
    }
    if (new Date(row.expires_at).getTime() <= Date.now())
      throw invalidGrant('refresh_expired', 'the refresh token has expired; sign in again');
    const principal = await principalById(tx, grant.user_id);
    if (!principal) throw invalidGrant('refresh_invalid', 'the user of this sign-in no longer exists');
    const scopes = narrowScopes(grant.scopes, input.scope);
    const refreshToken = await issueRefreshToken(tx, grant.id, input.ttlMs);
    return { grant, principal, scopes, refreshToken };
  });
  // The revocation above is committed; only now refuse.
  if ('reuse' in outcome) {
    throw invalidGrant(
      'refresh_reuse',
      'this refresh token was already used; the sign-in has been revoked as a precaution, sign in again',
    );
  }
  return outcome;
}

function narrowScopes(granted: Scope[], requested?: string): Scope[] {
  if (requested === undefined) return granted;
  const wanted = knownScopes(requested);
  if (!wanted.length || wanted.some((s) => !granted.includes(s))) {
    throw new OAuthError(
      'invalid_scope',
      `scope may only narrow the granted scopes (${granted.join(' ')})`,
      'invalid_scope',
    );
  }
  return wanted;
}

/**
 * RFC 7009 revocation by the client that holds the token: a refresh token (or an access token, by its
 * grant id) revokes the whole grant. Unknown tokens and other clients' tokens are silently ignored,
 * as the RFC asks.
 */
export async function revokeByRefreshToken(db: Knex, token: string, clientId: string): Promise<boolean> {
  const row = await db('oauth_refresh_tokens as r')
    .join('oauth_grants as g', 'g.id', 'r.grant_id')
    .where('r.token_hash', sha256(token))
    .first('g.id', 'g.client_id');
  if (!row || row.client_id !== clientId) return false;
  return revokeGrant(db, row.id, 'revoked_by_client');
}

export async function revokeGrantOfClient(db: Knex, grantId: string, clientId: string): Promise<boolean> {
  const row = await db('oauth_grants').where({ id: grantId }).first('client_id');
  if (!row || row.client_id !== clientId) return false;
  return revokeGrant(db, grantId, 'revoked_by_client');
}
