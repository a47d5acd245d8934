/** What was done and read, for a team's records: the audit log of changes and the read audit. */
export { audit, noteDeletion } from './log';
export {
  READ_AUDIT_LIMIT,
  flushReads,
  listReads,
  listTeamReads,
  pruneReads,
  readContext,
  readingAs,
  recordRead,
  recordReads,
  startReadAudit,
  type ReadAuditFilter,
  type ReadAuditPage,
  type ReadAuditRecord,
  type ReadAuditSettings,
  type ReadEvent,
} from './reads';
