/**
 * Migrations are listed here rather than discovered from the file system, so they run the same way
 * from TypeScript sources (tests, `make dev`) and from the compiled image. Append new ones in order;
 * names are timestamped and never change once released.
 */
import type { Knex } from 'knex';
import * as initialSchema from './20261121000000_initial_schema';
import * as searchIndexes from './20261121000100_search_indexes';
import * as oauth from './20261121000200_oauth';
import * as rulesDryRun from './20261121000500_rules_dry_run';
import * as webhookLedger from './20261122000500_webhook_ledger';
import * as liveSentenceChunks from './20261122001000_live_sentence_chunks';
import * as liveAppendFunction from './20261124000000_live_append_function';
import * as phrasePairs from './20261125000000_phrase_pairs';
import * as webSessions from './20261126000000_web_sessions';
import * as accessGovernance from './20261126000100_access_governance';
import * as retentionReadAudit from './20261126000200_retention_read_audit';
import * as transcriptChunks from './20261127000000_transcript_chunks';
import * as noJit from './20261127000500_no_jit';
import * as readAuditBrin from './20261128000000_read_audit_brin';
import * as readAuditKeys from './20261129000000_read_audit_keys';
import * as readAuditNoForeignKey from './20261130000000_read_audit_no_foreign_key';
import * as bestMoments from './20261201000000_best_moments';
import * as actionItems from './20261202000000_action_items';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATIONS: [string, Migration][] = [
  ['20261121000000_initial_schema', initialSchema],
  ['20261121000100_search_indexes', searchIndexes],
  ['20261121000200_oauth', oauth],
  ['20261121000500_rules_dry_run', rulesDryRun],
  ['20261122000500_webhook_ledger', webhookLedger],
  ['20261122001000_live_sentence_chunks', liveSentenceChunks],
  ['20261124000000_live_append_function', liveAppendFunction],
  ['20261125000000_phrase_pairs', phrasePairs],
  ['20261126000000_web_sessions', webSessions],
  ['20261126000100_access_governance', accessGovernance],
  ['20261126000200_retention_read_audit', retentionReadAudit],
  ['20261127000000_transcript_chunks', transcriptChunks],
  ['20261127000500_no_jit', noJit],
  ['20261128000000_read_audit_brin', readAuditBrin],
  ['20261129000000_read_audit_keys', readAuditKeys],
  ['20261130000000_read_audit_no_foreign_key', readAuditNoForeignKey],
  ['20261201000000_best_moments', bestMoments],
  ['20261202000000_action_items', actionItems],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
