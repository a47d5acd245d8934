/**
 * API keys: shown once, stored as a SHA-256 hash with a short public prefix to find the row.
 * Format: `mi_<prefix>_<secret>`; the prefix names the key in listings and revocation.
 *
 * A key carries scopes (meetings:read, meetings:write, admin: what it may do of what its user may do)
 * and an optional expiry. Revoking a key ends everything obtained with it: the OAuth grants signed in
 * with it (their access and refresh tokens are refused on the next call) and its page sessions.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { runSql } from '../../platform/sql';
import { audit } from '../audit';
import { invalid, notFound, ServiceError } from '../../platform/errors';
import { newId } from '../input';
import {
  CREDENTIAL_SCOPES,
  requireMayGovern,
  requireMayGrantScopes,
  requireTeamGovernor,
  scopesOfUser,
  type CredentialScope,
  Principal,
  SHARED_WITH_SQL,
} from '../access';
import { allowanceSql, meterCalls, type Allowance, type AllowanceRow } from '../limits';
import { endLineage } from './signins';
import { findUserByEmail } from './users';

const KEY = /^mi_([a-z0-9]{8})_([A-Za-z0-9_-]{32,64})$/;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The longest lifetime a key may be given (ten years); longer means "no expiry", say so instead. */
const MAX_KEY_LIFETIME_MS = 10 * 365 * 86_400_000;

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  userId: string;
  scopes: CredentialScope[];
  expiresAt: string | null;
}

