import { CREDENTIAL_SCOPES, scopesOfUser, type CredentialScope, type Principal } from '../core/access';

/**
 * The OAuth scopes of the MCP endpoint, the credential scopes of core/access: each tool declares
 * meetings:read or meetings:write (services/mcp/tool.ts); `admin` is what team administration asks of
 * any credential (requireAdmin), granted only to team admins (scopesOfUser).
 */
export const SCOPES = CREDENTIAL_SCOPES;
export type Scope = CredentialScope;

/** What the consent page tells the user each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'meetings:read': 'Search and read your meetings, transcripts, summaries, channels, soundbites, people and analytics',
  'meetings:write': 'Share, rename, move and change the privacy of meetings you manage, and create soundbites',
  admin:
    "Administer your team as you can: automation rules and their logs, teammates' live meetings, retention and legal holds",
};

/** The scopes of a request this user can be granted: `admin` only for a team admin. */
export function grantableScopes(scopes: readonly Scope[], user: Principal): Scope[] {
  const allowed = scopesOfUser(user);
  return scopes.filter((s) => allowed.includes(s));
}

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/**
 * The scopes of this service named in a space-separated `scope` string or a `scp` array, in canonical
 * order. Other scopes (openid, profile, another API's) are ignored rather than refused: identity
 * providers put them in the same tokens, and MCP clients ask for them.
 */
export function knownScopes(raw: unknown): Scope[] {
  const parts =
    typeof raw === 'string'
      ? raw.split(/\s+/)
      : Array.isArray(raw)
        ? raw.filter((s): s is string => typeof s === 'string')
        : [];
  return SCOPES.filter((s) => parts.includes(s));
}
