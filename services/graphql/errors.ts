/**
 * Errors on the wire: every GraphQL error carries `extensions.code` from the service's codes
 * (services/platform/errors.ts), invalid_arguments/args_required with `field` and `rule`. Apollo's own
 * request errors are translated to the same codes; anything unexpected becomes internal_error with a
 * generic message. Never a stack trace or SQL.
 */
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isServiceError, ServiceError } from '../platform/errors';

/** A ServiceError as a GraphQLError; the HTTP status is set where a client acts on it (401, 429). */
export function toGraphQLError(e: ServiceError): GraphQLError {
  const http =
    e.code === 'auth_failed'
      ? { status: 401, headers: new Map([['www-authenticate', 'Bearer realm="meeting-intelligence"']]) }
      : e.code === 'too_many_requests'
        ? {
            status: 429,
            headers: new Map([
              ['retry-after', String(e.details.retry_after_seconds ?? e.details.retryAfterSeconds ?? 60)],
            ]),
          }
        : undefined;
  return new GraphQLError(e.message, {
    originalError: e,
    extensions: { code: e.code, ...e.details, ...(http ? { http } : {}) },
  });
}

/** Re-throw a core error with its field named as the GraphQL caller wrote it (e.g. `input.title`). */
export function withFieldPrefix(prefix: string, rename: Record<string, string> = {}) {
  return (e: unknown): never => {
    if (isServiceError(e) && e.details.field) {
      const field = rename[e.details.field] ?? e.details.field;
      const named = prefix ? `${prefix}.${field}` : field;
      const message = e.message.startsWith(e.details.field)
        ? named + e.message.slice(e.details.field.length)
        : e.message;
      throw new ServiceError(e.code, message, { ...e.details, field: named });
    }
    throw e;
  };
}

const KNOWN_CODES = new Set([
  'invalid_arguments',
  'args_required',
  'object_not_found',
  'forbidden',
  'insufficient_scope',
  'require_elevated_privilege',
  'paid_required',
  'feature_unavailable',
  'auth_failed',
  'too_many_requests',
  'invariant_violation',
  'internal_error',
]);

/**
 * The field a variable-coercion message names: `Variable "$input" got invalid value 5 at
 * "input.title"; ...` → input.title; `...; Field "url" of required type "String!" was not provided.`
 * → input.url.
 */
function coercionField(message: string): { field: string; missing: boolean } {
  const variable = /Variable "\$([^"]+)"/.exec(message)?.[1] ?? '(variables)';
  const at = /got invalid value .*? at "([^"]+)"/s.exec(message)?.[1];
  const missingField = /Field "([^"]+)" of required type "[^"]+" was not provided/.exec(message)?.[1];
  const missingVariable = /of required type "[^"]+" was not provided/.test(message) && !missingField;
  const base = at ?? variable;
  if (missingField) return { field: `${base}.${missingField}`, missing: true };
  return { field: base, missing: missingVariable };
}

function translate(formatted: GraphQLFormattedError): { code: string; field?: string; rule?: string } {
  const code = String(formatted.extensions?.code ?? '');
  switch (code) {
    case 'BAD_USER_INPUT': {
      const { field, missing } = coercionField(formatted.message);
      return missing
        ? { code: 'args_required', field, rule: 'required' }
        : { code: 'invalid_arguments', field, rule: 'type' };
    }
    case 'GRAPHQL_PARSE_FAILED':
      return { code: 'invalid_arguments', field: 'query', rule: 'GraphQL syntax' };
    case 'GRAPHQL_VALIDATION_FAILED':
      return {
        code: 'invalid_arguments',
        field: 'query',
        rule: /exceeds maximum operation depth/.test(formatted.message) ? 'depth' : 'schema',
      };
    case 'BAD_REQUEST':
    case 'OPERATION_RESOLUTION_FAILURE':
    case 'PERSISTED_QUERY_NOT_SUPPORTED':
    case 'PERSISTED_QUERY_NOT_FOUND':
      return { code: 'invalid_arguments', field: 'query', rule: 'request' };
    default:
      return { code };
  }
}

/** An Apollo or graphql-js code that names no refusal of ours or of Apollo's: the service failed. */
const isInternalCode = (code: string) => !KNOWN_CODES.has(code) && (!code || code === 'INTERNAL_SERVER_ERROR');

/**
 * Whether an error is a failure of the service (logged, answered as internal_error) rather than a
 * refusal of the request: formatError's rule, for the error-logging plugin.
 */
export function isUnexpected(error: unknown): boolean {
  const original = unwrapResolverError(error);
  if (isServiceError(original)) return original.code === 'internal_error';
  return isInternalCode(String((error as { extensions?: { code?: unknown } } | undefined)?.extensions?.code ?? ''));
}

/** Apollo's formatError: the one place an error's outward shape is decided (logging is errorLogPlugin's). */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const base = {
    message: formatted.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
  };
  if (isServiceError(original)) {
    return { ...base, message: original.message, extensions: { code: original.code, ...original.details } };
  }
  const code = String(formatted.extensions?.code ?? '');
  if (KNOWN_CODES.has(code)) {
    const { http: _http, stacktrace: _stack, ...rest } = (formatted.extensions ?? {}) as Record<string, unknown>;
    return { ...base, extensions: rest };
  }
  if (!isInternalCode(code)) {
    const t = translate(formatted);
    return { ...base, extensions: { ...t } };
  }
  return {
    message: 'The service failed to complete this request; it has been logged. Try again.',
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'internal_error' },
  };
}

/** The bounded outcome label of an answer: ok, or the first error's code. */
export function outcomeOf(errors: readonly GraphQLFormattedError[] | undefined): string {
  if (!errors?.length) return 'ok';
  const code = String(errors[0].extensions?.code ?? 'internal_error');
  return KNOWN_CODES.has(code) ? code : 'other_error';
}
