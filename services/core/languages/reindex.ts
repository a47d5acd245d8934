/**
 * The re-index of meetings whose words are not indexed with their language's configuration: those
 * uploaded with a language before meetings had one (the 20261212000500 migration), indexed as
 * English, and those whose language gained a configuration after they were indexed (a dictionary an
 * operator added, 20261212000700), indexed word for word with `simple`. A step takes the next few of
 * them in id order, indexes their sentences and titles with their language's configuration and
 * writes each one's language (its upload's, or the one it has), in one transaction. What is left is
 * always "meetings with an upload language and no meeting language, or whose configuration is not
 * their language's", so a re-index stopped anywhere (killed, failed, a deploy) resumes where it
 * stopped, and a step done twice does nothing the second time. LanguageReindexWorkflow
 * (workflows/languages.ts) runs the steps; `meeting-intel search reindex --direct` runs them in the CLI.
 */
import type { Knex } from 'knex';
import { DICTIONARY_CONFIGS } from '../../platform/migrations/20261212000700_dictionary_configs';
import { SETS_BY_STATEMENT } from '../../platform/migrations/20261213000100_sentence_sets_by_statement';

/** Meetings waiting for the re-index (m is the meetings row). */
const WAITING =
  '((m.language is null and m.custom_language is not null)' +
  ' or (m.language is not null and m.search_config <> text_search_config(m.language)))';

/**
 * Create the configuration of each language with a dictionary whose files the server now has (one
 * the migration could not create: the files were added later). Returns the ones still missing; their
 * meetings stay on `simple`.
 */
export async function installDictionaries(db: Knex): Promise<string[]> {
  const missing: string[] = [];
  for (const config of new Set(Object.values(DICTIONARY_CONFIGS))) {
    const { rows } = await db.raw('select install_text_search_dictionary(?) as ok', [config]);
    if (!rows[0].ok) missing.push(config);
  }
  return missing;
}

export interface ReindexStep {
  /** Meetings given their language's index in this step (their configuration changed or not). */
  meetings: number;
  /** Sentences indexed again: those of the step's meetings whose configuration changed. */
  sentences: number;
  /** The last meeting id the step took ('' when it took none): the next step starts after it. */
  lastId: string;
  /** Whether none is left after lastId. */
  done: boolean;
}

/** Memory a step's sorts, hashes and index cleanup may use (test/bench/README.md, "languages"). */
const STEP_WORK_MEM = '64MB';
/**
 * The full-text index's pending list a step may fill before its own statement merges it: room for a
 * whole batch, so the step adds its entries to the list and then merges them in one sorted pass
 * (gin_clean_pending_list) instead of row by row at every 4 MB, and uploads never find a list a
 * batch long to merge for it.
 */
const STEP_PENDING_LIST = '64MB';

/** A meeting the step took: its configuration now and the one its language asks for. */
interface Taken {
  id: string;
  was: string;
  config: string;
}

/**
 * The next `batch` meetings waiting for their language after `afterId`, in one transaction (all of
 * them or none), set-based: one statement for all their sentences, and one for all the meetings.
 *
 * The configuration is written first, on its own, where no trigger looks; the sentences of the
 * meetings whose configuration changed are indexed with it; then the language is written as it is
 * (or from the upload), and the meetings trigger finds the configuration already right and indexes
 * only the title, instead of every sentence a second time. The meetings' lexeme sets and best
 * moments are rebuilt in that same statement, with the functions the sentence trigger uses, which
 * leaves them to it (SETS_BY_STATEMENT): each meeting's row gets one new version, and its words go
 * into the full-text indexes once, not once for the sets and again for the language. Meetings whose
 * configuration does not change (an English upload, a language still without its dictionary) keep
 * their sentences and sets untouched. Meetings another transaction holds are skipped (SKIP LOCKED):
 * a later pass takes them.
 */
