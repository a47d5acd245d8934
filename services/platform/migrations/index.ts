/**
 * Migrations are listed here rather than discovered from the file system, so they run the same way
 * from TypeScript sources (tests, `make dev`) and from the compiled image. Append new ones in order;
 * names are timestamped and never change once released.
 *
 * Each entry declares the release it ships in and `runsWith`: the oldest release whose code runs on
 * the schema once it is applied. An expand migration (it only adds: a table, a nullable column, an
 * index, a function old code does not call) names the release before its own, so a rollback of the
 * image keeps working; a contract migration (it removes or changes what an older release reads or
 * writes) names its own release and ships a release after the code stopped using what it removes.
 * A migration that cannot be undone sets `irreversible` to the reason instead of having `down`.
 * The schema guard (../schema.ts) reads these declarations; `migrate up` stores them with the
 * applied migration, so an older release can judge a schema newer than itself.
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
import * as schemaReleases from './20261202000000_schema_releases';
import * as actionItems from './20261202000100_action_items';
import * as voiceprints from './20261203000000_voiceprints';
import * as voiceprintNames from './20261204000000_voiceprint_names';
import * as rateLimits from './20261205000000_rate_limits';
import * as meetingChanges from './20261205000100_meeting_changes';
import * as meetingEmbeddings from './20261205000200_meeting_embeddings';
import * as summaryOverviewLines from './20261212000100_summary_overview_lines';
import * as summaryRuns from './20261212000200_summary_runs';
import * as webhookEvents from './20261212000300_webhook_events';
import * as detectedLanguage from './20261212000400_detected_language';
import * as meetingLanguages from './20261212000500_meeting_languages';
import * as dictionaryConfigs from './20261212000700_dictionary_configs';
import * as sentenceSetsByStatement from './20261213000100_sentence_sets_by_statement';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

export interface MigrationEntry {
  name: string;
  migration: Migration;
  /** The release this migration first ships in. */
  release: string;
  /** The oldest release whose code runs on the schema with this migration applied. */
  runsWith: string;
  /** Why it cannot be undone; set instead of `down`. */
  irreversible?: string;
}

/** Every migration of 0.1.0 shipped with it, and 0.1.0 is the first release. */
const first = (name: string, migration: Migration): MigrationEntry => ({
  name,
  migration,
  release: '0.1.0',
  runsWith: '0.1.0',
});

export const MIGRATIONS: MigrationEntry[] = [
  first('20261121000000_initial_schema', initialSchema),
  first('20261121000100_search_indexes', searchIndexes),
  first('20261121000200_oauth', oauth),
  first('20261121000500_rules_dry_run', rulesDryRun),
  first('20261122000500_webhook_ledger', webhookLedger),
  first('20261122001000_live_sentence_chunks', liveSentenceChunks),
  first('20261124000000_live_append_function', liveAppendFunction),
  first('20261125000000_phrase_pairs', phrasePairs),
  first('20261126000000_web_sessions', webSessions),
  first('20261126000100_access_governance', accessGovernance),
  first('20261126000200_retention_read_audit', retentionReadAudit),
  first('20261127000000_transcript_chunks', transcriptChunks),
  first('20261127000500_no_jit', noJit),
  first('20261128000000_read_audit_brin', readAuditBrin),
  first('20261129000000_read_audit_keys', readAuditKeys),
  first('20261130000000_read_audit_no_foreign_key', readAuditNoForeignKey),
  first('20261201000000_best_moments', bestMoments),
  { name: '20261202000000_schema_releases', migration: schemaReleases, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261202000100_action_items', migration: actionItems, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261203000000_voiceprints', migration: voiceprints, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261204000000_voiceprint_names', migration: voiceprintNames, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261205000000_rate_limits', migration: rateLimits, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261205000100_meeting_changes', migration: meetingChanges, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261205000200_meeting_embeddings', migration: meetingEmbeddings, release: '0.2.0', runsWith: '0.1.0' },
  {
    name: '20261212000100_summary_overview_lines',
    migration: summaryOverviewLines,
    release: '0.2.0',
    runsWith: '0.1.0',
  },
  { name: '20261212000200_summary_runs', migration: summaryRuns, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261212000300_webhook_events', migration: webhookEvents, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261212000400_detected_language', migration: detectedLanguage, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261212000500_meeting_languages', migration: meetingLanguages, release: '0.2.0', runsWith: '0.1.0' },
  { name: '20261212000700_dictionary_configs', migration: dictionaryConfigs, release: '0.2.0', runsWith: '0.1.0' },
  {
    name: '20261213000100_sentence_sets_by_statement',
    migration: sentenceSetsByStatement,
    release: '0.2.0',
    runsWith: '0.1.0',
  },
];

/** knex's migration source over a catalog: this release's, or a test's. */
export function migrationSourceOf(catalog: MigrationEntry[]): Knex.MigrationSource<MigrationEntry> {
  return {
    getMigrations: async () => catalog,
    getMigrationName: (entry) => entry.name,
    // knex insists on a down; `migrate down` refuses an irreversible migration before knex is asked.
    getMigration: async ({ name, migration, irreversible }) => ({
      up: migration.up,
      down:
        migration.down ??
        (async () => {
          throw new Error(`migration ${name} cannot be undone: ${irreversible ?? 'it has no down'}`);
        }),
    }),
  };
}

export const migrationSource = migrationSourceOf(MIGRATIONS);
