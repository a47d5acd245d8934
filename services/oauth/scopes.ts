/** The OAuth scopes of the MCP endpoint: each tool declares one (services/mcp/tool.ts). */
export const SCOPES = ['meetings:read', 'meetings:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** What the consent page tells the user each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'meetings:read': 'Search and read your meetings, transcripts, summaries, channels, soundbites, people and analytics',
  'meetings:write': 'Share, rename, move and change the privacy of meetings you manage, and create soundbites',
};

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/**
 * The scopes of this service named in a space-separated `scope` string or a `scp` array, in canonical
 * order. Other scopes (openid, profile, another API's) are ignored rather than refused: identity
 * providers put them in the same tokens, and MCP clients ask for them.
 */
export function knownScopes(raw: unknown): Scope[] {
  const parts = typeof raw === 'string' ? raw.split(/\s+/) : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
  return SCOPES.filter((s) => parts.includes(s));
}
