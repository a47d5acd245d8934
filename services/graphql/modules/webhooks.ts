/**
 * Webhooks over GraphQL (docs/webhooks.md): the signed-in user's developer settings (webhook URL and
 * secret), the team-wide webhook (super admins of Enterprise teams), and the delivery ledger with
 * redelivery. Thin: each resolver calls one function of services/core/webhooks with the caller's
 * principal; every rule and limit lives there.
 */
import {
  clearTeamWebhook,
  clearWebhookUrl,
  getDeveloperSettings,
  getTeamWebhook,
  getWebhookDelivery,
  listWebhookDeliveries,
  redeliverWebhook,
  saveWebhookUrl,
  setTeamWebhook,
  setTeamWebhookSecret,
  setWebhookSecret,
} from '../../core/webhooks';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

const OPERATIONS = [
  'developerSettings',
  'saveWebhookUrl',
  'clearWebhookUrl',
  'setWebhookSecret',
  'teamWebhook',
  'setTeamWebhook',
  'setTeamWebhookSecret',
  'clearTeamWebhook',
  'webhookDeliveries',
  'webhookDelivery',
  'redeliverWebhook',
];
// graphql_operations_total labels these operations by name rather than "other".
for (const op of OPERATIONS) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Query {
    "Your developer settings: the saved webhook URL and whether a secret is set (never the secret)."
    developerSettings: WebhookSettings!
    "Your team's team-wide webhook. Enterprise tier; super admins."
    teamWebhook: WebhookSettings!
    """
    Webhook deliveries, newest first, with their attempts. scope user (default): your per-upload and
    saved webhooks; scope team: the team-wide webhook (Enterprise tier, super admins). limit is 1 to
    50 (default 10); page with cursor = next_cursor while has_more is true.
    """
    webhookDeliveries(
      scope: WebhookScope
      meetingId: ID
      status: WebhookDeliveryStatus
      limit: Int
      cursor: String
    ): WebhookDeliveryPage!
    "One delivery with its attempts."
    webhookDelivery(id: ID!): WebhookDelivery!
  }

  extend type Mutation {
    """
    Save your webhook URL: a valid https URL, notified when a transcript of a meeting you organize is
    ready. Saving it again re-enables a webhook disabled by a 410 answer. events: what it is sent
    (default, and until chosen: the V1 Transcription completed); any of Transcription completed,
    meeting.transcribed, meeting.summarized, action_items.created, meeting.failed, meeting.deleted,
    transcript.updated, action_item.updated (docs/webhooks-v2.md).
    """
    saveWebhookUrl(url: String!, events: [String!]): WebhookSettings!
    "Stop your saved webhook (the secret stays: it still signs your per-upload webhooks)."
    clearWebhookUrl: WebhookSettings!
    """
    Set the secret that signs your webhooks (x-hub-signature): either secret, a custom one of 16 to 32
    characters, or generate: true for a random one, returned in this answer only. The secret it
    replaces keeps signing alongside (x-hub-signature-previous) for WEBHOOK_SECRET_OVERLAP.
    """
    setWebhookSecret(secret: String, generate: Boolean): WebhookSecretResult!
    """
    Set the team-wide webhook, notified for every meeting your team owns (Enterprise tier, super
    admins). It is always signed: with secret when given, else its current secret, else a generated
    one returned in this answer only.
    """
    setTeamWebhook(url: String!, secret: String, events: [String!]): WebhookSecretResult!
    "Rotate the team-wide webhook's secret, as setWebhookSecret does for yours."
    setTeamWebhookSecret(secret: String, generate: Boolean): WebhookSecretResult!
    "Stop the team-wide webhook."
    clearTeamWebhook: WebhookSettings!
    """
    Send a delivery again: a new run with the same delivery id (x-delivery-id) and the same payload,
    on the full retry schedule; a delivery still waiting to retry is retried now.
    """
    redeliverWebhook(deliveryId: ID!): WebhookDelivery!
  }

  type WebhookSettings {
    url: String
    secret_set: Boolean!
    "While a rotated-out secret still signs alongside the new one: when it stops (ISO 8601)."
    previous_secret_expires_at: String
    "Set when the receiver answered 410 Gone; saving the URL again clears it."
    disabled_at: String
    disabled_reason: String
    updated_at: String
    "The events it is sent: Transcription completed (V1) unless chosen otherwise."
    events: [String!]!
    "What keeps this webhook from firing, if anything."
    notice: String
  }

  type WebhookSecretResult {
    settings: WebhookSettings!
    "A generated secret, shown this once (store it now); null when you chose the secret."
    secret: String
  }

  enum WebhookScope {
    user
    team
  }

  enum WebhookTarget {
    "The webhook given with uploadAudio, for that upload only."
    upload
    "Your saved webhook, for meetings you organize."
    owner
    "The team-wide webhook."
    team
  }

  enum WebhookDeliveryStatus {
    pending
    delivered
    failed
    "The receiver answered 410 Gone: no more attempts."
    disabled
    "Not sent (no secret, endpoint disabled or cleared, tier); last_error says why."
    skipped
  }

  type WebhookAttempt {
    attempt_no: Int!
    "The receiver's HTTP status; null when there was no answer (timeout, connection refused)."
    status_code: Int
    latency_ms: Int
    error: String
    created_at: String!
  }

  type WebhookDelivery {
    "The delivery id, sent as x-delivery-id (and webhook-id) on every attempt."
    id: ID!
    meeting_id: ID!
    target: WebhookTarget!
    "Transcription completed (V1), or a V2 event (docs/webhooks-v2.md): meeting.transcribed, meeting.summarized, action_items.created, meeting.failed, meeting.deleted, transcript.updated, action_item.updated."
    event: String!
    url: String!
    status: WebhookDeliveryStatus!
    attempts_count: Int!
    redelivery_count: Int!
    "The exact JSON body sent and signed."
    payload: String!
    "When the transcript was ready."
    ready_at: String!
    delivered_at: String
    last_error: String
    created_at: String!
    "The latest 50 attempts, oldest first."
    attempts: [WebhookAttempt!]!
  }

  type WebhookDeliveryPage {
    deliveries: [WebhookDelivery!]!
    has_more: Boolean!
    next_cursor: String
  }