export async function reindexStep(db: Knex, batch: number, afterId = ''): Promise<ReindexStep> {
  if (!Number.isInteger(batch) || batch < 1)
    throw new Error(`batch must be a whole number of meetings, 1 or more; got ${batch}`);
  const step = await db.transaction(async (trx): Promise<ReindexStep> => {
    // The sentence triggers' transition tables and the full-text index's pending list fit in memory.
    await trx.raw(`set local work_mem = '${STEP_WORK_MEM}'`);
    await trx.raw(`set local gin_pending_list_limit = '${STEP_PENDING_LIST}'`);
    const taken: Taken[] = (
      await trx.raw(
        'select m.id, m.search_config as was, text_search_config(coalesce(m.language, m.custom_language)) as config' +
          ` from meetings m where m.id > ? and ${WAITING} order by m.id limit ? for update skip locked`,
        [afterId, batch],
      )
    ).rows;
    if (!taken.length) return { meetings: 0, sentences: 0, lastId: afterId, done: true };
    const moved = taken.filter((m) => m.config !== m.was);
    let sentences = 0;
    /** Meetings whose sentences were indexed again: their sets and moments are rebuilt below. */
    let rebuilt: string[] = [];
    if (moved.length) {
      await trx.raw(
        'update meetings m set search_config = c.config from unnest(?::text[], ?::text[]) as c(id, config) where m.id = c.id',
        [moved.map((m) => m.id), moved.map((m) => m.config)],
      );
      await trx.raw(`set local ${SETS_BY_STATEMENT} = on`);
      const r = await trx.raw(
        'with u as (update sentences s set tsv = to_tsvector(m.search_config::regconfig, s.text) from meetings m' +
          ' where m.id = any(?::text[]) and s.meeting_id = m.id returning s.meeting_id)' +
          ' select count(*)::int as n, array(select distinct meeting_id from u) as ids from u',
        [moved.map((m) => m.id)],
      );
      await trx.raw(`set local ${SETS_BY_STATEMENT} = off`);
      sentences = r.rows[0].n;
      rebuilt = r.rows[0].ids;
    }
    await trx.raw(
      "update meetings m set language = coalesce(m.language, m.custom_language), language_source = coalesce(m.language_source, 'given')," +
        ' transcript_tsv = case when m.id = any(?::text[]) then meeting_transcript_tsv(m.id) else m.transcript_tsv end,' +
        ' transcript_pairs = case when m.id = any(?::text[]) then meeting_transcript_pairs(m.id) else m.transcript_pairs end' +
        ' where m.id = any(?::text[])',
      [rebuilt, rebuilt, taken.map((m) => m.id)],
    );
    if (rebuilt.length) await trx.raw('select refresh_best_moments(?::text[])', [rebuilt]);
    return { meetings: taken.length, sentences, lastId: taken[taken.length - 1].id, done: taken.length < batch };
  });
  if (step.sentences) await mergePendingList(db);
  return step;
}

/** The batch's entries merged into the full-text index (a role that does not own the index leaves them to autovacuum). */
async function mergePendingList(db: Knex): Promise<void> {
  try {
    await db.transaction(async (trx) => {
      await trx.raw(`set local work_mem = '${STEP_WORK_MEM}'`);
      await trx.raw("select gin_clean_pending_list('sentences_tsv_idx')");
    });
  } catch (e) {
    if ((e as { code?: string }).code !== '42501') throw e;
  }
}

export interface ReindexProgress {
  /** Meetings whose words are indexed with their language's configuration (or have no language). */
  indexed: number;
  /** Meetings waiting for the re-index. */
  remaining: number;
}

/** Whether any meeting waits (stops at the first one found). */
export async function reindexWaiting(db: Knex): Promise<boolean> {
  const { rows } = await db.raw(`select exists (select 1 from meetings m where ${WAITING}) as waiting`);
  return rows[0].waiting === true;
}

export async function reindexProgress(db: Knex): Promise<ReindexProgress> {
  const { rows } = await db.raw(
    'select (select count(*)::int from meetings) as total,' +
      ` (select count(*)::int from meetings m where ${WAITING}) as remaining`,
  );
  const { total, remaining } = rows[0] as { total: number; remaining: number };
  return { indexed: total - remaining, remaining };
}
