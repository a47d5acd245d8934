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
  /** OAuth scopes when the caller signed in with a token; undefined for API keys (all scopes). */
  scopes?: string[];
}

export const isAdmin = (p: Principal) => p.role === 'admin' || p.role === 'super_admin';
