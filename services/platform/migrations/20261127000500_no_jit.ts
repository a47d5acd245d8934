import type { Knex } from 'knex';

/**
 * JIT compilation off for this database's sessions.
 *
 * PostgreSQL compiles a statement to machine code when its estimated cost passes jit_above_cost
 * (100,000). The meeting list's estimate grows with the data: its fallback for live meetings (the
 * sentences of a meeting whose lexeme set is NULL) is priced at every sentence matching the word,
 * though it almost never runs. On the MCP bench's largest data set, lists and totals for words said in
 * a few hundred to a few thousand meetings passed it, and compiling made them several times slower than
 * running them uncompiled (services/platform/README.md, "JIT"). Every statement this service runs is a
 * short indexed lookup, where compiling never pays.
 *
 * Set for the database (it applies to sessions opened after the migration: the service's pool
 * connects after migrating). Where the migrating role may not alter the database (a managed
 * PostgreSQL), the migration says so and leaves it; set `jit = off` there by hand.
 */
const SET = (value: 'off' | 'default') => `
  do $$
  begin
    execute format('alter database %I ${value === 'off' ? 'set jit = off' : 'reset jit'}', current_database());
  exception when insufficient_privilege then
    raise notice 'jit: cannot alter database %; set jit = off for it by hand', current_database();
  end $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(SET('off'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(SET('default'));
}
