/**
 * SQL text with its bindings, and a way to run it without knex's query builder.
 *
 * knex compiles every statement it runs: a builder, a compiler, binding positions, a runner and its
 * events. For the two statements every MCP keyword call makes (the API-key lookup and the meeting
 * list), statements that are already text, that was 0.09 ms of the mcp process's 1.1 ms of CPU a
 * call; through `runSql` it is 0.01 ms (V8 profiles of one-at-a-time calls). `runSql` hands the text
 * straight to a connection of knex's own pool, so the pool, its limits and its metrics stay one.
 */
import type { Knex } from 'knex';

/** SQL text with `?` placeholders and their values, in order. */
export interface SqlFragment {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** A statement in PostgreSQL's own form: `$1`, `$2`… placeholders. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * `?` placeholders numbered `$1`, `$2`… as PostgreSQL takes them. The fragments this serves never
 * hold a `?` of their own (no jsonb `?` operators, no literals with one), and the count check below
 * catches one that would.
 */
export function numbered(f: SqlFragment): Statement {
  const parts = f.sql.split('?');
  if (parts.length - 1 !== f.bindings.length) throw new Error(`SQL has ${parts.length - 1} placeholders but ${f.bindings.length} bindings`);
  let text = parts[0];
  for (let i = 1; i < parts.length; i++) text += `$${i}${parts[i]}`;
  return { text, values: f.bindings };
}

interface PgConnection {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * How a prepared statement is planned: 'chosen', as PostgreSQL chooses (a plan for the values five
 * times, then the generic plan if its estimate is no dearer); 'generic', the generic plan from the
 * first run, for a statement written so that its generic plan is the one its values would get but
 * whose estimate PostgreSQL cannot trust (core/meetings/find.ts, LIST_PLAN). The setting is the
 * connection's: it is set for the one statement and reset after it, so nothing else that runs on the
 * connection (knex's statements are unnamed prepared statements too) gets a generic plan.
 */
export type PlanChoice = 'chosen' | 'generic';

/**
 * The rows of a statement, run on a pooled connection. `name` makes it a prepared statement on each
 * connection (for a fixed text run on every call), planned as `plan` says. Given a transaction, it
 * runs on the transaction's own connection: knex's transaction client hands that one out and its
 * release is a no-op.
 */
export async function runSql<R>(db: Knex, st: Statement, name?: string, plan: PlanChoice = 'chosen'): Promise<R[]> {
  const conn = (await db.client.acquireConnection()) as PgConnection;
  const generic = name !== undefined && plan === 'generic';
  try {
    if (generic) await conn.query('set plan_cache_mode = force_generic_plan', []);
    // The string form: pg copies a config object on every query, and an unnamed statement needs none.
    const { rows } = name ? await conn.query({ name, text: st.text, values: st.values }) : await conn.query(st.text, st.values);
    return rows as R[];
  } finally {
    // A reset refused inside a transaction the statement aborted needs none: the rollback undoes the set.
    if (generic) await conn.query('reset plan_cache_mode', []).catch(() => undefined);
    db.client.releaseConnection(conn);
  }
}
