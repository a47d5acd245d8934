import type { Knex } from 'knex';

/**
 * The overview line by line, each line citing the moment it rests on (sentence index and start time:
 * services/intelligence/summarize, "Cite a moment for every line"). `overview` keeps the lines joined,
 * so readers of the plain text are unchanged.
 *
 * Expand only, so release 0.1.0 runs on it: a column with a default, which 0.1.0 never reads and its
 * inserts leave empty.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table summaries add column overview_lines jsonb not null default '[]'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table summaries drop column overview_lines');
}
