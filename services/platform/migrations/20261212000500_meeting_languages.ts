import type { Knex } from 'knex';

/**
 * Each meeting's language, and its words indexed and searched as that language.
 *
 * meetings.language is the language the meeting is in (a code like en, de or pt-BR) and
 * language_source how it was known: 'given' with the upload, or 'detected' (from caption text, or
 * from the first speech). A meeting inserted with custom_language (this release's uploads, and the
 * previous release's during a rolling update) takes it as its given language.
 *
 * meetings.search_config is the PostgreSQL text search configuration the meeting's sentences and
 * title are indexed with: the configuration of its language where PostgreSQL ships one, `simple`
 * (words as written, lower-cased, no stemming, no stop words) for the rest, `english` for a meeting
 * whose language is not known (what every meeting was before). Queries are parsed with the
 * configurations that meetings use (search_configs), so each meeting is matched in its own.
 *
 * sentences.tsv and meetings.title_tsv were generated columns over the `english` configuration; they
 * become plain columns that triggers fill from the meeting's configuration, so the lexeme sets, word
 * pairs and best moments built from sentences.tsv follow the language with no change of their own.
 * DROP EXPRESSION keeps the stored values and rewrites nothing: existing meetings keep their index.
 * A meeting whose configuration changes (its language set or detected after its sentences were
 * written, or the re-index of meetings uploaded with a language before this release) has its
 * sentences indexed again, in the statement that changed it.
 *
 * Expand-only: the previous release inserts sentences and meetings without naming these columns,
 * and the triggers fill them as before; its queries parse with `english`, which is right for every
 * meeting it wrote.
 */

/** ISO 639-1 codes of the languages PostgreSQL ships a configuration for, and its name. */
export const CONFIGS: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/**
 * The configuration of a language code: its own where this server has it (older servers lack some),
 * else `simple`; `english` when the language is not known. `visible` says where a configuration may
 * live: pg_catalog's (this migration), or any schema on the search path (20261212000700).
 */
export function configOfLanguage(configs: Record<string, string>, visible: string): string {
  return `
  create or replace function text_search_config(language text) returns text
  language sql stable parallel safe as $$
    select case when language is null then 'english' else coalesce(
      (select c.cfgname::text from pg_ts_config c
       where ${visible}
         and c.cfgname = (case lower(split_part(replace(language, '_', '-'), '-', 1))
${Object.entries(configs)
  .map(([code, name]) => `           when '${code}' then '${name}'`)
  .join('\n')}
         end)),
      'simple') end
  $$`;
}

/** The condition the configuration was worked out under in this migration. */
export const LANGUAGE_CHANGED = "tg_op = 'INSERT' or new.language is distinct from old.language";

/**
 * Before a meeting is written: its given language, its configuration, its title's lexemes. The
 * configuration is worked out under `workOutWhen` (a plpgsql condition), or every time when null
 * (20261212000700).
 */
export function meetingConfig(workOutWhen: string | null): string {
  const workOut = 'new.search_config := text_search_config(new.language);';
  return `
  create or replace function meetings_text_config() returns trigger
  language plpgsql as $$
  begin
    if tg_op = 'INSERT' and new.language is null and new.custom_language is not null then
      new.language := new.custom_language;
      new.language_source := 'given';
    end if;
    ${workOutWhen === null ? workOut : `if ${workOutWhen} then ${workOut} end if;`}
    if not exists (select 1 from search_configs c where c.config = new.search_config) then
      insert into search_configs (config) values (new.search_config) on conflict do nothing;
    end if;
    new.title_tsv := to_tsvector(new.search_config::regconfig, coalesce(new.title, ''));
    return new;
  end $$`;
}

/** After a meeting's configuration changed: its sentences indexed again with it (the sentence triggers rebuild the sets). */
const MEETING_REINDEX = `
  create function meetings_reindex_sentences() returns trigger
  language plpgsql as $$
  begin
    update sentences set tsv = to_tsvector(new.search_config::regconfig, text) where meeting_id = new.id;
    return null;
  end $$`;

/** A sentence's lexemes with its meeting's configuration (english for one whose meeting is gone, which the foreign key refuses anyway). */
const SENTENCE_TSV = `
  create function sentences_text_tsv() returns trigger
  language plpgsql as $$
  begin
    new.tsv := to_tsvector(coalesce((select m.search_config from meetings m where m.id = new.meeting_id), 'english')::regconfig, new.text);
    return new;
  end $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table meetings add column language text');
  await knex.raw('alter table meetings add column language_source text');
  await knex.raw(
    "alter table meetings add constraint meetings_language_source_check check (language_source is null or language_source in ('given', 'detected'))",
  );
  await knex.raw("alter table meetings add column search_config text not null default 'english'");
  await knex.raw('create table search_configs (config text primary key)');
  await knex.raw("insert into search_configs (config) values ('english')");
  await knex.raw(configOfLanguage(CONFIGS, "c.cfgnamespace = 'pg_catalog'::regnamespace"));

  await knex.raw('alter table meetings alter column title_tsv drop expression');
  await knex.raw('alter table sentences alter column tsv drop expression');
  await knex.raw(meetingConfig(LANGUAGE_CHANGED));
  await knex.raw(MEETING_REINDEX);
  await knex.raw(SENTENCE_TSV);
  await knex.raw(`
    create trigger meetings_text_config before insert or update of language, title on meetings
    for each row execute function meetings_text_config()`);
  await knex.raw(`
    create trigger meetings_reindex_sentences after update of language on meetings
    for each row when (old.search_config is distinct from new.search_config) execute function meetings_reindex_sentences()`);
  await knex.raw(`
    create trigger sentences_text_tsv before insert or update of text on sentences
    for each row execute function sentences_text_tsv()`);
  // Meetings uploaded with a language before this release wait for the re-index (meetings_to_reindex).
  await knex.raw(
    'create index meetings_language_pending_idx on meetings (id) where language is null and custom_language is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists meetings_language_pending_idx');
  await knex.raw('drop trigger if exists sentences_text_tsv on sentences');
  await knex.raw('drop trigger if exists meetings_reindex_sentences on meetings');
  await knex.raw('drop trigger if exists meetings_text_config on meetings');
  await knex.raw('drop function if exists sentences_text_tsv()');
  await knex.raw('drop function if exists meetings_reindex_sentences()');
  await knex.raw('drop function if exists meetings_text_config()');
  // Back to generated english columns (a rewrite: development only).
  await knex.raw('alter table sentences drop column tsv');
  await knex.raw(
    "alter table sentences add column tsv tsvector generated always as (to_tsvector('english', text)) stored",
  );
  await knex.raw('create index sentences_tsv_idx on sentences using gin (tsv)');
  await knex.raw('alter table meetings drop column title_tsv');
  await knex.raw(
    "alter table meetings add column title_tsv tsvector generated always as (to_tsvector('english', coalesce(title, ''))) stored",
  );
  await knex.raw('create index meetings_title_tsv_idx on meetings using gin (title_tsv)');
  await knex.raw('drop function if exists text_search_config(text)');
  await knex.raw('drop table if exists search_configs');
  await knex.raw('alter table meetings drop column if exists search_config');
  await knex.raw('alter table meetings drop constraint if exists meetings_language_source_check');
  await knex.raw('alter table meetings drop column if exists language_source');
  await knex.raw('alter table meetings drop column if exists language');
}