`;

/** GraphQL passes absent optional arguments as missing and explicit nulls as null; core wants neither. */
function given<T extends object>(args: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

interface SecretArgs {
  secret?: string | null;
  generate?: boolean | null;
}

interface DeliveriesArgs {
  scope?: 'user' | 'team' | null;
  meetingId?: string | null;
  status?: string | null;
  limit?: number | null;
  cursor?: string | null;
}

const resolvers = {
  Query: {
    developerSettings: (_: unknown, __: unknown, ctx: GraphqlContext) =>
      getDeveloperSettings(ctx.deps.db, ctx.principal),
    teamWebhook: (_: unknown, __: unknown, ctx: GraphqlContext) => getTeamWebhook(ctx.deps.db, ctx.principal),
    webhookDeliveries: (_: unknown, args: DeliveriesArgs, ctx: GraphqlContext) =>
      listWebhookDeliveries(ctx.deps.db, ctx.principal, given(args)),
    webhookDelivery: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      getWebhookDelivery(ctx.deps.db, ctx.principal, args.id),
  },
  Mutation: {
    saveWebhookUrl: (_: unknown, args: { url: string; events?: string[] | null }, ctx: GraphqlContext) =>
      saveWebhookUrl(ctx.deps, ctx.principal, args.url, args.events),
    clearWebhookUrl: (_: unknown, __: unknown, ctx: GraphqlContext) => clearWebhookUrl(ctx.deps.db, ctx.principal),
    setWebhookSecret: (_: unknown, args: SecretArgs, ctx: GraphqlContext) =>
      setWebhookSecret(ctx.deps, ctx.principal, args),
    setTeamWebhook: (
      _: unknown,
      args: { url: string; secret?: string | null; events?: string[] | null },
      ctx: GraphqlContext,
    ) => setTeamWebhook(ctx.deps, ctx.principal, args),
    setTeamWebhookSecret: (_: unknown, args: SecretArgs, ctx: GraphqlContext) =>
      setTeamWebhookSecret(ctx.deps, ctx.principal, args),
    clearTeamWebhook: (_: unknown, __: unknown, ctx: GraphqlContext) => clearTeamWebhook(ctx.deps.db, ctx.principal),
    redeliverWebhook: (_: unknown, args: { deliveryId: string }, ctx: GraphqlContext) =>
      redeliverWebhook(ctx.deps, ctx.principal, args.deliveryId),
  },
};

export const webhooksModule: GraphqlModule = { typeDefs, resolvers };
