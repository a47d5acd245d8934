import type { Knex } from 'knex';
import { CONFIGS, configOfLanguage, LANGUAGE_CHANGED, meetingConfig } from './20261212000500_meeting_languages';

/**
 * Text search configurations over Hunspell dictionaries, for languages PostgreSQL ships none for
 * (Czech first): an inflected form of a word then finds its sentence, as in German or French.
 *
 * PostgreSQL's `ispell` template reads <name>.affix and <name>.dict from the server's tsearch_data
 * directory (`make text-dictionaries` puts Debian's Czech files there). Where the files are,
 * install_text_search_dictionary(name) creates the dictionary <name>_ispell and the configuration
 * <name>: a copy of `simple` whose words go to the dictionary first, then, for a word it does not know,
 * to `simple`. Where they are not (a managed PostgreSQL, a server without the package), it writes one
 * line to the server's log and the language stays on `simple`: never an error. It runs here, once,
 * and again with `meeting-intel search reindex`, so an operator who adds the files later gets the
 * configuration without a release.
 *
 * text_search_config(language) now also answers these names, and finds a configuration in any schema
 * on the search path (the service's own, where these are created), not only in pg_catalog.
 *
 * A meeting's configuration was worked out when its language changed; it is now worked out whenever
 * its language or title is written, so a meeting indexed with `simple` before its language had a
 * configuration is indexed again by the re-index (which writes its language as it is) or by its next
 * title change, sentences and title alike.
 *
 * Expand-only: the previous release inserts and updates as before, and its queries parse with
 * `english`.
 */

/** ISO 639-1 codes of languages with a Hunspell dictionary (a Debian hunspell-* package) and the configuration's name. */
export const DICTIONARY_CONFIGS: Record<string, string> = {
  bg: 'bulgarian',
  hr: 'croatian',
  cs: 'czech',
  et: 'estonian',
  lv: 'latvian',
  pl: 'polish',
  sk: 'slovak',
  sl: 'slovenian',
  uk: 'ukrainian',
};

/**
 * True when the configuration exists or was just created from its files; false, with one line in
 * the server's log, when the files are missing or unreadable. The exception block is a savepoint:
 * a failure undoes only this attempt. Stop words (<name>.stop) are used where the file exists.
 */
const INSTALL_DICTIONARY = `
  create or replace function install_text_search_dictionary(config text) returns boolean
  language plpgsql as $$
  declare
    dict text := config || '_ispell';
  begin
    if exists (select 1 from pg_ts_config c where c.cfgname = config and pg_ts_config_is_visible(c.oid)) then
      return true;
    end if;
    begin
      begin
        execute format('create text search dictionary %I (template = ispell, dictfile = %L, afffile = %L, stopwords = %L)',
          dict, config, config, config);
      exception when others then
        execute format('create text search dictionary %I (template = ispell, dictfile = %L, afffile = %L)',
          dict, config, config);
      end;
      execute format('create text search configuration %I (copy = simple)', config);
      execute format('alter text search configuration %I alter mapping for asciiword, asciihword, hword_asciipart, word, hword, hword_part with %I, simple',
        config, dict);
      return true;
    exception when others then
      raise log 'text search configuration % not created (its words are searched as written, with simple): %', config, sqlerrm;
      return false;
    end;
  end $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(INSTALL_DICTIONARY);
  await knex.raw(configOfLanguage({ ...CONFIGS, ...DICTIONARY_CONFIGS }, 'pg_ts_config_is_visible(c.oid)'));
  for (const config of new Set(Object.values(DICTIONARY_CONFIGS))) {
    await knex.raw('select install_text_search_dictionary(?)', [config]);
  }
  await knex.raw(meetingConfig(null));
  // A title change that moves the meeting to another configuration re-indexes its sentences too.
  await knex.raw('drop trigger meetings_reindex_sentences on meetings');
  await knex.raw(`
    create trigger meetings_reindex_sentences after update of language, title on meetings
    for each row when (old.search_config is distinct from new.search_config) execute function meetings_reindex_sentences()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger meetings_reindex_sentences on meetings');
  await knex.raw(`
    create trigger meetings_reindex_sentences after update of language on meetings
    for each row when (old.search_config is distinct from new.search_config) execute function meetings_reindex_sentences()`);
  await knex.raw(meetingConfig(LANGUAGE_CHANGED));
  await knex.raw(configOfLanguage(CONFIGS, "c.cfgnamespace = 'pg_catalog'::regnamespace"));
  // The configurations stay (meetings may still be indexed with them); the function goes.
  await knex.raw('drop function if exists install_text_search_dictionary(text)');
}
