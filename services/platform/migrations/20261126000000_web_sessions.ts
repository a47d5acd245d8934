import type { Knex } from 'knex';

/**
 * Sign-ins to the meeting and soundbite pages (services/core/people/sessions.ts): a session is found by
 * the SHA-256 of its cookie's token (a database dump hands out no usable session), carries the CSRF
 * secret its forms post back, and remembers the API key it was signed in with, so ending the key can end
 * what it started.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('web_sessions', (t) => {
    t.text('id').primary();
    t.text('token_hash').notNullable().unique();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('api_key_id').references('api_keys.id').onDelete('CASCADE');
    t.text('csrf_secret').notNullable();
    t.text('signed_in_with').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
  });
  await knex.raw('create index web_sessions_user_id_idx on web_sessions (user_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('web_sessions');
}
