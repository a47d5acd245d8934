/**
 * Authorization codes: single-use, bound to the client, redirect URI, PKCE challenge and resource of
 * the authorization request, and valid for 60 seconds. Spent codes are kept a day so that a replay is
 * recognised as one (and what the first exchange obtained is revoked) rather than as an unknown code.
 */
import type { Knex } from 'knex';
import { pkceMatches, randomSecret, sha256 } from './crypto';
import { invalidGrant, invalidRequest, OAuthError } from './errors';
import { revokeGrant } from './grants';
import type { Scope } from './scopes';

export const CODE_TTL_MS = 60_000;

export interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  /** Whether the authorization request named redirect_uri (then the token request must name it too). */
  redirect_uri_given: boolean;
  /** The API key the user signed in with, if any (handed on to the grant). */
  api_key_id: string | null;
  scopes: Scope[];
  code_challenge: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
  grant_id: string | null;
}

export async function issueCode(
  db: Knex | Knex.Transaction,
  c: {
    clientId: string;
    userId: string;
    redirectUri: string;
    redirectUriGiven: boolean;
    apiKeyId: string | null;
    scopes: Scope[];
    codeChallenge: string;
    resource: string;
  },
): Promise<string> {
  const code = `mic_${randomSecret(32)}`;
  await db('oauth_codes').insert({
    code_hash: sha256(code),
    client_id: c.clientId,
    user_id: c.userId,
    redirect_uri: c.redirectUri,
    redirect_uri_given: c.redirectUriGiven,
    api_key_id: c.apiKeyId,
    scopes: c.scopes,
    code_challenge: c.codeChallenge,
    resource: c.resource,
    expires_at: new Date(Date.now() + CODE_TTL_MS),
  });
  // Old codes go as new ones come, so the table stays small without a sweeper.
  await db('oauth_codes')
    .where('expires_at', '<', new Date(Date.now() - 86_400_000))
    .delete();
  return code;
}

/**
 * Spend a code at the token endpoint and check everything bound to it. The code is spent even when a
 * check fails: a code gets one attempt.
 */
export async function redeemCode(
  db: Knex,
  r: { code: string; clientId: string; codeVerifier?: string; redirectUri?: string; resource?: string },
): Promise<CodeRow> {
  if (!r.codeVerifier)
    throw invalidRequest(
      'code_verifier is required: this server accepts only PKCE (S256) authorization codes',
      'pkce_required',
    );
  const hash = sha256(r.code);
  const [code] = (await db('oauth_codes')
    .where({ code_hash: hash })
    .whereNull('used_at')
    .update({ used_at: db.fn.now() })
    .returning('*')) as CodeRow[];
  if (!code) {
    const spent = (await db('oauth_codes').where({ code_hash: hash }).first()) as CodeRow | undefined;
    if (!spent) throw invalidGrant('code_invalid', 'the authorization code is not valid; sign in again');
    // A replayed code may be stolen: what its first use obtained is revoked too (OAuth 2.1 §4.1.3).
    if (spent.grant_id) await revokeGrant(db, spent.grant_id, 'code_replay');
    throw invalidGrant('code_replay', 'the authorization code was already used; sign in again');
  }
  if (code.client_id !== r.clientId)
    throw invalidGrant('code_invalid', 'the authorization code was issued to another client');
  if (new Date(code.expires_at).getTime() <= Date.now())
    throw invalidGrant(
      'code_expired',
      'the authorization code has expired (codes are valid for 60 seconds); sign in again',
    );
  // RFC 6749 §4.1.3: present (and identical) when the authorization request carried one.
  if (r.redirectUri === undefined && code.redirect_uri_given) {
    throw invalidGrant(
      'redirect_mismatch',
      'redirect_uri is required: the authorization request named one, so the token request must name the same',
    );
  }
  if (r.redirectUri !== undefined && r.redirectUri !== code.redirect_uri) {
    throw invalidGrant('redirect_mismatch', 'redirect_uri differs from the one of the authorization request');
  }
  if (!pkceMatches(r.codeVerifier, code.code_challenge)) {
    throw invalidGrant('pkce_mismatch', 'code_verifier does not match the code_challenge of the authorization request');
  }
  if (r.resource !== undefined && r.resource !== code.resource) {
    throw new OAuthError(
      'invalid_target',
      `resource must be ${code.resource}, as in the authorization request`,
      'invalid_target',
    );
  }
  return code;
}

export async function linkCodeToGrant(db: Knex | Knex.Transaction, codeHash: string, grantId: string): Promise<void> {
  await db('oauth_codes').where({ code_hash: codeHash }).update({ grant_id: grantId });
}
