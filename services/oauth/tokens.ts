/**
 * What the built-in server hands out: JWT access tokens (RFC 9068 profile: typ at+jwt, aud = the MCP
 * resource, sub = the user id, plus the email the resource server maps to the user and the grant id
 * that lets a revocation take effect at once) and rotating refresh tokens.
 */
import { SignJWT } from 'jose';
import type { Knex } from 'knex';
import { audit } from '../core/audit';
import type { Principal } from '../core/access';
import type { Config } from '../platform/config';
import { oauthTokensIssued } from '../platform/metrics';
import { randomSecret } from './crypto';
import { invalidGrant } from './errors';
import { linkCodeToGrant, redeemCode } from './codes';
import { createGrant, issueRefreshToken, rotateRefreshToken } from './grants';
import { currentSigningKey } from './keys';
import { principalById } from './principal';
import type { Scope } from './scopes';

type TokenConfig = Pick<Config, 'oauth' | 'secretsKey' | 'publicBaseUrl'>;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export async function mintAccessToken(
  db: Knex,
  config: TokenConfig,
  t: { principal: Principal; clientId: string; grantId: string; scopes: Scope[] },
): Promise<{ token: string; expiresIn: number }> {
  const key = await currentSigningKey(db, config);
  const now = Math.floor(Date.now() / 1000);
  const expiresIn = Math.max(1, Math.round(config.oauth.accessTokenTtlMs / 1000));
  const token = await new SignJWT({
    scope: t.scopes.join(' '),
    client_id: t.clientId,
    email: t.principal.email,
    sid: t.grantId,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(config.oauth.issuer!)
    .setAudience(config.oauth.audience)
    .setSubject(t.principal.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .setJti(randomSecret(16))
    .sign(key.privateKey);
  return { token, expiresIn };
}

async function respond(
  db: Knex,
  config: TokenConfig,
  grantType: 'authorization_code' | 'refresh_token',
  t: { principal: Principal; clientId: string; grantId: string; scopes: Scope[]; refreshToken: string },
): Promise<TokenResponse> {
  const access = await mintAccessToken(db, config, t);
  await audit(
    db,
    t.principal,
    'oauth.token_issue',
    { type: 'oauth_grant', id: t.grantId },
    { grant_type: grantType, client_id: t.clientId, scopes: t.scopes },
  );
  oauthTokensIssued.inc({ grant_type: grantType });
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    refresh_token: t.refreshToken,
    scope: t.scopes.join(' '),
  };
}

/** grant_type=authorization_code: spend the code, open a grant, issue its first tokens. */
export async function exchangeAuthorizationCode(
  db: Knex,
  config: TokenConfig,
  r: { clientId: string; code: string; codeVerifier?: string; redirectUri?: string; resource?: string },
): Promise<TokenResponse> {
  const code = await redeemCode(db, r);
  const principal = await principalById(db, code.user_id);
  if (!principal) throw invalidGrant('code_invalid', 'the user of this authorization no longer exists');
  const { grant, refreshToken } = await db.transaction(async (tx) => {
    const g = await createGrant(tx, {
      clientId: code.client_id,
      userId: code.user_id,
      scopes: code.scopes,
      resource: code.resource,
      apiKeyId: code.api_key_id,
    });
    await linkCodeToGrant(tx, code.code_hash, g.id);
    return { grant: g, refreshToken: await issueRefreshToken(tx, g.id, config.oauth.refreshTokenTtlMs) };
  });
  return respond(db, config, 'authorization_code', {
    principal,
    clientId: code.client_id,
    grantId: grant.id,
    scopes: grant.scopes,
    refreshToken,
  });
}

/** grant_type=refresh_token: rotate the refresh token and issue a new access token. */
export async function exchangeRefreshToken(
  db: Knex,
  config: TokenConfig,
  r: { clientId: string; refreshToken: string; scope?: string; resource?: string },
): Promise<TokenResponse> {
  const rotated = await rotateRefreshToken(db, {
    token: r.refreshToken,
    clientId: r.clientId,
    scope: r.scope,
    resource: r.resource,
    ttlMs: config.oauth.refreshTokenTtlMs,
  });
  return respond(db, config, 'refresh_token', {
    principal: rotated.principal,
    clientId: r.clientId,
    grantId: rotated.grant.id,
    scopes: rotated.scopes,
    refreshToken: rotated.refreshToken,
  });
}
