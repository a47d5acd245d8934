import type { Knex } from 'knex';

/**
 * The call allowance shared by every pod (services/core/rate-limit.ts): `rate_limit_counts` holds one
 * row per credential (an API key, or an OAuth-signed-in user), the clock window it counts in and the
 * calls admitted in it, so a key's allowance is the same whatever the number of pods. The row of a
 * credential is updated in place when its window turns (no row per window, nothing to clean up).
 * UNLOGGED: a count lives a minute, so it is not worth a WAL record per call; a crash of PostgreSQL
 * empties the table, which gives every key a fresh window once.
 *
 * `api_keys.rate_limit_per_minute`: an allowance a team admin gave one key (an integration that needs
 * more, or a script that should have less); null is RATE_LIMIT_PER_MINUTE.
 *
 * Expand only, so release 0.1.0 runs on it: a table and a nullable column 0.1.0 never reads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create unlogged table rate_limit_counts (
      subject text primary key,
      window_start timestamptz not null,
      used integer not null check (used >= 0),
      allowance integer not null check (allowance >= 1),
      granted integer not null check (granted >= 0)
    )`);
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('rate_limit_per_minute').nullable();
  });
  await knex.raw(
    'alter table api_keys add constraint api_keys_rate_limit_per_minute_check check (rate_limit_per_minute between 1 and 1000000)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('rate_limit_per_minute');
  });
  await knex.schema.dropTable('rate_limit_counts');
}
