/**
 * OAuth refusals: the RFC 6749 / RFC 6750 error code a client acts on, a message a person can act on,
 * and a reason from a fixed list that labels oauth_refusals_total (bounded, whatever callers send).
 */
import { oauthRefusals } from '../platform/metrics';

export type RefusalReason =
  // Access tokens at /mcp
  | 'missing_token'
  | 'malformed_token'
  | 'bad_algorithm'
  | 'bad_signature'
  | 'unknown_key'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'no_user_claim'
  | 'unverified_email'
  | 'unknown_user'
  | 'revoked'
  | 'insufficient_scope'
  | 'issuer_unreachable'
  // The built-in authorization server
  | 'invalid_client'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_request'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_grant_type'
  | 'pkce_required'
  | 'pkce_mismatch'
  | 'code_invalid'
  | 'code_expired'
  | 'code_replay'
  | 'redirect_mismatch'
  | 'refresh_invalid'
  | 'refresh_expired'
  | 'refresh_reuse'
  | 'csrf'
  | 'request_expired'
  | 'access_denied'
  | 'rate_limited';

export class OAuthError extends Error {
  constructor(
    /** The protocol error code (invalid_token, invalid_grant, invalid_request, ...). */
    readonly error: string,
    message: string,
    readonly reason: RefusalReason,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'OAuthError';
  }

  /** RFC 6749 §5.2 body. */
  toJSON() {
    return { error: this.error, error_description: this.message };
  }
}

export function isOAuthError(e: unknown): e is OAuthError {
  return e instanceof OAuthError;
}

export function countRefusal(reason: RefusalReason): void {
  oauthRefusals.inc({ reason });
}

/** An access token the resource server will not accept: 401 invalid_token. */
export const invalidToken = (reason: RefusalReason, message: string) =>
  new OAuthError('invalid_token', message, reason, 401);

/** A grant (code or refresh token) the token endpoint will not exchange. */
export const invalidGrant = (reason: RefusalReason, message: string) =>
  new OAuthError('invalid_grant', message, reason, 400);

export const invalidRequest = (message: string, reason: RefusalReason = 'invalid_request') =>
  new OAuthError('invalid_request', message, reason, 400);
