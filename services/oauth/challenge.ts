/**
 * The Bearer challenges of the MCP endpoint (RFC 6750 §3, RFC 9728 §5.1): they tell an OAuth-aware
 * MCP client where the protected-resource metadata is, and why a token was refused.
 */
import type { Scope } from './scopes';

export interface ChallengeParams {
  /** Set when OAuth is enabled: where the client discovers the authorization server. */
  resourceMetadataUrl?: string;
  /** Only when a credential was sent: RFC 6750 says a request without one gets no error code. */
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  scope?: string;
}

/** Quoted-string values: no quotes, backslashes or control characters (RFC 9110 §5.6.4). */
function quoted(v: string): string {
  return `"${v.replace(/[\\"]/g, "'").replace(/[\x00-\x1f\x7f]/g, ' ')}"`;
}

export function bearerChallenge(p: ChallengeParams): string {
  const parts = ['realm="meeting-intelligence"'];
  if (p.error) parts.push(`error=${quoted(p.error)}`);
  if (p.description) parts.push(`error_description=${quoted(p.description)}`);
  if (p.scope) parts.push(`scope=${quoted(p.scope)}`);
  if (p.resourceMetadataUrl) parts.push(`resource_metadata=${quoted(p.resourceMetadataUrl)}`);
  return `Bearer ${parts.join(', ')}`;
}

/** The 403 challenge of a tool call whose token lacks the tool's scope (RFC 6750 §3.1 insufficient_scope). */
export function insufficientScopeChallenge(scope: Scope, resourceMetadataUrl?: string): string {
  return bearerChallenge({
    error: 'insufficient_scope',
    description: `this tool needs the ${scope} scope; sign in again and grant it`,
    scope,
    resourceMetadataUrl,
  });
}
