import type { Knex } from 'knex';

/**
 * Automation rules: a rule can be saved as a dry run (it is evaluated after every transcript and its
 * execution logged with dry_run true, without changing anything), and a run reads a team's enabled
 * rules in order, which (team_id, enabled, created_at) serves.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rules', (t) => {
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.index(['team_id', 'enabled', 'created_at'], 'rules_team_enabled_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rules', (t) => {
    t.dropIndex(['team_id', 'enabled', 'created_at'], 'rules_team_enabled_idx');
    t.dropColumn('dry_run');
  });
}
