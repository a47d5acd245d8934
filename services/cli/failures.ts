/**
 * What the CLI says when PostgreSQL or Temporal fails: the variable to fix and what is wrong, never
 * the SQL of the query (knex puts it at the front of every database error's message) and never a raw
 * transport error.
 */

/** A failure the CLI explains itself; exit status 1. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** How long the CLI waits to reach PostgreSQL or Temporal before saying it cannot. */
export const CONNECT_DEADLINE_MS = 10_000;

/** host:port/database of a database URL, without user or password. */
export function describeDatabaseUrl(url: string | undefined): string {
  if (!url) return '(unset)';
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return '(not a URL)';
  }
}

type Errorish = {
  code?: unknown;
  errno?: unknown;
  name?: unknown;
  message?: unknown;
  severity?: unknown;
  routine?: unknown;
  errors?: unknown;
  table?: unknown;
};

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};

/** The pg server's message without knex's "<sql> - " in front of it. */
function serverMessage(e: Errorish): string {
  const m = typeof e.message === 'string' ? e.message : '';
  const i = m.lastIndexOf(' - ');
  return i >= 0 ? m.slice(i + 3) : m;
}

function isPgServerError(e: Errorish): boolean {
  return (
    typeof e.code === 'string' &&
    /^[0-9A-Z]{5}$/.test(e.code) &&
    (typeof e.severity === 'string' || typeof e.routine === 'string')
  );
}

/** A CliFailure for an error of PostgreSQL or of reaching it; undefined when it is neither. */
export function databaseFailure(err: unknown, databaseUrl: string | undefined): CliFailure | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as Errorish;
  const where = `DATABASE_URL (${describeDatabaseUrl(databaseUrl)})`;
  if (isPgServerError(e)) {
    const code = e.code as string;
    const msg = serverMessage(e);
    if (code === '42P01' || code === '42703' || code === '42883') {
      const what = /relation "([^"]+)" does not exist$/.exec(msg)?.[1];
      return new CliFailure(
        'database_not_migrated',
        `the database at ${where} does not have this version's schema${what ? ` (table ${what} is missing)` : ''}: run meeting-intel migrate`,
      );
    }
    if (code === '3D000') {
      const name = /database "([^"]+)"/.exec(msg)?.[1];
      return new CliFailure(
        'database_unavailable',
        `${where}: ${name ? `the database "${name}"` : 'the database'} does not exist; create it, then run meeting-intel migrate`,
      );
    }
    if (code === '28P01' || code === '28000')
      return new CliFailure('database_unavailable', `${where}: PostgreSQL refused the user or password`);
    if (code === '42501')
      return new CliFailure(
        'database_error',
        `${where}: the database user lacks a privilege this command needs (SQLSTATE 42501)`,
      );
    if (code.startsWith('08') || code.startsWith('53') || code.startsWith('57'))
      return new CliFailure(
        'database_unavailable',
        `${where}: PostgreSQL is not accepting connections (SQLSTATE ${code})`,
      );
    return new CliFailure(
      'database_error',
      `PostgreSQL at ${where} refused the command: SQLSTATE ${code}${typeof e.table === 'string' ? ` on table ${e.table}` : ''}`,
    );
  }
  const codes = [e.code, ...(Array.isArray(e.errors) ? (e.errors as Errorish[]).map((x) => x?.code) : [])].filter(
    (c): c is string => typeof c === 'string',
  );
  const net = codes.find((c) => NETWORK[c]);
  if (net) return new CliFailure('database_unavailable', `cannot connect to PostgreSQL at ${where}: ${NETWORK[net]}`);
  const message = typeof e.message === 'string' ? e.message : '';
  if (
    e.name === 'KnexTimeoutError' ||
    /Connection terminated due to connection timeout|timeout exceeded when trying to connect/i.test(message)
  ) {
    return new CliFailure(
      'database_unavailable',
      `cannot connect to PostgreSQL at ${where}: no answer within ${CONNECT_DEADLINE_MS / 1000} s`,
    );
  }
  if (/^Connection terminated unexpectedly$/.test(message)) {
    return new CliFailure(
      'database_unavailable',
      `cannot connect to PostgreSQL at ${where}: the connection was closed before PostgreSQL answered`,
    );
  }
  if (
    /does not support SSL|self[- ]signed certificate|certificate|SSL/i.test(message) &&
    !/^\s*(select|insert|update|delete|with)\b/i.test(message)
  ) {
    return new CliFailure(
      'database_unavailable',
      `cannot connect to PostgreSQL at ${where}: TLS failed (${message}); check DATABASE_SSL`,
    );
  }
  return undefined;
}

/** A short reason a Temporal connection failed, from the gRPC or Rust transport error. */
function temporalReason(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  if (/ConnectionRefused|connection refused|ECONNREFUSED/i.test(m)) return 'connection refused';
  if (/dns|resolve|lookup|ENOTFOUND|Name or service not known/i.test(m)) return 'host name not found';
  if (/certificate|tls|ssl|handshake/i.test(m)) return 'TLS failed; check the TEMPORAL_TLS_* settings';
  if (/DEADLINE_EXCEEDED|timed? ?out|deadline/i.test(m)) return `no answer within ${CONNECT_DEADLINE_MS / 1000} s`;
  return 'it did not answer';
}

export function temporalFailure(err: unknown, address: string): CliFailure {
  return new CliFailure(
    'temporal_unreachable',
    `cannot reach Temporal at TEMPORAL_ADDRESS=${address} (${temporalReason(err)}): start Temporal, or set TEMPORAL_ADDRESS to its frontend host:port`,
  );
}

/** Whether an error is one of the Temporal SDK's connection errors (not a workflow's failure). */
export function isTemporalTransportError(err: unknown): boolean {
  const m = err instanceof Error ? err.message : '';
  const name = err instanceof Error ? err.name : '';
  return (
    /tonic::transport|TransportError|transport error/i.test(m) ||
    name === 'TransportError' ||
    /^1?4 (UNAVAILABLE|DEADLINE_EXCEEDED)/.test(m)
  );
}

/** The last resort: a message that starts with SQL (a knex error not from the server) keeps only its tail. */
export function withoutSql(message: string): string {
  if (/^\s*(select|insert|update|delete|with|create|alter|drop)\b/i.test(message)) {
    const i = message.lastIndexOf(' - ');
    return i >= 0 ? `a database query failed: ${message.slice(i + 3)}` : 'a database query failed';
  }
  return message.replace(/\b(query|sql):\s*(select|insert|update|delete|with)\b[\s\S]*$/i, '(query hidden)');
}

/** Rejects when p takes longer than ms; p keeps running (the CLI exits regardless). */
export function withinDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: deadline exceeded after ${ms / 1000} s`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
