/**
 * Delegated sign-in for the built-in server (OIDC_ISSUER): the authorization-code flow with PKCE to
 * the organisation's OpenID Connect provider, whose ID token (signature, issuer, audience = our client
 * id, nonce, expiry) names the user by email. The provider's tokens are used for nothing else.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../platform/config';
import { randomSecret, s256 } from './crypto';
import { issuerMetadataCache, IssuerMetadata } from './issuer-metadata';
import { ACCEPTED_ALGORITHMS } from './verify';

export type OidcConfig = NonNullable<Config['oauth']['oidc']>;

export class SignInFailed extends Error {
  constructor(
    readonly outcome: 'provider_error' | 'unknown_user',
    message: string,
  ) {
    super(message);
  }
}

export interface OidcStart {
  url: string;
  state: string;
  nonce: string;
  verifier: string;
}

export interface OidcClient {
  /** Where to send the browser, and the secrets to remember for the callback. */
  start(): Promise<OidcStart>;
  /** Exchange the provider's code and return the verified email of the signed-in person. */
  finish(code: string, remembered: { nonce: string; verifier: string }): Promise<string>;
}

export function createOidcClient(oidc: OidcConfig, redirectUri: string, clockSkewMs: number): OidcClient {
  const metadata = issuerMetadataCache();
  const jwks = new Map<string, JWTVerifyGetKey>();

  const endpoints = async (): Promise<
    Required<Pick<IssuerMetadata, 'authorization_endpoint' | 'token_endpoint' | 'jwks_uri'>>
  > => {
    let doc: IssuerMetadata;
    try {
      doc = await metadata(oidc.issuer);
    } catch {
      throw new SignInFailed('provider_error', 'The identity provider could not be reached. Try again in a moment.');
    }
    if (!doc.authorization_endpoint || !doc.token_endpoint || !doc.jwks_uri) {
      throw new SignInFailed('provider_error', 'The identity provider does not publish the endpoints sign-in needs.');
    }
    return {
      authorization_endpoint: doc.authorization_endpoint,
      token_endpoint: doc.token_endpoint,
      jwks_uri: doc.jwks_uri,
    };
  };

  const keysFor = (uri: string) => {
    let k = jwks.get(uri);
    if (!k) jwks.set(uri, (k = createRemoteJWKSet(new URL(uri), { timeoutDuration: 5_000 })));
    return k;
  };

  return {
    async start() {
      const e = await endpoints();
      const state = randomSecret();
      const nonce = randomSecret();
      const verifier = randomSecret(48);
      const url = new URL(e.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: oidc.clientId,
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
      }).toString();
      return { url: url.toString(), state, nonce, verifier };
    },

    async finish(code, remembered) {
      const e = await endpoints();
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      };
      const body = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: remembered.verifier,
        client_id: oidc.clientId,
      });
      if (oidc.clientSecret) {
        // client_secret_basic, the method every provider must support (RFC 6749 §2.3.1).
        const enc = (s: string) => encodeURIComponent(s);
        headers.authorization = `Basic ${Buffer.from(`${enc(oidc.clientId)}:${enc(oidc.clientSecret)}`).toString('base64')}`;
      }
      let idToken: unknown;
      try {
        const res = await fetch(e.token_endpoint, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(10_000),
          redirect: 'error',
        });
        const json = (await res.json()) as { id_token?: unknown };
        if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
        idToken = json.id_token;
      } catch {
        throw new SignInFailed(
          'provider_error',
          'The identity provider did not complete the sign-in. Start again from your MCP client.',
        );
      }
      if (typeof idToken !== 'string')
        throw new SignInFailed('provider_error', 'The identity provider returned no ID token.');
      let payload;
      try {
        ({ payload } = await jwtVerify(idToken, keysFor(e.jwks_uri), {
          issuer: oidc.issuer,
          audience: oidc.clientId,
          algorithms: ACCEPTED_ALGORITHMS,
          clockTolerance: Math.round(clockSkewMs / 1000),
          requiredClaims: ['exp', 'nonce'],
        }));
      } catch {
        throw new SignInFailed('provider_error', 'The ID token from the identity provider could not be verified.');
      }
      if (payload.nonce !== remembered.nonce)
        throw new SignInFailed('provider_error', 'The ID token does not belong to this sign-in.');
      if (typeof payload.email !== 'string' || !payload.email || payload.email_verified === false) {
        throw new SignInFailed(
          'unknown_user',
          'The identity provider did not share a verified email address for your account.',
        );
      }
      return payload.email;
    },
  };
}
