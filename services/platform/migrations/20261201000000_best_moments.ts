import type { Knex } from 'knex';
import { ADD_TERMS, REBUILD_SQL, rebuildFunction } from './20261125000000_phrase_pairs';

/**
 * Each meeting's best sentences for each word said in it, so the moments of a one-word search are
 * read by key instead of searched for.
 *
 * best_moments.by_word maps a lexeme to the indexes of the meeting's sentences holding it, best first,
 * at most BEST_MOMENTS_DEPTH (moments' largest per-meeting number). "Best" is the moments statement's
 * order for a one-lexeme query: ts_rank descending, then the earlier sentence. For one lexeme,
 * ts_rank is (weight / 1.64) × Σ 1/k² over its k positions in the sentence, and every position of a
 * sentence's tsvector has weight D, so the rank grows with the number of positions alone: ordering by
 * that number, then by index, is the same order, exactly (services/core/meetings/moments.ts tests it
 * against the search).
 *
 * Without it, a keyword list's moments read and test every sentence of the page's meetings, a large
 * part of a keyword call's database time. With it, the statement reads only the moments it answers,
 * by their key (figures: services/core/meetings/README.md, "Moments"). Keywords of several words or a
 * phrase still search: ranks over several lexemes are not ordered by any one of them.
 *
 * The sets are kept like the meeting's lexeme sets (transcript_tsv), by the same statement triggers on
 * sentences, rebuilt whole for the meetings a statement touched, and held only where those are: a live meeting
 * (sentences arriving one by one) or one too large for its lexeme sets has no row, and its moments
 * are searched as before. Its size is a few KB a meeting.
 */

/** Moments a list can ask for per meeting (MOMENTS_MAX); a larger number searches. */
const BEST_MOMENTS_DEPTH = 10;

const BEST_OF_MEETING = `
  create function meeting_best_moments(meeting text) returns jsonb
  language sql stable as $$
    select coalesce(jsonb_object_agg(w.lexeme, w.idxs), '{}'::jsonb)
    from (
      select o.lexeme, (array_agg(o.idx order by o.times desc, o.idx))[1:${BEST_MOMENTS_DEPTH}] as idxs
      from (select s.idx, u.lexeme, cardinality(u.positions) as times from sentences s, unnest(s.tsv) u where s.meeting_id = meeting) o
      group by o.lexeme
    ) w
  $$`;

/** The rows of these meetings from what is said now: written where the meeting has lexeme sets, removed where not. */
const REFRESH = `
  create function refresh_best_moments(ids text[]) returns void
  language sql as $$
    delete from best_moments b using meetings m
    where b.meeting_id = m.id and m.id = any(ids) and m.transcript_tsv is null;
    insert into best_moments (meeting_id, by_word)
    select m.id, meeting_best_moments(m.id) from meetings m where m.id = any(ids) and m.transcript_tsv is not null
    on conflict (meeting_id) do update set by_word = excluded.by_word;
  $$`;

/** After the lexeme sets (which decide whether the meeting has a row), the moments of the meetings the insert touched. */
const ADD_TERMS_AND_MOMENTS = ADD_TERMS.replace(
  '    end loop;\n    return null;',
  '    end loop;\n    perform refresh_best_moments(array(select distinct n.meeting_id from new_rows n));\n    return null;',
);
/** After the rebuild of the touched meetings' lexeme sets, their moments. */
export const REBUILD_WITH_MOMENTS = rebuildFunction(REBUILD_SQL).replace(
  'where m.id = any(ids);',
  'where m.id = any(ids);\n    perform refresh_best_moments(ids);',
);

/**
 * Whether the server can compress with lz4 (built --with-lz4, as Debian's and the official images
 * are). A meeting's lists are read whole, out of line, for each page: lz4 unpacks them faster than
 * pglz, which outweighs its larger values.
 */
async function lz4(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(
    "select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'",
  );
  return rows[0]?.ok === true;
}

export async function up(knex: Knex): Promise<void> {
  if (ADD_TERMS_AND_MOMENTS === ADD_TERMS || REBUILD_WITH_MOMENTS === rebuildFunction(REBUILD_SQL)) {
    throw new Error('best_moments: a sentences trigger function changed shape');
  }
  await knex.raw(`
    create table best_moments (
      meeting_id text primary key references meetings (id) on delete cascade,
      by_word jsonb not null
    )`);
  if (await lz4(knex)) await knex.raw('alter table best_moments alter column by_word set compression lz4');
  await knex.raw(BEST_OF_MEETING);
  await knex.raw(REFRESH);
  await knex.raw(ADD_TERMS_AND_MOMENTS);
  await knex.raw(REBUILD_WITH_MOMENTS);
  await knex.raw(
    'insert into best_moments (meeting_id, by_word) select m.id, meeting_best_moments(m.id) from meetings m where m.transcript_tsv is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(ADD_TERMS);
  await knex.raw(rebuildFunction(REBUILD_SQL));
  await knex.raw('drop function if exists refresh_best_moments(text[])');
  await knex.raw('drop function if exists meeting_best_moments(text)');
  await knex.raw('drop table if exists best_moments');
}
