import type { Knex } from 'knex';

/**
 * meetings.detected_language: the language (ISO 639-1) the embedded speech engine detected from the
 * first speech of a recording uploaded without one, kept so that every chunk of the recording is
 * decoded in that same language, whichever worker decodes it (the first detection stored wins).
 * Null when the upload gave its language (custom_language) or nothing detected it.
 *
 * Expand only, so release 0.1.0 runs on it: one nullable column 0.1.0 never reads or writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (t) => {
    t.text('detected_language');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (t) => {
    t.dropColumn('detected_language');
  });
}
