import type { Knex } from 'knex';

/**
 * Access governance: who read which meeting (read_audit, append-only, written in batches by
 * services/core/read-audit.ts), how long a team keeps its meetings (teams.retention_days, null = for ever)
 * and which meetings are kept regardless (meetings.legal_hold_at/by).
 *
 * read_audit has no foreign key to meetings or users on purpose: a read stays on record after the
 * meeting is deleted (that is when it is asked about). Rows go when their team goes, or when they are
 * older than READ_AUDIT_RETENTION (the daily RetentionWorkflow).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('read_audit', (t) => {
    t.bigIncrements('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('user_id');
    t.text('meeting_id').notNullable();
    t.text('surface').notNullable();
    t.timestamp('read_at', { useTz: true }).notNullable();
  });
  // Paging is newest first by id within a team; the filters narrow it by user or meeting.
  await knex.raw('create index read_audit_team_id_idx on read_audit (team_id, id desc)');
  await knex.raw('create index read_audit_team_user_idx on read_audit (team_id, user_id, id desc)');
  await knex.raw('create index read_audit_team_meeting_idx on read_audit (team_id, meeting_id, id desc)');
  await knex.raw('create index read_audit_read_at_idx on read_audit (read_at)');

  await knex.schema.alterTable('teams', (t) => {
    t.integer('retention_days');
    t.check('retention_days is null or retention_days >= 1', [], 'teams_retention_days_check');
  });
  await knex.schema.alterTable('meetings', (t) => {
    t.timestamp('legal_hold_at', { useTz: true });
    t.text('legal_hold_by').references('users.id').onDelete('SET NULL');
  });
  // The retention run walks one team's meetings oldest first, skipping those on hold.
  await knex.raw('create index meetings_team_retention_idx on meetings (team_id, date) where legal_hold_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists meetings_team_retention_idx');
  await knex.schema.alterTable('meetings', (t) => {
    t.dropColumn('legal_hold_by');
    t.dropColumn('legal_hold_at');
  });
  await knex.schema.alterTable('teams', (t) => {
    t.dropChecks(['teams_retention_days_check']);
    t.dropColumn('retention_days');
  });
  await knex.schema.dropTable('read_audit');
}
