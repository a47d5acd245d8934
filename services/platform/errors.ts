/**
 * The one error type core raises. Both transports map it: MCP to an `isError` result carrying the
 * code, GraphQL to `extensions.code`. Messages say what to change; they never carry SQL or stacks.
 */
export type ErrorCode =
  | 'invalid_arguments'
  | 'args_required'
  | 'object_not_found'
  | 'forbidden'
  | 'insufficient_scope'
  | 'require_elevated_privilege'
  | 'paid_required'
  | 'feature_unavailable'
  | 'auth_failed'
  | 'too_many_requests'
  | 'invariant_violation'
  | 'internal_error';

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: {
      field?: string;
      rule?: string;
      retry_after_seconds?: number;
      retryAfterSeconds?: number;
      scope?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  toJSON() {
    return { code: this.code, message: this.message, ...this.details };
  }
}

export const invalid = (field: string, rule: string, message?: string) =>
  new ServiceError('invalid_arguments', message ?? `${field}: ${rule}`, { field, rule });

export const notFound = (what: string, id: string) =>
  new ServiceError('object_not_found', `${what} ${JSON.stringify(id)} was not found or is not visible to you`);

export const forbidden = (message: string) => new ServiceError('forbidden', message);

export const elevated = (message: string) => new ServiceError('require_elevated_privilege', message);

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/** Whatever was thrown, a ServiceError safe to show a caller (internal details stay in the logs). */
export function toServiceError(e: unknown): ServiceError {
  if (isServiceError(e)) return e;
  return new ServiceError(
    'internal_error',
    'The service failed to complete this request; it has been logged. Try again.',
  );
}
