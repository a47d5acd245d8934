import type { Knex } from 'knex';

/**
 * meetings.voiceprint_names: what the voiceprint recognition of a meeting's current run decided, so
 * the names it gave are given again, never decided again. `{ run, speakers: [{ label, speaker, email,
 * confidence }] }`: the workflow run whose stitch decided, and for each speaker it named, the label
 * diarization gave it and the profile's name, email and cosine. A step that re-stitches the run's
 * chunks (a worker without the staged sentences) re-applies these names, and a retried stitch of the
 * same run takes them as they are, so one run writes one `speaker_profile.matched` audit row per
 * decision. No embedding is kept here; the value goes when the run ends (persisted or failed), with
 * the chunks it names.
 *
 * Expand only, so release 0.1.0 runs on it: one nullable column 0.1.0 never reads or writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (t) => {
    t.jsonb('voiceprint_names');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (t) => {
    t.dropColumn('voiceprint_names');
  });
}
