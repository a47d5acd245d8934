/**
 * Changes: the change log of a team's meetings (written by triggers, migration
 * 20261205000100_meeting_changes) read as pages after a cursor, and its pruning. README.md: the design.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A page of changes after a cursor (svc_get_changes, GraphQL changes).
export { CHANGE_KINDS, CHANGES_LIMIT_DEFAULT, CHANGES_LIMIT_MAX, CHANGES_TOKENS, getChanges } from './feed';
export type { ChangeKind, ChangeRecord, ChangesPage, RemovedReason } from './feed';
export { CURSOR_MAX } from './cursor';

// The daily retention run's batches of the change log.
export { pruneChanges } from './prune';
