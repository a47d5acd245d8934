/** Small shared validators whose messages name the field and the rule. */
import { invalid, ServiceError } from '../../platform/errors';

/** Any control character, tab and line breaks included: for one-line values (names, ids, tokens, references). */
export const hasControl = (s: string): boolean => /[\u0000-\u001f\u007f]/.test(s);

/** Control characters other than tab and line breaks: for running text (a sentence, a note). */
export const hasControlInText = (s: string): boolean => /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);

/** A required argument that is missing: `<field> is required: <what it should be>`. */
export const required = (field: string, what: string): ServiceError =>
  new ServiceError('args_required', `${field} is required: ${what}`, { field, rule: 'required' });

/** An optional string argument: null when absent, refused when it is not a string. */
export function optionalString(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalid(field, 'must be a string', `${field} must be a string`);
  return v;
}

/** The longest URL the service takes (recordings, webhooks, meeting links), in characters. */
export const URL_MAX = 2048;

/** A URL argument, trimmed: at most URL_MAX characters and a URL at all; `rule` says what it must be. */
export function parseUrl(field: string, raw: string, rule: string, example: string): URL {
  const s = raw.trim();
  if ([...s].length > URL_MAX)
    throw invalid(field, `at most ${URL_MAX} characters`, `${field} must be at most ${URL_MAX} characters long`);
  try {
    return new URL(s);
  } catch {
    throw invalid(field, rule, `${field} ${rule} like ${example}; ${JSON.stringify(s.slice(0, 80))} is not a URL`);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

export function requireEmail(field: string, s: string): string {
  const v = s.trim();
  if (!isEmail(v))
    throw invalid(
      field,
      'must be an email address like name@example.com',
      `${field}: ${JSON.stringify(s)} is not an email address`,
    );
  return v.toLowerCase();
}

export function requireLength(field: string, s: string, min: number, max: number): string {
  const n = [...s].length;
  if (n < min || n > max) {
    throw invalid(
      field,
      `length ${min} to ${max} characters`,
      `${field} must be ${min} to ${max} characters long; got ${n}`,
    );
  }
  return s;
}

export function requireOneOf<T extends string>(field: string, v: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(v)) {
    throw invalid(
      field,
      `one of ${allowed.join(', ')}`,
      `${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`,
    );
  }
  return v as T;
}

/**
 * Text PostgreSQL can store and a person can read: no NUL character and no lone UTF-16 surrogate
 * (half of a character, which has no UTF-8 form). Every string argument of every MCP tool and GraphQL
 * operation passes this at the transport's argument validation, so such input is refused naming its
 * field instead of failing in the database.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

export function requireStorableText(field: string, s: string): string {
  if (!isStorableText(s)) {
    throw invalid(
      field,
      'text without NUL characters or lone surrogates',
      `${field} must be text without NUL characters (\\u0000) or unpaired UTF-16 surrogates`,
    );
  }
  return s;
}
