import type { Knex } from 'knex';

/**
 * Each applied migration records the release it shipped in and the oldest release that runs on it,
 * so an older release's schema guard can tell whether a schema newer than itself is still one it
 * runs on (an expand migration) or not (a contract migration). Nullable: knex inserts only the name,
 * and `migrate up` fills these in after applying.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table knex_migrations add column release text, add column runs_with text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table knex_migrations drop column release, drop column runs_with');
}
