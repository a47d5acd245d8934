/**
 * The MCP endpoint as an OAuth resource server: a bearer token that is not an API key is verified as
 * an access token and mapped to a user of the service. Tokens are only checked here; they are never
 * forwarded to anything else.
 */
import type { Knex } from 'knex';
import type { Principal } from '../core/access';
import type { Config } from '../platform/config';
import { invalidToken } from './errors';
import { grantIsActive } from './grants';
import { databaseKeySet } from './keys';
import { principalByEmail } from './principal';
import { resourceMetadataUrl } from './urls';
import { createTokenVerifier, externalKeys, TokenVerifier } from './verify';

export interface ResourceServer {
  /** Where clients find the protected-resource metadata (named in every challenge). */
  resourceMetadataUrl: string;
  /** The caller behind an access token, with the token's scopes; throws OAuthError when refused. */
  authenticate(token: string): Promise<Principal>;
}

export function createResourceServer(db: Knex, config: Config): ResourceServer {
  const builtin = config.oauth.mode === 'builtin';
  const verify: TokenVerifier = createTokenVerifier({
    issuer: config.oauth.issuer!,
    audience: config.oauth.audience,
    // The built-in server always puts the email in `email`; OAUTH_USER_CLAIM is for external issuers.
    userClaim: builtin ? 'email' : config.oauth.userClaim,
    clockSkewMs: config.oauth.clockSkewMs,
    keys: builtin ? databaseKeySet(db, config) : externalKeys(config),
    typ: builtin ? 'at+jwt' : undefined,
  });
  return {
    resourceMetadataUrl: resourceMetadataUrl(config),
    async authenticate(token) {
      const t = await verify(token);
      const principal = await principalByEmail(db, t.user);
      if (!principal) {
        throw invalidToken(
          'unknown_user',
          `the signed-in account ${t.user.slice(0, 254)} is not a user of this service; ask an admin of your team to add it`,
        );
      }
      if (builtin && (!t.grantId || !(await grantIsActive(db, t.grantId)))) {
        throw invalidToken('revoked', 'this sign-in has been revoked; sign in again');
      }
      return { ...principal, scopes: t.scopes };
    },
  };
}
