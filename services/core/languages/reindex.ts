/**
 * The re-index of meetings uploaded with a language before meetings had one (the 20261212000500
 * migration): their words were indexed as English. A step takes the next few of them in id order and
 * gives each its upload's language; the meetings trigger then indexes its sentences and title again
 * with that language's configuration, in the same statement. What is left is always "meetings with
 * an upload language and no meeting language", so a re-index stopped anywhere (killed, failed, a
 * deploy) resumes where it stopped, and a step done twice does nothing the second time.
 */
import type { Knex } from 'knex';

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
      'with next as (select m.id from meetings m where m.language is null and m.custom_language is not null' +
        ' order by m.id limit ? for update skip locked),' +
        " done as (update meetings m set language = m.custom_language, language_source = 'given' from next where m.id = next.id returning m.id)" +
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
      ' (select count(*)::int from meetings where language is null and custom_language is not null) as remaining',
  );
  const { total, remaining } = rows[0] as { total: number; remaining: number };
  return { indexed: total - remaining, remaining };
}
