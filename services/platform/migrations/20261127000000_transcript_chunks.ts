import type { Knex } from 'knex';

/**
 * Chunked transcription (workflows/activities/chunks.ts): each chunk's answer from the speech server is
 * stored as it arrives, so a run whose worker died resumes from the chunks already done; the rows go when
 * the transcript is persisted or the run fails. `plan` ties a row to the chunk plan it was made for.
 * meetings.progress: where a processing meeting is (stage, percent, chunks done of how many).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('transcript_chunks', (t) => {
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('plan').notNullable();
    t.integer('channel').notNullable();
    t.integer('chunk_index').notNullable();
    t.jsonb('segments').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['meeting_id', 'plan', 'channel', 'chunk_index']);
  });
  await knex.schema.alterTable('meetings', (t) => {
    t.jsonb('progress');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (t) => {
    t.dropColumn('progress');
  });
  await knex.schema.dropTable('transcript_chunks');
}
