/**
 * Dynamic client registration (RFC 7591). Every client is public: it proves itself with PKCE at the
 * token endpoint, never with a secret, so registration hands out only a client id. A client asking
 * for another token_endpoint_auth_method is registered as `none` (RFC 7591 §3.2.1 lets the server
 * replace requested values), which is what MCP clients expect of a server that issues no secrets.
 */
import type { Knex } from 'knex';
import { z } from 'zod';
import { audit } from '../core/audit';
import { randomSecret } from './crypto';
import { OAuthError } from './errors';
import { knownScopes } from './scopes';

export interface ClientRow {
  id: string;
  client_name: string | null;
  redirect_uris: string[];
  scope: string | null;
  metadata: Record<string, unknown>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes that would run or read something in the browser instead of handing the code to an app. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);

/** Why a redirect URI is refused, or undefined when it is acceptable (OAuth 2.1 §2.3.1, RFC 8252 §7). */
export function redirectUriProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || raw.includes('#')) return 'must not contain a fragment';
  if (u.username || u.password) return 'must not contain user information';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:')
    return LOOPBACK.has(u.hostname) ? undefined : 'must use https (plain http only for localhost, 127.0.0.1 or [::1])';
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `must not use the ${u.protocol} scheme`;
  return undefined; // a private-use scheme of a native app (RFC 8252 §7.1), e.g. cursor://
}

/**
 * Whether a requested redirect URI matches a registered one: exactly, or, for a loopback redirect
 * (plain http to localhost, 127.0.0.1 or [::1]), with any port (RFC 8252 §7.3, OAuth 2.1 §8.4.2: a
 * native app listens on whatever port is free when it runs). Scheme, host, path and query stay exact;
 * https and every other host must match exactly, port included.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  let r: URL;
  let q: URL;
  try {
    r = new URL(registered);
    q = new URL(requested);
  } catch {
    return false;
  }
  if (r.protocol !== 'http:' || q.protocol !== 'http:' || !LOOPBACK.has(r.hostname)) return false;
  if (requested.includes('#') || q.username || q.password) return false;
  return q.hostname === r.hostname && q.pathname === r.pathname && q.search === r.search;
}

const uri = z.string().max(2000, 'at most 2000 characters');
const RegistrationSchema = z.object({
  redirect_uris: z.array(uri).min(1, 'at least one redirect URI').max(10, 'at most 10 redirect URIs'),
  client_name: z.string().max(200, 'at most 200 characters').optional(),
  client_uri: uri.optional(),
  logo_uri: uri.optional(),
  tos_uri: uri.optional(),
  policy_uri: uri.optional(),
  software_id: z.string().max(200, 'at most 200 characters').optional(),
  software_version: z.string().max(200, 'at most 200 characters').optional(),
  contacts: z.array(z.string().max(320)).max(10).optional(),
  scope: z.string().max(1000, 'at most 1000 characters').optional(),
  grant_types: z.array(z.string()).max(10).optional(),
  response_types: z.array(z.string()).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
});

const GRANT_TYPES = ['authorization_code', 'refresh_token'];

function metadataError(message: string): OAuthError {
  return new OAuthError('invalid_client_metadata', message, 'invalid_client_metadata');
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope?: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
}

export async function registerClient(db: Knex, body: unknown): Promise<RegisteredClient> {
  const parsed = RegistrationSchema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw metadataError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const m = parsed.data;
  for (const r of m.redirect_uris) {
    const problem = redirectUriProblem(r);
    if (problem)
      throw new OAuthError(
        'invalid_redirect_uri',
        `redirect URI ${JSON.stringify(r)} ${problem}`,
        'invalid_redirect_uri',
      );
  }
  const unsupported = (m.grant_types ?? []).filter((g) => !GRANT_TYPES.includes(g));
  if (unsupported.length)
    throw metadataError(
      `grant_types: ${unsupported.join(', ')} not supported; use authorization_code and refresh_token`,
    );
  if ((m.response_types ?? []).some((t) => t !== 'code')) throw metadataError('response_types: only code is supported');
  const scope = m.scope !== undefined ? knownScopes(m.scope).join(' ') || undefined : undefined;

  const client: RegisteredClient = {
    client_id: `mcp_${randomSecret(16)}`,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: m.client_name,
    redirect_uris: m.redirect_uris,
    grant_types: GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
    client_uri: m.client_uri,
    software_id: m.software_id,
    software_version: m.software_version,
  };
  await db.transaction(async (tx) => {
    await tx('oauth_clients').insert({
      id: client.client_id,
      client_name: client.client_name ?? null,
      redirect_uris: client.redirect_uris,
      scope: client.scope ?? null,
      metadata: JSON.stringify(client),
    });
    await audit(
      tx,
      null,
      'oauth.client_register',
      { type: 'oauth_client', id: client.client_id },
      { client_name: client.client_name ?? null, redirect_uris: client.redirect_uris },
    );
  });
  return client;
}

export async function findClient(db: Knex, clientId: string | undefined): Promise<ClientRow | undefined> {
  if (!clientId || clientId.length > 200) return undefined;
  return db<ClientRow>('oauth_clients').where({ id: clientId }).first();
}
