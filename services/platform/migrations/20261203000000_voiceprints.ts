import type { Knex } from 'knex';

/**
 * Voiceprints (services/core/voiceprints): a team that turns them on keeps each meeting speaker's voice
 * embedding and the speaker profiles of the people it named, so a name given once comes back in later
 * meetings. A voiceprint is biometric data, so it is off by default (teams.voiceprints_enabled), and
 * turning it off deletes every profile and meeting voice of the team.
 *
 * speaker_profiles: one per named person of a team, unique on the name whatever its case; `embedding`
 * is the sum of the unit embeddings enrolled (its direction the person's voice), `voices` how many.
 * meeting_voices: one per speaker of a meeting, under the label the transcript has now; `profile_id`
 * the profile it was enrolled in (a person named it, inferred false) or matched to (inferred true, with
 * the cosine as confidence). Deleting a meeting or a team deletes its voices (ON DELETE CASCADE).
 *
 * Expand only, so release 0.1.0 runs on it: two new tables and three team columns 0.1.0 never reads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    t.boolean('voiceprints_enabled').notNullable().defaultTo(false);
    t.timestamp('voiceprints_enabled_at', { useTz: true });
    t.text('voiceprints_enabled_by');
  });
  await knex.schema.createTable('speaker_profiles', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('email');
    t.specificType('embedding', 'real[]').notNullable();
    t.integer('voices').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('voices > 0', [], 'speaker_profiles_voices_check');
  });
  await knex.raw('create unique index speaker_profiles_team_name_unique on speaker_profiles (team_id, lower(name))');
  await knex.schema.createTable('meeting_voices', (t) => {
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('speaker').notNullable();
    t.specificType('embedding', 'real[]').notNullable();
    t.text('profile_id').references('speaker_profiles.id').onDelete('SET NULL');
    t.boolean('inferred').notNullable().defaultTo(false);
    t.float('confidence');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['meeting_id', 'speaker']);
  });
  await knex.raw('create index meeting_voices_team_idx on meeting_voices (team_id)');
  await knex.raw('create index meeting_voices_profile_idx on meeting_voices (profile_id) where profile_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('meeting_voices');
  await knex.schema.dropTable('speaker_profiles');
  await knex.schema.alterTable('teams', (t) => {
    t.dropColumn('voiceprints_enabled_by');
    t.dropColumn('voiceprints_enabled_at');
    t.dropColumn('voiceprints_enabled');
  });
}
