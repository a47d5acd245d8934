import type { Knex } from 'knex';

/**
 * The read audit without its foreign key to teams.
 *
 * A foreign key is checked row by row: every audit row ran `select 1 from teams where id = $1 for key
 * share` on insert, and every keyword list with moments writes a row per meeting of its page, so the
 * check was paid on the read path, a large share of each insert (services/core/README.md, "Read
 * audit"). The check also locked the team's row FOR KEY SHARE from every flushing pod at once. What it
 * guarded is kept otherwise: the rows are written by core from a meeting's own team_id
 * (services/core/read-audit.ts), and no part of the service deletes a team, the one thing the cascade
 * served.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table read_audit drop constraint if exists read_audit_team_id_foreign');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'alter table read_audit add constraint read_audit_team_id_foreign foreign key (team_id) references teams (id) on delete cascade',
  );
}
