/** GraphQL documents and helpers shared by the webhook tests. */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { GraphqlHarness } from '../../../support/graphql';
import type { ReceivedRequest } from '../../../support/webhook-receiver';

/** Saving a webhook, the user's or the team's, with the events it subscribes to (docs/webhooks-v2.md). */
export const SAVE_EVENTS = `mutation S($url: String!, $events: [String!]) { saveWebhookUrl(url: $url, events: $events) { url events } }`;
export const SET_TEAM_EVENTS = `mutation T($url: String!, $events: [String!]) { setTeamWebhook(url: $url, events: $events) { secret settings { events } } }`;

/** A received request's JSON body. */
export const body = (r: ReceivedRequest) => JSON.parse(r.rawBody.toString());
/** HMAC-SHA256 of the raw body as lowercase hex, computed here rather than by the service's signing code. */
export const hmacHex = (secret: string, raw: Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');

export const SETTINGS_FIELDS =
  'url secret_set previous_secret_expires_at disabled_at disabled_reason updated_at notice';

export const DEVELOPER_SETTINGS = `query { developerSettings { ${SETTINGS_FIELDS} } }`;
export const SAVE_URL = `mutation S($url: String!) { saveWebhookUrl(url: $url) { ${SETTINGS_FIELDS} } }`;
export const CLEAR_URL = `mutation { clearWebhookUrl { ${SETTINGS_FIELDS} } }`;
export const SET_SECRET = `mutation K($secret: String, $generate: Boolean) { setWebhookSecret(secret: $secret, generate: $generate) { secret settings { ${SETTINGS_FIELDS} } } }`;
export const TEAM_WEBHOOK = `query { teamWebhook { ${SETTINGS_FIELDS} } }`;
export const SET_TEAM = `mutation T($url: String!, $secret: String) { setTeamWebhook(url: $url, secret: $secret) { secret settings { ${SETTINGS_FIELDS} } } }`;
export const SET_TEAM_SECRET = `mutation T($secret: String, $generate: Boolean) { setTeamWebhookSecret(secret: $secret, generate: $generate) { secret settings { ${SETTINGS_FIELDS} } } }`;
export const CLEAR_TEAM = `mutation { clearTeamWebhook { ${SETTINGS_FIELDS} } }`;

const DELIVERY_FIELDS =
  'id meeting_id target url status attempts_count redelivery_count payload ready_at delivered_at last_error created_at attempts { attempt_no status_code latency_ms error created_at }';
export const DELIVERIES = `query D($scope: WebhookScope, $meetingId: ID, $status: WebhookDeliveryStatus, $limit: Int, $cursor: String) {
  webhookDeliveries(scope: $scope, meetingId: $meetingId, status: $status, limit: $limit, cursor: $cursor) { has_more next_cursor deliveries { ${DELIVERY_FIELDS} } }
}`;
export const DELIVERY = `query D($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;
export const REDELIVER = `mutation R($deliveryId: ID!) { redeliverWebhook(deliveryId: $deliveryId) { ${DELIVERY_FIELDS} } }`;

/** The data of a successful operation (fails the test with the first error otherwise). */
export async function ok(
  gql: GraphqlHarness,
  key: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<any> {
  const res = await gql.request(key, query, variables);
  if (res.body.errors?.length) throw new Error(`unexpected GraphQL error: ${JSON.stringify(res.body.errors[0])}`);
  return res.body.data;
}

/** The first error of an operation that must fail. */
export async function refused(gql: GraphqlHarness, key: string, query: string, variables?: Record<string, unknown>) {
  const res = await gql.request(key, query, variables);
  expect(res.body.errors?.length).toBeGreaterThan(0);
  return res.body.errors![0];
}

/** Poll until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Wait until a delivery leaves `pending`; returns its row. */
export function settled(db: Knex, deliveryId: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const row = await db('webhook_deliveries').where({ id: deliveryId }).first();
      return row && row.status !== 'pending' ? row : undefined;
    },
    timeoutMs,
    `delivery ${deliveryId} settling`,
  );
}
