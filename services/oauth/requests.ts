/**
 * Pending authorization requests: what the client asked for, kept in the database between the
 * sign-in page and the consent page (any pod may serve any step). A request is bound to the browser
 * that started it (a random secret in an HttpOnly cookie, stored here as a hash) and every form of it
 * carries a CSRF token (also stored as a hash); both are checked on every step. It lives ten minutes
 * and is spent by the consent decision.
 */
import type { Knex } from 'knex';
import { randomSecret, sameSecret, sha256 } from './crypto';
import { OAuthError } from './errors';
import type { Scope } from './scopes';

export const REQUEST_TTL_MS = 10 * 60_000;
/** Wrong API keys typed into one request's sign-in page before it is spent. */
export const MAX_FAILED_SIGN_INS = 5;

export interface PendingRequest {
  id: string;
  client_id: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  /** The API key the user signed in with (null for an OIDC sign-in, or before sign-in). */
  api_key_id: string | null;
  scopes: Scope[];
  state: string | null;
  code_challenge: string;
  resource: string;
  browser_hash: string;
  csrf_hash: string;
  user_id: string | null;
  failed_sign_ins: number;
  oidc_nonce: string | null;
  oidc_verifier: string | null;
  expires_at: Date;
  completed_at: Date | null;
}

export interface NewRequest {
  clientId: string;
  redirectUri: string;
  /** Whether the request named redirect_uri (rather than relying on the client's only registered one). */
  redirectUriGiven: boolean;
  scopes: Scope[];
  state?: string;
  codeChallenge: string;
  resource: string;
}

export async function createPendingRequest(
  db: Knex,
  r: NewRequest,
  browserSecret: string,
): Promise<{ id: string; csrf: string }> {
  const id = randomSecret(18);
  const csrf = randomSecret(24);
  await db('oauth_requests').insert({
    id,
    client_id: r.clientId,
    redirect_uri: r.redirectUri,
    redirect_uri_given: r.redirectUriGiven,
    scopes: r.scopes,
    state: r.state ?? null,
    code_challenge: r.codeChallenge,
    resource: r.resource,
    browser_hash: sha256(browserSecret),
    csrf_hash: sha256(csrf),
    expires_at: new Date(Date.now() + REQUEST_TTL_MS),
  });
  // Expired requests go as new ones come, so the table stays small without a sweeper.
  await db('oauth_requests')
    .where('expires_at', '<', new Date(Date.now() - REQUEST_TTL_MS))
    .delete();
  return { id, csrf };
}

const gone = () =>
  new OAuthError(
    'invalid_request',
    'This sign-in has expired or was already completed. Start again from your MCP client.',
    'request_expired',
  );
const forged = () =>
  new OAuthError(
    'invalid_request',
    'This form was not opened in this browser, or has been tampered with. Start again from your MCP client.',
    'csrf',
  );

/** The live request `id` of this browser; on a POST also checks the form's CSRF token. */
export async function openPendingRequest(
  db: Knex,
  id: unknown,
  check: { browserSecret?: string; csrf?: unknown; post: boolean },
): Promise<PendingRequest> {
  if (typeof id !== 'string' || id.length > 64) throw gone();
  const row = (await db('oauth_requests').where({ id }).first()) as PendingRequest | undefined;
  if (!row || row.completed_at || new Date(row.expires_at).getTime() <= Date.now()) throw gone();
  if (!check.browserSecret || !sameSecret(sha256(check.browserSecret), row.browser_hash)) throw forged();
  if (check.post && (typeof check.csrf !== 'string' || !sameSecret(sha256(check.csrf), row.csrf_hash))) throw forged();
  return row;
}

/**
 * A fresh CSRF token for the page about to be rendered (only its hash is stored, so each page gets a
 * new one; the previous page's form stops working).
 */
export async function csrfFor(db: Knex, row: PendingRequest): Promise<string> {
  const csrf = randomSecret(24);
  await db('oauth_requests')
    .where({ id: row.id })
    .update({ csrf_hash: sha256(csrf) });
  return csrf;
}

/**
 * Record who signed in. With an API key, the request remembers the key (its grant will end with it)
 * and keeps only the scopes the key carries: a sign-in never obtains more than the credential it used.
 */
export async function setSignedInUser(
  db: Knex | Knex.Transaction,
  id: string,
  userId: string,
  key?: { id: string; scopes: Scope[] },
): Promise<void> {
  await db('oauth_requests')
    .where({ id })
    .update({
      user_id: userId,
      oidc_nonce: null,
      oidc_verifier: null,
      ...(key ? { api_key_id: key.id, scopes: key.scopes } : {}),
    });
}

/** Count a wrong credential; true when the request is now spent. */
export async function recordFailedSignIn(db: Knex, id: string): Promise<boolean> {
  const [row] = await db('oauth_requests').where({ id }).increment('failed_sign_ins', 1).returning('failed_sign_ins');
  const spent = (row?.failed_sign_ins ?? MAX_FAILED_SIGN_INS) >= MAX_FAILED_SIGN_INS;
  if (spent) await db('oauth_requests').where({ id }).update({ completed_at: db.fn.now() });
  return spent;
}

/** Spend the request (consent decided). False when it was spent already (a double submit). */
export async function completePendingRequest(db: Knex | Knex.Transaction, id: string): Promise<boolean> {
  const n = await db('oauth_requests').where({ id }).whereNull('completed_at').update({ completed_at: db.fn.now() });
  return n === 1;
}

export async function startOidcSignIn(
  db: Knex,
  id: string,
  s: { stateHash: string; nonce: string; verifier: string },
): Promise<void> {
  await db('oauth_requests')
    .where({ id })
    .update({ oidc_state_hash: s.stateHash, oidc_nonce: s.nonce, oidc_verifier: s.verifier });
}

export async function findByOidcState(db: Knex, state: unknown): Promise<PendingRequest | undefined> {
  if (typeof state !== 'string' || state.length > 200) return undefined;
  return (await db('oauth_requests')
    .where({ oidc_state_hash: sha256(state) })
    .first()) as PendingRequest | undefined;
}
