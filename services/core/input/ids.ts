import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/** Time-ordered, URL-safe ids (ULID) for every row the service creates. */
export function newId(): string {
  return next();
}
