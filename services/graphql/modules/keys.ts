/**
 * API keys and sign-ins over GraphQL (docs/operations.md, "API keys and sign-ins"). Everyone manages their own
 * keys (createApiKey shows the key once; apiKeys never shows it) and sees and ends their own
 * sign-ins; team admins, with a key carrying the admin scope, list and revoke any key of their team,
 * list and end a teammate's sign-ins, and deactivate or reactivate teammates. Thin: each resolver
 * calls one function of services/core/people; the rules live in services/core/access/rules.ts.
 */
import {
  createOwnApiKey,
  deactivateUser,
  endSignIns,
  listApiKeys,
  listSignIns,
  reactivateUser,
  revokeApiKey,
  setApiKeyRateLimit,
} from '../../core/people';
import { withFieldPrefix } from '../errors';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import { OPERATION_SCOPES } from '../scopes';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

/**
 * Scopes of these operations: your own keys and sign-ins need only a valid key (a key may not make
 * one carrying more than itself: core checks); acting on teammates needs admin (core checks again,
 * with the role, when a userId other than yours is named).
 */
const OPERATIONS: Record<string, 'admin' | null> = {
  apiKeys: null,
  createApiKey: null,
  revokeApiKey: null,
  signIns: null,
  endSignIns: null,
  teamApiKeys: 'admin',
  setApiKeyRateLimit: 'admin',
  deactivateUser: 'admin',
  reactivateUser: 'admin',
};
for (const [op, scope] of Object.entries(OPERATIONS)) {
  OPERATION_SCOPES.set(op, scope);
  // graphql_operations_total labels these operations by name rather than "other".
  OPERATION_ALLOWLIST.add(op);
}

const typeDefs = /* GraphQL */ `
  extend type Query {
    "API keys, newest first, never the key itself: yours, or (team admins) those of userId."
    apiKeys(userId: ID): [ApiKey!]!
    "Every API key of your team. Team admins, with a key carrying admin."
    teamApiKeys: [ApiKey!]!
    "Live sign-ins (OAuth grants and page sessions): yours, or (team admins) those of userId."
    signIns(userId: ID): [SignIn!]!
  }

  extend type Mutation {
    """
    A new API key of yours, returned in this answer only (store it now). scopes: some of
    meetings:read, meetings:write, admin (default meetings:read and meetings:write), never more than
    the key you call with carries; admin only for team admins. expires: an ISO 8601 date or
    date-time, or a lifetime like 90d, 12h, 30m; default none.
    """
    createApiKey(name: String, scopes: [String!], expires: String): CreatedApiKey!
    """
    Revoke a key by its prefix (yours; team admins: any of the team). The OAuth sign-ins and page
    sessions made with it end at once.
    """
    revokeApiKey(prefix: String!): RevokedApiKey!
    """
    Give a key of your team its own call allowance: perMinute tool calls and operations a minute
    (1 to 1000000), counted across every pod; null gives it back the service's RATE_LIMIT_PER_MINUTE.
    Team admins, with a key carrying admin (a member cannot raise their own). From the next call.
    """
    setApiKeyRateLimit(prefix: String!, perMinute: Int): KeyRateLimit!
    "End sign-ins: the one named by id, else all; yours, or (team admins) those of userId."
    endSignIns(userId: ID, id: ID): EndedSignIns!
    "Deactivate a teammate: every key, OAuth sign-in and page session of theirs ends. Team admins."
    deactivateUser(userId: ID!): UserAccess!
    "Let a deactivated teammate sign in again (their old keys stay revoked). Team admins."
    reactivateUser(userId: ID!): UserAccess!
  }

  type ApiKey {
    id: ID!
    "The public part of the key (mi_<prefix>_…): how listings and revocation name it."
    prefix: String!
    name: String
    user_id: ID!
    user_email: String!
    scopes: [String!]!
    "The key's own call allowance a minute; null: the service's RATE_LIMIT_PER_MINUTE."
    rate_limit_per_minute: Int
    status: ApiKeyStatus!
    created_at: String!
    last_used_at: String
    expires_at: String
    revoked_at: String
  }

  enum ApiKeyStatus {
    active
    expired
    revoked
  }

  type CreatedApiKey {
    "The key, shown this once."
    key: String!
    api_key: ApiKey!
  }

  type RevokedApiKey {
    prefix: String!
    "false when it was revoked already."
    revoked: Boolean!
    grants_ended: Int!
    sessions_ended: Int!
  }

  type SignIn {
    "An OAuth grant id (g_…) or a page session id."
    id: ID!
    kind: SignInKind!
    client_id: String
    client_name: String
    scopes: [String!]!
    "api_key or oidc."
    signed_in_with: String
    api_key_prefix: String
    created_at: String!
    expires_at: String
  }

  enum SignInKind {
    oauth
    page
  }

  type KeyRateLimit {
    prefix: String!
    user_email: String!
    "null: the service's RATE_LIMIT_PER_MINUTE."
    rate_limit_per_minute: Int
  }

  type EndedSignIns {
    grants_ended: Int!
    sessions_ended: Int!
  }

  type UserAccess {
    user_id: ID!
    email: String!
    deactivated_at: String
    keys_revoked: Int!
    grants_ended: Int!
    sessions_ended: Int!
  }
`;

type Ctx = GraphqlContext;
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

const resolvers = {
  Query: {
    apiKeys: (_: unknown, args: { userId?: string | null }, ctx: Ctx) =>
      listApiKeys(ctx.deps.db, ctx.principal, { userId: opt(args.userId) }),
    teamApiKeys: (_: unknown, __: unknown, ctx: Ctx) => listApiKeys(ctx.deps.db, ctx.principal, { team: true }),
    signIns: (_: unknown, args: { userId?: string | null }, ctx: Ctx) =>
      listSignIns(ctx.deps.db, ctx.principal, { userId: opt(args.userId) }),
  },
  Mutation: {
    createApiKey: async (
      _: unknown,
      args: { name?: string | null; scopes?: string[] | null; expires?: string | null },
      ctx: Ctx,
    ) => {
      const created = await createOwnApiKey(ctx.deps.db, ctx.principal, {
        name: opt(args.name),
        scopes: args.scopes,
        expires: args.expires,
      });
      const [record] = (await listApiKeys(ctx.deps.db, ctx.principal)).filter((k) => k.id === created.id);
      return { key: created.key, api_key: record };
    },
    revokeApiKey: (_: unknown, args: { prefix: string }, ctx: Ctx) =>
      revokeApiKey(ctx.deps.db, args.prefix, ctx.principal),
    setApiKeyRateLimit: (_: unknown, args: { prefix: string; perMinute?: number | null }, ctx: Ctx) =>
      setApiKeyRateLimit(ctx.deps.db, ctx.principal, args.prefix, args.perMinute ?? null).catch(
        withFieldPrefix('', { rate_limit_per_minute: 'perMinute' }),
      ),
    endSignIns: (_: unknown, args: { userId?: string | null; id?: string | null }, ctx: Ctx) =>
      endSignIns(ctx.deps.db, ctx.principal, { userId: opt(args.userId), id: opt(args.id) }),
    deactivateUser: (_: unknown, args: { userId: string }, ctx: Ctx) =>
      deactivateUser(ctx.deps.db, ctx.principal, { userId: args.userId }),
    reactivateUser: (_: unknown, args: { userId: string }, ctx: Ctx) =>
      reactivateUser(ctx.deps.db, ctx.principal, { userId: args.userId }),
  },
};

export const keysModule: GraphqlModule = { typeDefs, resolvers };
