/** Who is calling: resolved once per request by a transport's auth, then passed to every core function. */
export type Role = 'member' | 'admin' | 'super_admin';
export type Tier = 'free' | 'pro' | 'business' | 'enterprise';
export const ROLES: readonly Role[] = ['member', 'admin', 'super_admin'];
export const TIERS: readonly Tier[] = ['free', 'pro', 'business', 'enterprise'];
export const FEATURE_FLAGS = ['search', 'fetch'] as const;
export type FeatureFlag = (typeof FEATURE_FLAGS)[number];

export interface Principal {
  userId: string;
  teamId: string;
  email: string;
  name: string;
  role: Role;
  tier: Tier;
  flags: string[];
  /** What the credential may do (core/access requireScope): an OAuth token's granted scopes, an API key's; undefined: everything its user may do. */
  scopes?: string[];
  /**
   * Whether any meeting share names the caller's email (active or not), read with the credential.
   * false lets a meeting list skip looking for other teams' meetings shared with the caller (half of
   * what PostgreSQL plans per list); undefined means unknown, and the list looks.
   */
  sharedWith?: boolean;
  /**
   * Where this call comes from, for the read audit (services/core/audit/reads.ts): set by the transport for
   * one call (an MCP tool call, a GraphQL operation, a page request); core's read functions record the
   * meetings they read into it. Absent: nothing is recorded (automation, the worker).
   */
  reads?: ReadContext;
}

/** One call's read-audit context: its surface (`mcp:<tool>`, `graphql:<field>`, `page:<route>`) and the meetings recorded so far. */
export interface ReadContext {
  surface: string;
  readonly seen: Set<string>;
}

/** SQL for Principal.sharedWith, over a users row aliased `u`. */
export const SHARED_WITH_SQL =
  'exists (select 1 from meeting_shares sw where lower(sw.email) = lower(u.email)) as shared_with';

export const isAdmin = (p: Pick<Principal, 'role'>) => p.role === 'admin' || p.role === 'super_admin';
