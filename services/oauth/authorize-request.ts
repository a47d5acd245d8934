/**
 * The checks on an authorization request (GET /oauth/authorize) once its client is known: its
 * redirect URI is one the client registered, and the rest is a PKCE (S256) code request for this
 * MCP server with a scope it knows. Each refusal is an OAuthError naming the parameter and the rule.
 */
import { ClientRow, redirectUriMatches } from './clients';
import { PKCE_CHALLENGE } from './crypto';
import { OAuthError } from './errors';
import { knownScopes, SCOPES, type Scope } from './scopes';

/** One query or form value, or undefined (repeated values count as absent). */
export const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const trimSlash = (s: string) => s.replace(/\/$/, '');

/**
 * The redirect URI of the request: one the client registered, exactly (no prefix or case leniency),
 * except that a loopback one may name any port (redirectUriMatches).
 */
export function registeredRedirectUri(client: ClientRow, requested: string | undefined): string {
  if (requested === undefined) {
    if (client.redirect_uris.length === 1) return client.redirect_uris[0];
    throw new OAuthError(
      'invalid_request',
      'The app did not say where to return to (redirect_uri).',
      'invalid_redirect_uri',
    );
  }
  if (!client.redirect_uris.some((registered) => redirectUriMatches(registered, requested))) {
    throw new OAuthError(
      'invalid_request',
      'The app asked to return to an address it did not register (redirect_uri). Nothing was sent to it.',
      'invalid_redirect_uri',
    );
  }
  return requested;
}

/** What a valid request asks for; throws the first rule it breaks. */
export function checkAuthorizeRequest(
  q: Record<string, unknown>,
  client: ClientRow,
  resource: string,
): { challenge: string; scopes: Scope[] } {
  const state = one(q.state);
  if (one(q.response_type) !== 'code')
    throw new OAuthError('unsupported_response_type', 'response_type must be code', 'invalid_request');
  const challenge = one(q.code_challenge);
  if (!challenge)
    throw new OAuthError(
      'invalid_request',
      'code_challenge is required: this server accepts only PKCE with S256',
      'pkce_required',
    );
  if (one(q.code_challenge_method) !== 'S256') {
    throw new OAuthError(
      'invalid_request',
      'code_challenge_method must be S256 (plain is not accepted)',
      'pkce_required',
    );
  }
  if (!PKCE_CHALLENGE.test(challenge))
    throw new OAuthError(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
      'invalid_request',
    );
  const requestedResource = one(q.resource);
  if (requestedResource !== undefined && trimSlash(requestedResource) !== trimSlash(resource)) {
    throw new OAuthError('invalid_target', `resource must be this MCP server, ${resource}`, 'invalid_target');
  }
  const scopes = knownScopes(one(q.scope) ?? client.scope ?? SCOPES.join(' '));
  if (!scopes.length)
    throw new OAuthError('invalid_scope', `scope must include ${SCOPES.join(' or ')}`, 'invalid_scope');
  if (state !== undefined && state.length > 1024)
    throw new OAuthError('invalid_request', 'state must be at most 1024 characters', 'invalid_request');
  return { challenge, scopes };
}
