import type { Knex } from 'knex';

/**
 * What keyword search over meetings needs to stay fast with millions of sentences.
 *
 * meeting_lexemes holds, per meeting, the distinct lexemes of everything said in it, stripped of
 * positions (so the 16,383-position limit of a tsvector never applies). A word search asks its GIN
 * index which meetings mention a word: one posting entry per meeting, where sentences.tsv has one per
 * sentence (hundreds of thousands of heap rows for a common word). Quoted phrases still need
 * positions and are checked against sentences.tsv, within the candidate meetings.
 *
 * It is a table of its own rather than a column of meetings, so reads of meetings never carry it and
 * live ingestion never rewrites meeting rows.
 *
 * Triggers on sentences keep it current whoever writes sentences (upload pipeline, live ingest): an
 * insert adds the new lexemes; an update or delete rebuilds the meeting's row from its sentences.
 * lexemes NULL means "too many to hold" (their strings would pass the 1 MB tsvector limit): it stays
 * so until a rebuild fits, and search reads that meeting's sentences instead. No row: nothing said.
 *
 * Also: (team_id, date desc, id desc) serves newest-first pages of a team straight from the index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('meeting_lexemes', (t) => {
    t.text('meeting_id').primary().references('meetings.id').onDelete('CASCADE');
    t.specificType('lexemes', 'tsvector');
  });

  // A meeting's lexemes as one stripped tsvector, or NULL past the size limit. array_to_tsvector does
  // not check the limit itself, so the lexeme bytes are summed first.
  await knex.raw(`
    create function meeting_lexemes_of(meeting text) returns tsvector
    language sql stable as $$
      select case when coalesce(sum(octet_length(l.lexeme)), 0) >= 1000000 then null
                  else coalesce(array_to_tsvector(array_agg(l.lexeme)), ''::tsvector) end
      from (select distinct u.lexeme from sentences s, unnest(s.tsv) u where s.meeting_id = meeting) l
    $$`);

  await knex.raw(`
    create function sentences_add_lexemes() returns trigger
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
          insert into meeting_lexemes as ml (meeting_id, lexemes) values (r.meeting_id, array_to_tsvector(r.lexemes))
          on conflict (meeting_id) do update set lexemes = ml.lexemes || excluded.lexemes where ml.lexemes is not null;
        exception when program_limit_exceeded then
          -- Past the tsvector size limit: search reads this meeting's sentences instead.
          insert into meeting_lexemes as ml (meeting_id, lexemes) values (r.meeting_id, null)
          on conflict (meeting_id) do update set lexemes = null;
        end;
      end loop;
      return null;
    end $$`);

  // Updates and deletes rebuild from what is left (a rebuild that fits lifts the NULL). Meetings
  // deleted in the same statement (a cascade) are skipped; their row goes with them.
  await knex.raw(`
    create function sentences_rebuild_lexemes() returns trigger
    language plpgsql as $$
    declare ids text[];
    begin
      if tg_op = 'UPDATE' then
        select array_agg(distinct x) into ids from (select meeting_id from old_rows union select meeting_id from new_rows) a(x);
      else
        select array_agg(distinct meeting_id) into ids from old_rows;
      end if;
      insert into meeting_lexemes as ml (meeting_id, lexemes)
      select m.id, meeting_lexemes_of(m.id) from meetings m where m.id = any(ids)
      on conflict (meeting_id) do update set lexemes = excluded.lexemes;
      return null;
    end $$`);

  await knex.raw(`
    create trigger sentences_lexemes_insert after insert on sentences
    referencing new table as new_rows for each statement execute function sentences_add_lexemes()`);
  await knex.raw(`
    create trigger sentences_lexemes_update after update on sentences
    referencing old table as old_rows new table as new_rows for each statement execute function sentences_rebuild_lexemes()`);
  await knex.raw(`
    create trigger sentences_lexemes_delete after delete on sentences
    referencing old table as old_rows for each statement execute function sentences_rebuild_lexemes()`);

  // Meetings that already have sentences.
  await knex.raw('insert into meeting_lexemes (meeting_id, lexemes) select m.id, meeting_lexemes_of(m.id) from meetings m where exists (select 1 from sentences s where s.meeting_id = m.id)');

  await knex.raw('create index meeting_lexemes_idx on meeting_lexemes using gin (lexemes)');
  await knex.raw('create index meeting_lexemes_overflow_idx on meeting_lexemes (meeting_id) where lexemes is null');
  await knex.raw('create index meetings_team_date_id_idx on meetings (team_id, date desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists meetings_team_date_id_idx');
  await knex.raw('drop trigger if exists sentences_lexemes_delete on sentences');
  await knex.raw('drop trigger if exists sentences_lexemes_update on sentences');
  await knex.raw('drop trigger if exists sentences_lexemes_insert on sentences');
  await knex.raw('drop function if exists sentences_rebuild_lexemes()');
  await knex.raw('drop function if exists sentences_add_lexemes()');
  await knex.raw('drop function if exists meeting_lexemes_of(text)');
  await knex.schema.dropTableIfExists('meeting_lexemes');
}
