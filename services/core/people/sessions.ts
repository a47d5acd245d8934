/**
 * Sign-ins to the meeting and soundbite pages. A session is a random token (the browser keeps it in a
 * cookie; the database only its SHA-256), a lifetime (WEB_SESSION_TTL) and the CSRF secret its forms
 * carry. It ends when the person signs out, when it expires, and with the credential it was made with:
 * a session signed in with an API key is refused once that key is revoked, and every session ends with
 * its user.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { audit } from '../audit';
import { newId } from '../input';
import { SHARED_WITH_SQL, type Principal } from '../access';

export type SignInMethod = 'api_key' | 'oidc';

export interface PageSession {
  id: string;
  principal: Principal;
  /** What the session's forms must post back (compared in constant time by the page layer). */
  csrf: string;
  expiresAt: Date;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A new session for someone who just proved who they are; answers the token for the cookie. */
export async function startSession(
  db: Knex,
  p: Principal,
  opts: { method: SignInMethod; apiKeyId: string | null; ttlMs: number },
): Promise<{ token: string; session: PageSession }> {
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const id = newId();
  const expiresAt = new Date(Date.now() + opts.ttlMs);
  await db.transaction(async (tx) => {
    await tx('web_sessions').insert({
      id,
      token_hash: sha256(token),
      user_id: p.userId,
      api_key_id: opts.apiKeyId,
      csrf_secret: csrf,
      signed_in_with: opts.method,
      expires_at: expiresAt,
    });
    await audit(tx, p, 'session.sign_in', { type: 'web_session', id }, { method: opts.method });
  });
  return { token, session: { id, principal: p, csrf, expiresAt } };
}

const SESSION_SQL =
  'select s.id, s.csrf_secret, s.expires_at, k.scopes as key_scopes, u.id as user_id, u.email, u.name, u.role, t.id as team_id, t.tier, t.feature_flags, ' +
  `${SHARED_WITH_SQL} from web_sessions s join users u on u.id = s.user_id join teams t on t.id = u.team_id ` +
  'left join api_keys k on k.id = s.api_key_id ' +
  'where s.token_hash = ? and s.ended_at is null and s.expires_at > now() and u.deactivated_at is null ' +
  'and (s.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())))';

/** The live session behind a cookie's token, or undefined (none, malformed, expired, ended, its key revoked or expired, its user deactivated). */
export async function sessionOf(db: Knex, token: string | undefined): Promise<PageSession | undefined> {
  if (!token || !TOKEN.test(token)) return undefined;
  const { rows } = await db.raw(SESSION_SQL, [sha256(token)]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    csrf: r.csrf_secret,
    expiresAt: new Date(r.expires_at),
    principal: {
      userId: r.user_id,
      teamId: r.team_id,
      email: r.email,
      name: r.name,
      role: r.role,
      tier: r.tier,
      flags: r.feature_flags,
      sharedWith: r.shared_with,
      ...(r.key_scopes ? { scopes: r.key_scopes } : {}),
    },
  };
}

/** Sign-out: the session is ended at once (its cookie is useless from now on). */
export async function endSession(db: Knex, session: PageSession): Promise<void> {
  await db.transaction(async (tx) => {
    await tx('web_sessions').where({ id: session.id }).whereNull('ended_at').update({ ended_at: tx.fn.now() });
    await audit(tx, session.principal, 'session.sign_out', { type: 'web_session', id: session.id }, {});
  });
}
