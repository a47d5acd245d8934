/**
 * A key's own call allowance (docs/rate-limits.md): an integration that needs more than the
 * service's RATE_LIMIT_PER_MINUTE, or a script that should have less. Set by an operator (the CLI)
 * or a team admin for a key of their team (core/access requireKeyAllowanceSetter); a member cannot
 * raise their own. It counts from the next call, in the window already running.
 */
import type { Knex } from 'knex';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { requireKeyAllowanceSetter, type Principal } from '../access';

/** The largest allowance a key may be given: past it, a mistake rather than a need. */
export const MAX_KEY_RATE_LIMIT = 1_000_000;

export interface KeyAllowance {
  prefix: string;
  user_email: string;
  /** Calls a minute; null: the service's RATE_LIMIT_PER_MINUTE. */
  rate_limit_per_minute: number | null;
}

/** A whole number of calls a minute from 1 to MAX_KEY_RATE_LIMIT, or null for the service's default. */
export function parseKeyRateLimit(raw: unknown): number | null {
  if (raw === null || raw === undefined || raw === 'default') return null;
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  const rule = `a whole number of calls a minute from 1 to ${MAX_KEY_RATE_LIMIT}, or null (default) for the service's RATE_LIMIT_PER_MINUTE`;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_KEY_RATE_LIMIT)
    throw invalid('rate_limit_per_minute', rule, `rate_limit_per_minute: ${JSON.stringify(raw)} is not ${rule}`);
  return n;
}

/**
 * Give the key with this prefix (or id) its own allowance, or back the default with null. `actor`
 * null is an operator; otherwise a team admin, and a key of another team is not found.
 */
export async function setApiKeyRateLimit(
  db: Knex,
  actor: Principal | null,
  prefix: string,
  perMinute: unknown,
): Promise<KeyAllowance> {
  if (actor) requireKeyAllowanceSetter(actor);
  const limit = parseKeyRateLimit(perMinute);
  return db.transaction(async (tx) => {
    const row = await tx('api_keys as k')
      .join('users as u', 'u.id', 'k.user_id')
      .where((w) => w.where('k.prefix', prefix).orWhere('k.id', prefix))
      .forUpdate('k')
      .first('k.id', 'k.prefix', 'k.user_id', 'k.rate_limit_per_minute', 'u.email', 'u.team_id');
    if (!row || (actor && row.team_id !== actor.teamId)) throw notFound('API key with prefix', prefix);
    await tx('api_keys').where({ id: row.id }).update({ rate_limit_per_minute: limit });
    await audit(
      tx,
      actor,
      'apikey.rate_limit',
      { type: 'api_key', id: row.id, teamId: row.team_id },
      { prefix: row.prefix, user_id: row.user_id, from: row.rate_limit_per_minute, to: limit },
    );
    return { prefix: row.prefix, user_email: row.email, rate_limit_per_minute: limit };
  });
}
