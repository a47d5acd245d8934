import type { Knex } from 'knex';

/**
 * The read audit's B-trees made cheaper to write: every keyword list with moments inserts a row per
 * meeting of its page, so each index entry is paid on the read path.
 *
 *   - The team's newest-first paging index is the primary key, (team_id, id): one B-tree where there
 *     were two (a primary key on id alone served nothing but uniqueness; the daily prune deletes by
 *     ctid, services/core/read-audit.ts).
 *   - The user and meeting filters are indexed without team_id in front: user and meeting ids are
 *     unique across teams, so the team is a filter on the few rows they find, and a 26-character
 *     key less per entry.
 *
 * Each index dropped is an entry less to write per row (services/core/README.md, "Read audit").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table read_audit drop constraint read_audit_pkey');
  await knex.raw('drop index if exists read_audit_team_id_idx');
  await knex.raw('alter table read_audit add constraint read_audit_pkey primary key (team_id, id)');
  await knex.raw('drop index if exists read_audit_team_user_idx');
  await knex.raw('drop index if exists read_audit_team_meeting_idx');
  await knex.raw('create index read_audit_user_idx on read_audit (user_id, id desc)');
  await knex.raw('create index read_audit_meeting_idx on read_audit (meeting_id, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists read_audit_meeting_idx');
  await knex.raw('drop index if exists read_audit_user_idx');
  await knex.raw('create index read_audit_team_meeting_idx on read_audit (team_id, meeting_id, id desc)');
  await knex.raw('create index read_audit_team_user_idx on read_audit (team_id, user_id, id desc)');
  await knex.raw('alter table read_audit drop constraint read_audit_pkey');
  await knex.raw('alter table read_audit add constraint read_audit_pkey primary key (id)');
  await knex.raw('create index read_audit_team_id_idx on read_audit (team_id, id desc)');
}
