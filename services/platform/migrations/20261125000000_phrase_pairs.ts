import type { Knex } from 'knex';

/**
 * Quoted two-word phrases answered from a meeting's word pairs, without reading sentences.
 *
 * meetings.transcript_pairs holds every pair of lexemes said next to each other in one sentence, as
 * one lexeme with a space between the two words ('like know'); the english parser never makes a
 * lexeme with a space, so a pair is never mistaken for a word. "like know" (tsquery 'like' <-> 'know')
 * is then exactly the pair 'like know': one GIN lookup, where the phrase had been rechecked against
 * every sentence holding both words, thousands of heap pages for a phrase of common words. Longer phrases narrow their candidates to the meetings holding all their
 * pairs, then check sentences.
 *
 * A pair is what `<->` means: positions p and p + 1 of one sentence's tsvector (stop words keep their
 * positions, so "like you know" holds no pair 'like know', as it does not match the phrase). Pairs are
 * never formed across sentences.
 *
 * A column of its own rather than more lexemes in transcript_tsv: a word search tests transcript_tsv
 * row by row, and with the pairs in it the value passed the TOAST threshold, which made every row's
 * test a TOAST fetch and a two-word search several times slower (services/core/meetings/README.md).
 *
 * transcript_tsv and transcript_pairs are NULL together (live, or too large to hold), kept so by a
 * trigger on meetings: search then reads the meeting's sentences.
 */

const PAIRS = `
  create function tsvector_pairs(v tsvector) returns setof text
  language sql immutable parallel safe as $$
    select a.lexeme || ' ' || b.lexeme
    from (select u.lexeme, p from unnest(v) u, unnest(u.positions) p) a
    join (select u.lexeme, p from unnest(v) u, unnest(u.positions) p) b on b.p = a.p + 1
  $$`;

/** A set of lexemes as one stripped tsvector, or NULL past the 1 MB tsvector limit. */
const AS_TSVECTOR = `
  create function lexemes_tsvector(lexemes text[]) returns tsvector
  language sql immutable parallel safe as $$
    select case when (select coalesce(sum(octet_length(x)), 0) from unnest(lexemes) x) >= 1000000 then null
                else coalesce(array_to_tsvector(lexemes), ''::tsvector) end
  $$`;

const MEETING_PAIRS = `
  create function meeting_transcript_pairs(meeting text) returns tsvector
  language sql stable as $$
    select lexemes_tsvector(array(select distinct t from sentences s, tsvector_pairs(s.tsv) t where s.meeting_id = meeting))
  $$`;

/**
 * New sentences add their words and pairs to their meeting's sets; NULL sets (live, or too large)
 * stay NULL. A set past the size limit is NULL (lexemes_tsvector), and PAIRS_FOLLOW then makes both NULL.
 */
export const ADD_TERMS = `
  create or replace function sentences_add_transcript_tsv() returns trigger
  language plpgsql as $$
  declare r record;
  begin
    for r in
      select w.meeting_id, w.words, coalesce(p.pairs, '{}') as pairs
      from (select n.meeting_id, array_agg(distinct u.lexeme) as words from new_rows n, unnest(n.tsv) u group by 1) w
      left join (select n.meeting_id, array_agg(distinct t) as pairs from new_rows n, tsvector_pairs(n.tsv) t group by 1) p using (meeting_id)
    loop
      begin
        update meetings set transcript_tsv = transcript_tsv || lexemes_tsvector(r.words),
                            transcript_pairs = transcript_pairs || lexemes_tsvector(r.pairs)
        where id = r.meeting_id and transcript_tsv is not null;
      exception when program_limit_exceeded then
        -- Past the tsvector size limit: search reads this meeting's sentences instead.
        update meetings set transcript_tsv = null where id = r.meeting_id;
      end;
    end loop;
    return null;
  end $$`;

