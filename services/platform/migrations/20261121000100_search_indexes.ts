import type { Knex } from 'knex';

/**
 * What keyword search over meetings needs to stay fast with millions of sentences.
 *
 * meetings.transcript_tsv holds the distinct lexemes of everything said in a meeting, stripped of
 * positions (so the 16,383-position limit of a tsvector never applies). A word search asks its GIN
 * index which meetings mention a word (one posting entry per meeting, where sentences.tsv has one per
 * sentence: hundreds of thousands of heap rows for a common word), or, for a very common word, walks
 * the team's meetings newest first and tests each row's own lexemes. Quoted phrases still need
 * positions and are checked against sentences.tsv, within the candidate meetings.
 *
 * It is a column of meetings rather than a table of its own because that per-row test is what makes
 * common words cheap: from a separate table the planner hashes every meeting's lexemes instead, an
 * order of magnitude slower for a word said in every meeting (services/core/meetings/README.md).
 *
 * Triggers on sentences keep it current whoever writes sentences (upload pipeline, live ingest): an
 * insert adds the new lexemes; an update or delete rebuilds it from the meeting's sentences.
 * NULL means "too many to hold" (their strings would pass the 1 MB tsvector limit): it stays so until
 * a rebuild fits, and search reads that meeting's sentences instead.
 *
 * Also: (team_id, date desc, id desc) serves newest-first pages of a team straight from the index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table meetings add column transcript_tsv tsvector default ''::tsvector");

  // A meeting's lexemes as one stripped tsvector, or NULL past the size limit. array_to_tsvector does
  // not check the limit itself, so the lexeme bytes are summed first.
  await knex.raw(`
    create function meeting_transcript_tsv(meeting text) returns tsvector
    language sql stable as $$
      select case when coalesce(sum(octet_length(l.lexeme)), 0) >= 1000000 then null
                  else coalesce(array_to_tsvector(array_agg(l.lexeme)), ''::tsvector) end
      from (select distinct u.lexeme from sentences s, unnest(s.tsv) u where s.meeting_id = meeting) l
    $$`);

  await knex.raw(`
    create function sentences_add_transcript_tsv() returns trigger
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
          -- Past the tsvector size limit: search reads this meeting's sentences instead.
          update meetings set transcript_tsv = null where id = r.meeting_id;
        end;
      end loop;
      return null;
    end $$`);

  // Updates and deletes rebuild from what is left (a rebuild that fits lifts the NULL).
  await knex.raw(`
    create function sentences_rebuild_transcript_tsv() returns trigger
    language plpgsql as $$
    declare ids text[];
    begin
      if tg_op = 'UPDATE' then
        select array_agg(distinct x) into ids from (select meeting_id from old_rows union select meeting_id from new_rows) a(x);
      else
        select array_agg(distinct meeting_id) into ids from old_rows;
      end if;
      update meetings m set transcript_tsv = meeting_transcript_tsv(m.id) where m.id = any(ids);
      return null;
    end $$`);

  await knex.raw(`
    create trigger sentences_transcript_tsv_insert after insert on sentences
    referencing new table as new_rows for each statement execute function sentences_add_transcript_tsv()`);
  await knex.raw(`
    create trigger sentences_transcript_tsv_update after update on sentences
    referencing old table as old_rows new table as new_rows for each statement execute function sentences_rebuild_transcript_tsv()`);
  await knex.raw(`
    create trigger sentences_transcript_tsv_delete after delete on sentences
    referencing old table as old_rows for each statement execute function sentences_rebuild_transcript_tsv()`);

  // Meetings that already have sentences.
  await knex.raw(
    'update meetings m set transcript_tsv = meeting_transcript_tsv(m.id) where exists (select 1 from sentences s where s.meeting_id = m.id)',
  );

  await knex.raw('create index meetings_transcript_tsv_idx on meetings using gin (transcript_tsv)');
  await knex.raw('create index meetings_transcript_tsv_missing_idx on meetings (id) where transcript_tsv is null');
  await knex.raw('create index meetings_team_date_id_idx on meetings (team_id, date desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists meetings_team_date_id_idx');
  await knex.raw('drop index if exists meetings_transcript_tsv_missing_idx');
  await knex.raw('drop index if exists meetings_transcript_tsv_idx');
  await knex.raw('drop trigger if exists sentences_transcript_tsv_delete on sentences');
  await knex.raw('drop trigger if exists sentences_transcript_tsv_update on sentences');
  await knex.raw('drop trigger if exists sentences_transcript_tsv_insert on sentences');
  await knex.raw('drop function if exists sentences_rebuild_transcript_tsv()');
  await knex.raw('drop function if exists sentences_add_transcript_tsv()');
  await knex.raw('drop function if exists meeting_transcript_tsv(text)');
  await knex.raw('alter table meetings drop column if exists transcript_tsv');
}