/** The scopes named (a list or a comma/space-separated string), validated, in canonical order; null when none are named. */
export function parseKeyScopes(raw: string | readonly string[] | undefined | null): CredentialScope[] | null {
  if (raw === undefined || raw === null) return null;
  const parts = (typeof raw === 'string' ? raw.split(/[\s,]+/) : [...raw]).map((s) => s.trim()).filter(Boolean);
  const unknown = parts.filter((s) => !(CREDENTIAL_SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw invalid(
      'scopes',
      `one or more of ${CREDENTIAL_SCOPES.join(', ')}`,
      `scopes: unknown scope ${JSON.stringify(unknown[0])}; known scopes are ${CREDENTIAL_SCOPES.join(', ')}`,
    );
  if (!parts.length)
    throw invalid(
      'scopes',
      `one or more of ${CREDENTIAL_SCOPES.join(', ')}`,
      `scopes: name at least one of ${CREDENTIAL_SCOPES.join(', ')}`,
    );
  return CREDENTIAL_SCOPES.filter((s) => parts.includes(s));
}

/**
 * When a key expires: an ISO 8601 date or date-time, or a lifetime from now (`90d`, `12h`, `30m`);
 * null/undefined for none. It must lie in the future.
 */
export function parseKeyExpiry(raw: string | Date | undefined | null, now = Date.now()): Date | null {
  if (raw === undefined || raw === null || raw === '') return null;
  let at: Date;
  const lifetime = typeof raw === 'string' ? /^(\d{1,6})([dhm])$/.exec(raw.trim()) : null;
  if (lifetime)
    at = new Date(
      now + Number(lifetime[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[lifetime[2] as 'd' | 'h' | 'm'],
    );
  else at = raw instanceof Date ? raw : /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? new Date(raw.trim()) : new Date(NaN);
  const rule = 'an ISO 8601 date or date-time in the future, or a lifetime like 90d, 12h or 30m';
  if (Number.isNaN(at.getTime()))
    throw invalid('expires', rule, `expires: ${JSON.stringify(String(raw))} is not ${rule}`);
  if (at.getTime() <= now) throw invalid('expires', rule, `expires: ${at.toISOString()} is not in the future`);
  if (at.getTime() - now > MAX_KEY_LIFETIME_MS)
    throw invalid(
      'expires',
      'at most ten years ahead',
      'expires: at most ten years ahead; omit it for a key that does not expire',
    );
  return at;
}

/**
 * A new key for the user with this email (the CLI, an operator): any scopes, `admin` only for a team
 * admin. `actor` is the caller when a user makes it for themself (createOwnApiKey).
 */
export async function createApiKey(
  db: Knex,
  input: { email: string; name?: string; scopes?: string | readonly string[] | null; expires?: string | Date | null },
  actor: Principal | null = null,
): Promise<CreatedKey> {
  const user = await findUserByEmail(db, input.email);
  if (!user) throw notFound('user with email', input.email);
  if (user.deactivated_at)
    throw invalid('email', 'an active user', `email: ${user.email} is deactivated; reactivate the user first`);
  // Unnamed scopes: everything its user may do (admin for a team admin, as keys made before scopes existed).
  const allowed = scopesOfUser(user);
  const scopes = parseKeyScopes(input.scopes) ?? allowed;
  if (!scopes.every((s) => allowed.includes(s)))
    throw invalid(
      'scopes',
      'admin only for team admins',
      `scopes: ${user.email} is not a team admin, so a key of theirs cannot carry admin`,
    );
  const expiresAt = parseKeyExpiry(input.expires);
  const name = input.name?.trim() || null;
  if (name && name.length > 200) throw invalid('name', 'at most 200 characters');
  const prefix = randomBytes(6)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .padEnd(8, '0')
    .slice(0, 8);
  const key = `mi_${prefix}_${randomBytes(32).toString('base64url')}`;
  const id = newId();
  await db.transaction(async (tx) => {
    await tx('api_keys').insert({
      id,
      user_id: user.id,
      prefix,
      hash: sha256(key),
      name,
      scopes,
      expires_at: expiresAt,
    });
    await audit(
      tx,
      actor,
      'apikey.create',
      { type: 'api_key', id, teamId: user.team_id },
      { prefix, user_id: user.id, scopes, expires_at: expiresAt?.toISOString() ?? null },
    );
  });
  return { id, key, prefix, userId: user.id, scopes, expiresAt: expiresAt?.toISOString() ?? null };
}

/** A key of the caller's own, never carrying more than the caller's credential does. Shown once. */
export async function createOwnApiKey(
  db: Knex,
  p: Principal,
  input: { name?: string; scopes?: readonly string[] | null; expires?: string | null },
): Promise<CreatedKey> {
  // Unnamed: what the caller's own credential carries (a key never carries more than the one that made it).
  const scopes = parseKeyScopes(input.scopes) ?? scopesOfUser(p).filter((s) => p.scopes?.includes(s) ?? true);
  requireMayGrantScopes(p, scopes);
  return createApiKey(db, { email: p.email, name: input.name, scopes, expires: input.expires }, p);
}

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  user_id: string;
  user_email: string;
  scopes: CredentialScope[];
  /** The key's own call allowance a minute; null: the service's (RATE_LIMIT_PER_MINUTE). */
  rate_limit_per_minute: number | null;
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

interface KeyListRow {
  id: string;
  prefix: string;
  name: string | null;
  user_id: string;
  email: string;
  scopes: CredentialScope[];
  rate_limit_per_minute: number | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

function keyRecord(r: KeyListRow): ApiKeyRecord {
  const expired = r.expires_at !== null && new Date(r.expires_at).getTime() <= Date.now();
  return {
    id: r.id,
    prefix: r.prefix,
    name: r.name ?? null,
    user_id: r.user_id,
    user_email: r.email,
    scopes: r.scopes,
    rate_limit_per_minute: r.rate_limit_per_minute,
    status: r.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
    created_at: iso(r.created_at)!,
    last_used_at: iso(r.last_used_at),
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
  };
}

/**
 * Keys, newest first, never the key itself: the caller's own by default; with `userId` another
 * teammate's, with `team` every key of the caller's team (both for team governors).
 */
export async function listApiKeys(
  db: Knex,
  p: Principal | null,
  opts: { userId?: string; team?: boolean; email?: string } = {},
): Promise<ApiKeyRecord[]> {
  const q = db('api_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .orderBy([{ column: 'k.created_at', order: 'desc' }, { column: 'k.id' }]);
  if (p) {
    if (opts.team) {
      requireTeamGovernor(p, "Listing your team's API keys");
      q.where('u.team_id', p.teamId);
    } else {
      const userId = opts.userId ?? p.userId;
      requireMayGovern(p, userId, "Listing another user's API keys");
      q.where('u.team_id', p.teamId).where('u.id', userId);
    }
  } else if (opts.email) {
    const user = await findUserByEmail(db, opts.email);
    if (!user) throw notFound('user with email', opts.email);
    q.where('u.id', user.id);
  }
  const rows: KeyListRow[] = await q.select(
    'k.id',
    'k.prefix',
    'k.name',
    'k.user_id',
    'u.email',
    'k.scopes',
    'k.rate_limit_per_minute',
    'k.created_at',
    'k.last_used_at',
    'k.expires_at',
    'k.revoked_at',
  );
  return rows.map(keyRecord);
}

export interface RevokedKey {
  prefix: string;
  revoked: boolean;
  /** OAuth grants and page sessions obtained with the key that this revocation ended. */
  grants_ended: number;
  sessions_ended: number;
}

/**
 * Revoke a key by its prefix (or id) and end everything obtained with it. `actor` null is an operator
 * (the CLI); a caller may revoke their own keys, a team governor any key of the team (other teams'
 * keys are not found).
 */
export async function revokeApiKey(db: Knex, prefix: string, actor: Principal | null = null): Promise<RevokedKey> {
  return db.transaction(async (tx) => {
    const row = await tx('api_keys')
      .join('users', 'users.id', 'api_keys.user_id')
      .where((w) => w.where('api_keys.prefix', prefix).orWhere('api_keys.id', prefix))
      .forUpdate()
      .first('api_keys.*', 'users.team_id');
    if (!row || (actor && row.team_id !== actor.teamId)) throw notFound('API key with prefix', prefix);
    if (actor) requireMayGovern(actor, row.user_id, "Revoking another user's API key");
    let revoked = false;
    if (!row.revoked_at) {
      await tx('api_keys').where({ id: row.id }).update({ revoked_at: tx.fn.now() });
      await audit(
        tx,
        actor,
        'apikey.revoke',
        { type: 'api_key', id: row.id, teamId: row.team_id },
        { prefix: row.prefix, user_id: row.user_id },
      );
      revoked = true;
    }
    // Run even for an already revoked key: whatever still hangs off it ends now.
    const ended = await endLineage(tx, actor, { apiKeyId: row.id }, 'api_key_revoked');
    return { prefix: row.prefix, revoked, grants_ended: ended.grants, sessions_ended: ended.sessions };
  });
}

/**
 * Every call of every transport starts with this lookup, so it is one statement that PostgreSQL
 * prepares once per connection (named), not parsed and planned on each call.
 */
export const API_KEY_LOOKUP_SQL =
  'select k.id, k.hash, k.revoked_at, k.last_used_at, k.scopes, k.expires_at <= now() as expired, u.deactivated_at is not null as deactivated, ' +
  'u.id as user_id, u.email, u.name, u.role, t.id as team_id, t.tier, t.feature_flags, ' +
  `${SHARED_WITH_SQL} from api_keys k join users u on u.id = k.user_id join teams t on t.id = u.team_id where k.prefix = $1 limit 1`;

interface KeyRow {
  id: string;
  hash: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
  scopes: string[];
  /** Judged by the database's clock, the same clock that stamps expires_at. */
  expired: boolean | null;
  deactivated: boolean;
  user_id: string;
  email: string;
  name: string;
  role: Principal['role'];
  team_id: string;
  tier: Principal['tier'];
  feature_flags: string[];
  shared_with: Principal['sharedWith'];
}

/** The caller behind a key, or auth_failed for a missing, malformed, unknown, revoked or expired key. */
export async function authenticateApiKey(db: Knex, key: string | undefined): Promise<Principal> {
  return (await apiKeyCredential(db, key)).principal;
}

/** The caller behind a key (with the key's scopes) and the key's id (what a sign-in made with the key remembers). */
export async function apiKeyCredential(
  db: Knex,
  key: string | undefined,
): Promise<{ principal: Principal; keyId: string }> {
  const m = keyParts(key);
  const [row] = await runSql<KeyRow>(db, { text: API_KEY_LOOKUP_SQL, values: [m[1]] }, 'mi_api_key_lookup');
  return credentialOf(db, key!, row);
}

/**
 * The key looked up and this request's `calls` calls counted against its allowance (its own, or
 * `defaultAllowance` a minute), in one statement: the count costs no round trip of its own, and
 * calls this process has leased already are not counted again (core/rate-limit.ts). Only a
 * key that authenticates is counted (the hash is compared in the statement as well as below, so a
 * wrong secret with a known prefix cannot spend a key's allowance). Throws auth_failed as
 * apiKeyCredential does; a refusal for the allowance is the caller's to answer (`allowance.admitted`).
 */
export async function apiKeyCall(
  db: Knex,
  key: string | undefined,
  calls: number,
  defaultAllowance: number,
): Promise<{ principal: Principal; keyId: string; allowance: Allowance }> {
  const m = keyParts(key);
  const run = async (count: number, lease: boolean) =>
    (
      await (count
        ? runSql<KeyRow & AllowanceRow>(
            db,
            { text: API_KEY_CALL_SQL, values: [m[1], defaultAllowance, sha256(key!), count, lease] },
            'mi_api_key_call',
          )
        : runSql<KeyRow & AllowanceRow>(
            db,
            { text: API_KEY_READ_SQL, values: [m[1], defaultAllowance] },
            'mi_api_key_read',
          ))
    )[0];
  // A wrong secret behind a known prefix fails `credentialOf` and spends nothing, not even this
  // process's lease.
  const { credential, allowance } = await meterCalls(`key:${m[1]}`, calls, run, (row) => credentialOf(db, key!, row));
  return { ...credential, allowance };
}

/** The key looked up with its allowance ($2 its default): what both statements below start from. */
const KEY_WITH_ALLOWANCE = API_KEY_LOOKUP_SQL.replace(
  ' from api_keys k ',
  ', coalesce(k.rate_limit_per_minute, $2::int) as allowance from api_keys k ',
);

const KEY_ALLOWANCE = allowanceSql({
  subject: "'key:' || k.id",
  allowance: 'k.allowance',
  calls: '$4::int',
  lease: '$5::boolean',
  from: 'k, w',
  admissible: 'k.hash = $3 and k.revoked_at is null and k.expired is not true and not k.deactivated',
});

/** The key, and $4 calls counted (a lease with $5) when it authenticates ($3 the hash of the key). */
export const API_KEY_CALL_SQL = `with k as (${KEY_WITH_ALLOWANCE}), ${KEY_ALLOWANCE.ctes} select k.*, ${KEY_ALLOWANCE.columns} from k, w`;

/** The key and where its allowance stands, counting nothing: a call spent from this process's lease. */
export const API_KEY_READ_SQL = `with k as (${KEY_WITH_ALLOWANCE}), ${KEY_ALLOWANCE.readCtes} select k.*, ${KEY_ALLOWANCE.readColumns} from k, w`;

function keyParts(key: string | undefined): RegExpExecArray {
  const m = key ? KEY.exec(key) : null;
  if (!key || !m) throw new ServiceError('auth_failed', 'send a valid API key as "Authorization: Bearer <key>"');
  return m;
}

function credentialOf(db: Knex, key: string, row: KeyRow | undefined): { principal: Principal; keyId: string } {
  const expected = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(32);
  const given = Buffer.from(sha256(key), 'hex');
  if (!row || !timingSafeEqual(expected, given) || row.revoked_at || row.deactivated) {
    throw new ServiceError(
      'auth_failed',
      'the API key is unknown or revoked; create a new one with: meeting-intel apikey create --email <you>',
    );
  }
  if (row.expired)
    throw new ServiceError(
      'auth_failed',
      'the API key has expired; create a new one with: meeting-intel apikey create --email <you>',
    );
  // Record use at most once a minute per key, so reads do not turn into a write per call.
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
    void db('api_keys')
      .where({ id: row.id })
      .update({ last_used_at: db.fn.now() })
      .catch(() => {});
  }
  return {
    keyId: row.id,
    principal: {
      userId: row.user_id,
      teamId: row.team_id,
      email: row.email,
      name: row.name,
      role: row.role,
      tier: row.tier,
      flags: row.feature_flags,
      scopes: row.scopes,
      sharedWith: row.shared_with,
    },
  };
}
