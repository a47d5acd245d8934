/**
 * Access-token verification, the same for the external issuer and the built-in one: a JWT signed
 * with RS256, ES256 or EdDSA (never `none`, never a shared HS* secret) by a key the issuer publishes,
 * with this issuer's `iss`, this resource's `aud` (RFC 8707: a token minted for another resource is
 * refused), a required `exp` and an optional `nbf` checked with a small clock skew.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../platform/config';
import { invalidToken, OAuthError } from './errors';
import { issuerMetadataCache } from './issuer-metadata';
import { knownScopes, Scope } from './scopes';

export const ACCEPTED_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

export interface VerifiedToken {
  /** The value of the user claim (an email address). */
  user: string;
  scopes: Scope[];
  /** The built-in server's grant id (`sid`), absent in external tokens. */
  grantId?: string;
}

export interface VerifierOptions {
  issuer: string;
  audience: string;
  userClaim: string;
  clockSkewMs: number;
  keys: JWTVerifyGetKey;
  /** Required `typ` header (the built-in server's tokens are `at+jwt`); identity providers differ, so external tokens are not held to one. */
  typ?: string;
}

/** Failing to obtain keys (issuer down, database down) is not the caller's fault: 503, not 401. */
class KeySourceError extends Error {}

function guarded(keys: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (e) {
      if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) throw e;
      throw new KeySourceError(e instanceof Error ? e.message : String(e));
    }
  };
}

function refusal(e: unknown): OAuthError {
  if (e instanceof KeySourceError) {
    return new OAuthError(
      'temporarily_unavailable',
      "the token issuer's signing keys could not be loaded; try again shortly",
      'issuer_unreachable',
      503,
    );
  }
  if (e instanceof errors.JWTExpired)
    return invalidToken('expired', 'the access token has expired; refresh it or sign in again');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'iss')
      return invalidToken('wrong_issuer', 'the access token comes from an issuer this server does not trust');
    if (e.claim === 'aud')
      return invalidToken('wrong_audience', 'the access token was minted for another resource, not this MCP server');
    if (e.claim === 'nbf')
      return invalidToken('not_yet_valid', 'the access token is not valid yet (its nbf is in the future)');
    return invalidToken('malformed_token', `the access token's ${e.claim} claim is missing or invalid`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed)
    return invalidToken('bad_algorithm', 'the access token must be signed with RS256, ES256 or EdDSA');
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return invalidToken('bad_signature', 'the access token signature does not verify');
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) {
    return invalidToken('unknown_key', 'the access token is signed with a key its issuer does not publish');
  }
  return invalidToken('malformed_token', 'the access token is not a well-formed signed JWT');
}

export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export function createTokenVerifier(o: VerifierOptions): TokenVerifier {
  const keys = guarded(o.keys);
  return async (token) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: o.issuer,
        audience: o.audience,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: Math.round(o.clockSkewMs / 1000),
        requiredClaims: ['exp'],
        typ: o.typ,
      }));
    } catch (e) {
      throw refusal(e);
    }
    const user = payload[o.userClaim];
    if (typeof user !== 'string' || !user.trim())
      throw invalidToken('no_user_claim', `the access token has no ${o.userClaim} claim naming the user`);
    // An address the identity provider says it has not verified could be anyone's.
    if (o.userClaim === 'email' && payload.email_verified === false) {
      throw invalidToken(
        'unverified_email',
        'the identity provider has not verified the email address of this account',
      );
    }
    return {
      user: user.trim(),
      scopes: knownScopes(payload.scope ?? payload.scp),
      grantId: typeof payload.sid === 'string' ? payload.sid : undefined,
    };
  };
}

/**
 * The external issuer's keys: OAUTH_JWKS_URL, or the jwks_uri of its metadata. jose caches the set,
 * refetches it when a token names an unknown kid, at most every 30 s (cooldown), and every 10 min anyway.
 */
export function externalKeys(config: Pick<Config, 'oauth'>): JWTVerifyGetKey {
  const metadata = issuerMetadataCache();
  let remote: Promise<JWTVerifyGetKey> | undefined;
  const resolve = async (): Promise<JWTVerifyGetKey> => {
    let url = config.oauth.jwksUrl;
    if (!url) {
      const doc = await metadata(config.oauth.issuer!);
      if (!doc.jwks_uri)
        throw new Error(`the metadata of ${config.oauth.issuer} names no jwks_uri; set OAUTH_JWKS_URL`);
      url = doc.jwks_uri;
    }
    return createRemoteJWKSet(new URL(url), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  };
  return async (header, token) => {
    if (!remote) {
      remote = resolve();
      remote.catch(() => (remote = undefined));
    }
    return (await remote)(header, token);
  };
}
