/** Small shared validators whose messages name the field and the rule. */
import { invalid } from './errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

export function requireEmail(field: string, s: string): string {
  const v = s.trim();
  if (!isEmail(v)) throw invalid(field, 'must be an email address like name@example.com', `${field}: ${JSON.stringify(s)} is not an email address`);
  return v.toLowerCase();
}

export function requireLength(field: string, s: string, min: number, max: number): string {
  const n = [...s].length;
  if (n < min || n > max) {
    throw invalid(field, `length ${min} to ${max} characters`, `${field} must be ${min} to ${max} characters long; got ${n}`);
  }
  return s;
}

export function requireOneOf<T extends string>(field: string, v: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(v)) {
    throw invalid(field, `one of ${allowed.join(', ')}`, `${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`);
  }
  return v as T;
}
