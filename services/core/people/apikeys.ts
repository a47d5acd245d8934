/**
 * API keys: shown once, stored as a SHA-256 hash with a short public prefix to find the row.
 * Format: `mi_<prefix>_<secret>`; the prefix names the key in listings and revocation.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { runSql } from '../../platform/sql';
import { audit } from '../audit';
import { notFound, ServiceError } from '../../platform/errors';
import { newId } from '../ids';
import { Principal, SHARED_WITH_SQL } from '../principal';
import { findUserByEmail } from './users';

const KEY = /^mi_([a-z0-9]{8})_([A-Za-z0-9_-]{32,64})$/;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  userId: string;
}

export async function createApiKey(db: Knex, input: { email: string; name?: string }): Promise<CreatedKey> {
  const user = await findUserByEmail(db, input.email);
  if (!user) throw notFound('user with email', input.email);
  const prefix = randomBytes(6).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, '').padEnd(8, '0').slice(0, 8);
  const key = `mi_${prefix}_${randomBytes(32).toString('base64url')}`;
  const id = newId();
  await db.transaction(async (tx) => {
    await tx('api_keys').insert({ id, user_id: user.id, prefix, hash: sha256(key), name: input.name ?? null });
    await audit(tx, null, 'apikey.create', { type: 'api_key', id, teamId: user.team_id }, { prefix, user_id: user.id });
  });
  return { id, key, prefix, userId: user.id };
}

export async function revokeApiKey(db: Knex, prefix: string): Promise<{ prefix: string; revoked: boolean }> {
  return db.transaction(async (tx) => {
    const row = await tx('api_keys').join('users', 'users.id', 'api_keys.user_id').where('api_keys.prefix', prefix).first('api_keys.*', 'users.team_id');
    if (!row) throw notFound('API key with prefix', prefix);
    if (row.revoked_at) return { prefix, revoked: false };
    await tx('api_keys').where({ id: row.id }).update({ revoked_at: tx.fn.now() });
    await audit(tx, null, 'apikey.revoke', { type: 'api_key', id: row.id, teamId: row.team_id }, { prefix });
    return { prefix, revoked: true };
  });
}

/**
 * Every call of every transport starts with this lookup, so it is one statement that PostgreSQL
 * prepares once per connection (named), not parsed and planned on each call.
 */
export const API_KEY_LOOKUP_SQL =
  'select k.id, k.hash, k.revoked_at, k.last_used_at, u.id as user_id, u.email, u.name, u.role, t.id as team_id, t.tier, t.feature_flags, ' +
  `${SHARED_WITH_SQL} from api_keys k join users u on u.id = k.user_id join teams t on t.id = u.team_id where k.prefix = $1 limit 1`;

interface KeyRow {
  id: string;
  hash: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  email: string;
  name: string;
  role: Principal['role'];
  team_id: string;
  tier: Principal['tier'];
  feature_flags: string[];
  shared_with: Principal['sharedWith'];
}

/** The caller behind a key, or auth_failed for a missing, malformed, unknown or revoked key. */
export async function authenticateApiKey(db: Knex, key: string | undefined): Promise<Principal> {
  return (await apiKeyCredential(db, key)).principal;
}

/** The caller behind a key and the key's id (what a sign-in made with the key remembers). */
export async function apiKeyCredential(db: Knex, key: string | undefined): Promise<{ principal: Principal; keyId: string }> {
  const m = key ? KEY.exec(key) : null;
  if (!key || !m) throw new ServiceError('auth_failed', 'send a valid API key as "Authorization: Bearer <key>"');
  const [row] = await runSql<KeyRow>(db, { text: API_KEY_LOOKUP_SQL, values: [m[1]] }, 'mi_api_key_lookup');
  const expected = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(32);
  const given = Buffer.from(sha256(key), 'hex');
  if (!row || !timingSafeEqual(expected, given) || row.revoked_at) {
    throw new ServiceError('auth_failed', 'the API key is unknown or revoked; create a new one with: meeting-intel apikey create --email <you>');
  }
  // Record use at most once a minute per key, so reads do not turn into a write per call.
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
    void db('api_keys').where({ id: row.id }).update({ last_used_at: db.fn.now() }).catch(() => {});
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
      sharedWith: row.shared_with,
    },
  };
}
