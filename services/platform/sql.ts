/**
 * SQL text with its bindings, and a way to run it without knex's query builder.
 *
 * knex compiles every statement it runs: a builder, a compiler, binding positions, a runner and its
 * events. For the two statements every MCP keyword call makes (the API-key lookup and the meeting
 * list), statements that are already text, that machinery was a visible share of the call's CPU and
 * `runSql` skips it (services/platform/README.md). `runSql` hands the text straight to a connection of
 * knex's own pool, so the pool, its limits and its metrics stay one.
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
  if (parts.length - 1 !== f.bindings.length)
    throw new Error(`SQL has ${parts.length - 1} placeholders but ${f.bindings.length} bindings`);
  let text = parts[0];
  for (let i = 1; i < parts.length; i++) text += `$${i}${parts[i]}`;
  return { text, values: f.bindings };
}

interface PgConnection {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
  /** The connection runs generic plans (plan_cache_mode force_generic_plan): set by runSql for a named statement. */
  [GENERIC]?: boolean;
}

const GENERIC = Symbol('generic plans');
const FORCE_GENERIC = 'set plan_cache_mode = force_generic_plan';
const RESET = 'reset plan_cache_mode';

type Acquire = () => Promise<PgConnection>;
/** Each knex client's own acquireConnection, before guardAcquire wrapped it. */
const rawAcquires = new WeakMap<object, Acquire>();

/**
 * A pooled connection that last ran a named statement runs generic plans; whoever takes it from the
 * pool next through knex (every knex query and transaction does) has the setting reset first. The
 * reset is queued on the connection, ahead of the taker's first statement, so it costs no wait; a
 * connection moving from named statement to named statement is never reset.
 */
function guardAcquire(db: Knex): Acquire {
  const client = db.client as { acquireConnection: Acquire };
  let raw = rawAcquires.get(client);
  if (raw) return raw;
  raw = client.acquireConnection.bind(client);
  rawAcquires.set(client, raw);
  const acquire = raw;
  client.acquireConnection = async () => {
    const conn = await acquire();
    if (conn[GENERIC]) {
      conn[GENERIC] = false;
      conn.query(RESET, []).catch(() => undefined);
    }
    return conn;
  };
  return raw;
}

/**
 * The rows of a statement, run on a pooled connection. Given a transaction, it runs on the
 * transaction's own connection: knex's transaction client hands that one out and its release is a
 * no-op.
 *
 * `name` makes it a prepared statement on each connection (for a fixed text run on every call: the
 * API-key lookup, meeting lists, moments), run on its generic plan from the first call. Each is
 * written so that its generic plan is the plan its values would get (core/meetings/list-plan.ts says how
 * for the lists). Left to choose, PostgreSQL kept planning some of them for their values on every
 * call, whenever the generic plan's estimate looked dearer: walked meeting lists always (the estimate
 * cannot know how soon a walk stops), and some that read every match, paying for planning each call.
 * The setting stays on the connection between named statements and is reset before anything else
 * runs on it (guardAcquire): unnamed statements, knex's included, are planned as PostgreSQL chooses.
 * Inside a transaction a named statement is planned as PostgreSQL chooses.
 */
export async function runSql<R>(db: Knex, st: Statement, name?: string): Promise<R[]> {
  const generic = name !== undefined && !db.isTransaction;
  const conn = generic ? await guardAcquire(db)() : ((await db.client.acquireConnection()) as PgConnection);
  try {
    if (generic && !conn[GENERIC]) {
      conn[GENERIC] = true;
      conn.query(FORCE_GENERIC, []).catch(() => undefined);
    }
    // The string form: pg copies a config object on every query, and an unnamed statement needs none.
    const { rows } = name
      ? await conn.query({ name, text: st.text, values: st.values })
      : await conn.query(st.text, st.values);
    return rows as R[];
  } finally {
    db.client.releaseConnection(conn);
  }
}