const ADD_WORDS = `
  create or replace function sentences_add_transcript_tsv() returns trigger
  language plpgsql as $$
  declare r record;
  begin
    for r in
      select n.meeting_id, array_agg(distinct u.lexeme) as lexemes
      from new_rows n, unnest(n.tsv) u group by n.meeting_id
    loop
      begin
        if (select sum(octet_length(x)) from unnest(r.lexemes) x) >= 1000000 then
          raise exception using errcode = 'program_limit_exceeded';
        end if;
        update meetings set transcript_tsv = transcript_tsv || array_to_tsvector(r.lexemes)
        where id = r.meeting_id and transcript_tsv is not null;
      exception when program_limit_exceeded then
        update meetings set transcript_tsv = null where id = r.meeting_id;
      end;
    end loop;
    return null;
  end $$`;

/** Both sets from what is said now (a rebuild that fits lifts a NULL). */
export const REBUILD_SQL =
  'update meetings m set transcript_tsv = meeting_transcript_tsv(m.id), transcript_pairs = meeting_transcript_pairs(m.id)';

/** Updates and deletes rebuild the sets of the meetings they touched with `update` (`where m.id = any(ids)` follows). */
export const rebuildFunction = (update: string) => `
  create or replace function sentences_rebuild_transcript_tsv() returns trigger
  language plpgsql as $$
  declare ids text[];
  begin
    if tg_op = 'UPDATE' then
      select array_agg(distinct x) into ids from (select meeting_id from old_rows union select meeting_id from new_rows) a(x);
    else
      select array_agg(distinct meeting_id) into ids from old_rows;
    end if;
    ${update} where m.id = any(ids);
    return null;
  end $$`;

/**
 * The two sets are NULL together, whoever writes them (a live meeting is inserted with a NULL lexeme
 * set; a set past the size limit is NULL): a NOT over a pair test must then be unknown, not true, and
 * a word test must not pass where the pairs are missing, so that search reads the meeting's sentences.
 */
const PAIRS_FOLLOW = `
  create function meetings_pairs_follow_tsv() returns trigger
  language plpgsql as $$
  begin
    if new.transcript_tsv is null or new.transcript_pairs is null then
      new.transcript_tsv := null;
      new.transcript_pairs := null;
    end if;
    return new;
  end $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table meetings add column transcript_pairs tsvector default ''::tsvector");
  await knex.raw(PAIRS);
  await knex.raw(AS_TSVECTOR);
  await knex.raw(MEETING_PAIRS);
  await knex.raw(PAIRS_FOLLOW);
  await knex.raw(`
    create trigger meetings_pairs_follow_tsv before insert or update of transcript_tsv, transcript_pairs on meetings
    for each row execute function meetings_pairs_follow_tsv()`);
  await knex.raw(ADD_TERMS);
  await knex.raw(rebuildFunction(REBUILD_SQL));
  // Meetings that have sets now; live ones (NULL until they end and are rebuilt) get NULL pairs.
  await knex.raw(`${REBUILD_SQL} where m.transcript_tsv is not null`);
  await knex.raw('update meetings set transcript_pairs = null where transcript_tsv is null');
  await knex.raw('create index meetings_transcript_pairs_idx on meetings using gin (transcript_pairs)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists meetings_transcript_pairs_idx');
  await knex.raw('drop trigger if exists meetings_pairs_follow_tsv on meetings');
  await knex.raw('drop function if exists meetings_pairs_follow_tsv()');
  await knex.raw(ADD_WORDS);
  await knex.raw(rebuildFunction('update meetings m set transcript_tsv = meeting_transcript_tsv(m.id)'));
  await knex.raw('drop function if exists meeting_transcript_pairs(text)');
  await knex.raw('drop function if exists lexemes_tsvector(text[])');
  await knex.raw('drop function if exists tsvector_pairs(tsvector)');
  await knex.raw('alter table meetings drop column if exists transcript_pairs');
}
