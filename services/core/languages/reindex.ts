/**
 * The re-index of meetings whose words are not indexed with their language's configuration: those
 * uploaded with a language before meetings had one (the 20261212000500 migration), indexed as
 * English, and those whose language gained a configuration after they were indexed (a dictionary an
 * operator added, 20261212000700), indexed word for word with `simple`. A step takes the next few of
 * them in id order and writes each one's language (its upload's, or the one it has); the meetings
 * trigger then works out its configuration and indexes its sentences and title again, in the same
 * statement. What is left is always "meetings with an upload language and no meeting language, or
 * whose configuration is not their language's", so a re-index stopped anywhere (killed, failed, a
 * deploy) resumes where it stopped, and a step done twice does nothing the second time.
 */
import type { Knex } from 'knex';
import { DICTIONARY_CONFIGS } from '../../platform/migrations/20261212000700_dictionary_configs';

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
  /** Meetings indexed again in this step. */
  meetings: number;
  /** Their sentences. */
  sentences: number;
  /** Whether none is left. */
  done: boolean;
}

/** The next `batch` meetings waiting for their language (one transaction: all of them or none). */
export async function reindexStep(db: Knex, batch: number): Promise<ReindexStep> {
  if (!Number.isInteger(batch) || batch < 1)
    throw new Error(`batch must be a whole number of meetings, 1 or more; got ${batch}`);
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `with next as (select m.id from meetings m where ${WAITING} order by m.id limit ? for update skip locked),` +
        ' done as (update meetings m set language = coalesce(m.language, m.custom_language),' +
        " language_source = coalesce(m.language_source, 'given') from next where m.id = next.id returning m.id)" +
        ' select count(*)::int as meetings, (select count(*)::int from sentences s where s.meeting_id in (select id from done)) as sentences from done',
      [batch],
    );
    const { meetings, sentences } = rows[0] as { meetings: number; sentences: number };
    return { meetings, sentences, done: meetings < batch };
  });
}

export interface ReindexProgress {
  /** Meetings whose words are indexed with their language's configuration (or have no language). */
  indexed: number;
  /** Meetings waiting for the re-index. */
  remaining: number;
}

export async function reindexProgress(db: Knex): Promise<ReindexProgress> {
  const { rows } = await db.raw(
    'select (select count(*)::int from meetings) as total,' +
      ` (select count(*)::int from meetings m where ${WAITING}) as remaining`,
  );
  const { total, remaining } = rows[0] as { total: number; remaining: number };
  return { indexed: total - remaining, remaining };
}
