/**
 * WebhookDeliveryWorkflow against a real https receiver on 127.0.0.1, a real Temporal dev server and
 * PostgreSQL, with a short retry schedule (WEBHOOK_RETRY_SCHEDULE=0s,200ms,400ms): signatures verified
 * the way a consumer would (raw body, the secret, crypto.timingSafeEqual), the exact payload, retries
 * with one delivery id, the ledger, 410, Retry-After, redirects, secrets rotating, the SSRF guard at
 * send time, redelivery and the paged ledger over GraphQL.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { parseRetryAfter } from '../../../../services/core/webhooks/sender';
import { saveWebhookUrl, setWebhookSecret, type WebhookDeliveryInput } from '../../../../services/core/webhooks';
import { prepareDeliveries, type PreparedDelivery } from '../../../../workflows/activities/webhooks';
import { webhookWorkflowId } from '../../../../workflows/contracts';
import { registry } from '../../../../services/platform/metrics';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { startTestWorker, TestWorker } from '../../../support/worker';
import { ReceivedRequest, startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { DELIVERIES, DELIVERY, ok, REDELIVER, refused, settled } from './support';

const SCHEDULE = '0s,200ms,400ms';

/** What a consumer runs: HMAC-SHA256 of the raw body with the secret, compared in constant time. */
function consumerVerifies(secret: string, raw: Buffer, header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The Standard Webhooks check, written out: base64 HMAC of "id.timestamp.body". */
function standardVerifies(secret: string, r: ReceivedRequest): boolean {
  const id = r.headers['webhook-id'] as string;
  const ts = r.headers['webhook-timestamp'] as string;
  const expected = createHmac('sha256', secret)
    .update(`${id}.${ts}.${r.rawBody.toString('utf8')}`)
    .digest('base64');
  return String(r.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((entry) => entry === `v1,${expected}`);
}

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const values = (m?.values ?? []) as { value: number; labels: Record<string, string | number>; metricName?: string }[];
  return values
    .filter((v) => (name.endsWith('_seconds') ? v.metricName === `${name}_count` : true))
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((a, v) => a + v.value, 0);
}

describe('WebhookDeliveryWorkflow', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let guarded: TestWorker;
  let rx: WebhookReceiver;
  let client: Client;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  const queue = testTaskQueue('webhooks');
  const guardedQueue = testTaskQueue('webhooks-guarded');

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db, { tier: 'enterprise' });
    rx = await startWebhookReceiver();
    const env = { WEBHOOK_RETRY_SCHEDULE: SCHEDULE, WEBHOOK_TIMEOUT: '2s' };
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
    client = gql.temporal;
    worker = await startTestWorker(t.db, { taskQueue: queue, env });
    // A worker with production's address policy: private addresses refused at send time.
    guarded = await startTestWorker(t.db, { taskQueue: guardedQueue, env: { ...env, ALLOW_PRIVATE_NETWORK: 'false' } });
  });
  afterAll(async () => {
    await guarded?.stop();
    await worker?.stop();
    await gql?.close();
    await rx?.close();
    await t?.drop();
  });

  /** A user whose saved webhook points at the receiver's `path`, with `secret` when given. */
  async function subscriber(path: string, secret?: string): Promise<TestUser> {
    const u = await makeUser(t.db, team);
    await saveWebhookUrl({ db: t.db, config: gql.config }, u.principal, rx.url(path));
    if (secret) await setWebhookSecret({ db: t.db, config: gql.config }, u.principal, { secret });
    return u;
  }

  async function meetingOf(organizer: TestUser, extra: Record<string, unknown> = {}) {
    const { id } = await makeMeeting(t.db, { organizer });
    if (Object.keys(extra).length) await t.db('meetings').where({ id }).update(extra);
    return id;
  }

  /** What the transcription's post-processing does: prepare the deliveries, start one run each. */
  async function deliver(meetingId: string, taskQueue = queue): Promise<PreparedDelivery[]> {
    const prepared = await prepareDeliveries(t.db, worker.config, meetingId);
    for (const p of prepared) {
      await client.workflow.start('WebhookDeliveryWorkflow', { taskQueue, workflowId: p.workflowId, args: [p.input] });
    }
    return prepared;
  }

  const result = (p: PreparedDelivery) => client.workflow.getHandle(p.workflowId).result();
  const attempts = (deliveryId: string) =>
    t.db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt_no');

  it('signs the exact bytes it sends: x-hub-signature and the Standard Webhooks signature verify with the secret', async () => {
    const secret = 'consumer-secret-1234';
    const ana = await subscriber('/ana', secret);
    const meetingId = await meetingOf(ana, { client_reference_id: 'crm-7' });
    const deliveredBefore = await metric('webhook_deliveries_total', { outcome: 'delivered' });
    const readyBefore = await metric('webhook_ready_to_delivered_seconds');

    const [p] = await deliver(meetingId);
    expect(p.workflowId).toBe(webhookWorkflowId(meetingId, 'owner'));
    expect(await result(p)).toEqual({ deliveryId: p.input.deliveryId, status: 'delivered', attempts: 1 });

    const [r] = await rx.waitFor('/ana', 1);
    expect(rx.requests('/ana')).toHaveLength(1);
    expect(r.method).toBe('POST');
    expect(r.rawBody.toString('utf8')).toBe(
      `{"meetingId":"${meetingId}","eventType":"Transcription completed","clientReferenceId":"crm-7"}`,
    );
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toMatch(/^meeting-intelligence-webhooks\//);
    expect(r.headers['x-delivery-id']).toBe(p.input.deliveryId);
    expect(r.headers['x-delivery-attempt']).toBe('1');
    expect(Math.abs(Number(r.headers['x-delivery-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(consumerVerifies(secret, r.rawBody, r.headers['x-hub-signature'])).toBe(true);
    expect(r.headers['x-hub-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers['x-hub-signature-previous']).toBeUndefined();
    expect(r.headers['webhook-id']).toBe(p.input.deliveryId);
    expect(r.headers['webhook-timestamp']).toBe(r.headers['x-delivery-timestamp']);
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(standardVerifies(secret, r)).toBe(true);
    // A wrong secret or a changed body does not verify.
    expect(consumerVerifies('another-secret-12345', r.rawBody, r.headers['x-hub-signature'])).toBe(false);
    expect(
      consumerVerifies(
        secret,
        Buffer.from(r.rawBody.toString().replace('crm-7', 'crm-8')),
        r.headers['x-hub-signature'],
      ),
    ).toBe(false);

    const row = await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first();
    expect(row).toMatchObject({
      status: 'delivered',
      attempts_count: 1,
      target: 'owner',
      user_id: ana.id,
      last_error: null,
      url: rx.url('/ana'),
    });
    expect(row.payload).toBe(r.rawBody.toString('utf8'));
    expect(row.delivered_at).not.toBeNull();
    const [a] = await attempts(p.input.deliveryId);
    expect(a).toMatchObject({ attempt_no: 1, status_code: 200, error: null });
    expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await metric('webhook_deliveries_total', { outcome: 'delivered' })).toBe(deliveredBefore + 1);
    expect(await metric('webhook_ready_to_delivered_seconds')).toBe(readyBefore + 1);
  });

  it('leaves clientReferenceId out when the upload set none', async () => {
    const u = await subscriber('/no-ref', 'consumer-secret-1234');
    const meetingId = await meetingOf(u);
    const [p] = await deliver(meetingId);
    await result(p);
    const [r] = await rx.waitFor('/no-ref', 1);
    expect(JSON.parse(r.rawBody.toString())).toEqual({ meetingId, eventType: 'Transcription completed' });
  });

  it('receiver down for the first attempts, then up: delivered once, the same delivery id on every attempt, every attempt in the ledger', async () => {
    const secret = 'retry-secret-123456';
    const u = await subscriber('/flaky', secret);
    rx.script('/flaky', ['reset', 503, 200]);
    const attemptsBefore = await metric('webhook_attempts_total');
    const [p] = await deliver(await meetingOf(u));
    expect(await result(p)).toMatchObject({ status: 'delivered', attempts: 3 });

    const seen = rx.requests('/flaky');
    expect(seen.map((r) => r.answered)).toEqual(['reset', 503, 200]);
    expect(new Set(seen.map((r) => r.headers['x-delivery-id']))).toEqual(new Set([p.input.deliveryId]));
    expect(seen.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
    for (const r of seen) expect(consumerVerifies(secret, r.rawBody, r.headers['x-hub-signature'])).toBe(true);
    // Same bytes every time; the waits follow the schedule (200 ms, then 400 ms, plus up to 10%).
    expect(new Set(seen.map((r) => r.rawBody.toString())).size).toBe(1);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(190);
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(390);

    const rows = await attempts(p.input.deliveryId);
    expect(rows.map((a) => [a.attempt_no, a.status_code])).toEqual([
      [1, null],
      [2, 503],
      [3, 200],
    ]);
    expect(rows[0].error).toMatch(/^webhook: could not connect to 127\.0\.0\.1:\d+ \(ECONNRESET\)$/);
    expect(rows[1].error).toBe('receiver answered 503');
    expect(rows[2].error).toBeNull();
    expect(await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first()).toMatchObject({
      status: 'delivered',
      attempts_count: 3,
      last_error: null,
    });
    expect(await metric('webhook_attempts_total')).toBe(attemptsBefore + 3);
  });

  it('receiver failing for ever: failed after the schedule, with every attempt recorded, and nothing more', async () => {
    const u = await subscriber('/down', 'failing-secret-12345');
    rx.script('/down', [500]);
    const failedBefore = await metric('webhook_deliveries_total', { outcome: 'failed' });
    const [p] = await deliver(await meetingOf(u));
    expect(await result(p)).toEqual({ deliveryId: p.input.deliveryId, status: 'failed', attempts: 3 });
    const row = await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first();
    expect(row).toMatchObject({
      status: 'failed',
      attempts_count: 3,
      last_error: 'receiver answered 500',
      delivered_at: null,
    });
    expect((await attempts(p.input.deliveryId)).map((a) => a.status_code)).toEqual([500, 500, 500]);
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.requests('/down')).toHaveLength(3);
    expect(await metric('webhook_deliveries_total', { outcome: 'failed' })).toBe(failedBefore + 1);
  });

  it('a 410: no more attempts, the saved endpoint is disabled, later meetings are skipped until the URL is saved again', async () => {
    const u = await subscriber('/gone', 'gone-secret-1234567');
    rx.script('/gone', [410, 200]);
    const [p] = await deliver(await meetingOf(u));
    expect(await result(p)).toMatchObject({ status: 'disabled', attempts: 1 });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.requests('/gone')).toHaveLength(1);
    expect(await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first()).toMatchObject({
      status: 'disabled',
      attempts_count: 1,
    });
    const ep = await t.db('webhook_endpoints').where({ scope: 'user', user_id: u.id }).first();
    expect(ep.disabled_at).not.toBeNull();
    expect(ep.disabled_reason).toContain('410');
    expect(
      await t.db('audit_log').where({ action: 'webhook.endpoint_disabled', target_id: ep.id }).count({ n: '*' }),
    ).toEqual([{ n: '1' }]);

    const later = await meetingOf(u);
    expect(await deliver(later)).toEqual([]);
    const skipped = await t.db('webhook_deliveries').where({ meeting_id: later }).first();
    expect(skipped).toMatchObject({ target: 'owner', status: 'skipped' });
    expect(skipped.last_error).toMatch(/disabled/);
    const settings = (await ok(gql, u.key, 'query { developerSettings { disabled_at notice } }')).developerSettings;
    expect(settings.notice).toMatch(/^Disabled: .*410.*Save the URL again/);

    await ok(gql, u.key, 'mutation S($url: String!) { saveWebhookUrl(url: $url) { url } }', { url: rx.url('/gone') });
    const [again] = await deliver(await meetingOf(u));
    expect(await result(again)).toMatchObject({ status: 'delivered' });
  });

  it('honours Retry-After in seconds, capped at the longest delay of the schedule', async () => {
    const u = await subscriber('/busy', 'busy-secret-12345678');
    rx.script('/busy', [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '3600' } },
      200,
    ]);
    const meetingId = await meetingOf(u);
    const [p] = await prepareDeliveries(t.db, worker.config, meetingId);
    const input: WebhookDeliveryInput = { ...p.input, scheduleMs: [0, 100, 1500] };
    await client.workflow.start('WebhookDeliveryWorkflow', {
      taskQueue: queue,
      workflowId: p.workflowId,
      args: [input],
    });
    expect(await result(p)).toMatchObject({ status: 'delivered', attempts: 3 });
    const seen = rx.requests('/busy');
    // 1 s asked for, although the schedule said 100 ms.
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
    // An hour asked for: capped at the schedule's longest delay (1.5 s, up to 10% jitter).
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(1450);
    expect(seen[2].at - seen[1].at).toBeLessThan(10_000);
  });

  it('counts a 2xx only within WEBHOOK_TIMEOUT (2 s here): a later one is a timeout and retried; a large answer is cut and dropped', async () => {
    const u = await subscriber('/slowpoke', 'slowpoke-secret-1234');
    rx.script('/slowpoke', [
      { status: 200, delayMs: 3000 },
      { status: 200, delayMs: 1000, body: 'x'.repeat(1_000_000) },
    ]);
    const timeoutsBefore = await metric('webhook_attempts_total', { result: 'timeout' });
    const [p] = await deliver(await meetingOf(u));
    expect(await result(p)).toMatchObject({ status: 'delivered', attempts: 2 });
    const rows = await attempts(p.input.deliveryId);
    expect(rows.map((a) => [a.status_code, a.error])).toEqual([
      [null, 'webhook: no complete answer within 2 s'],
      [200, null],
    ]);
    expect(rows[0].latency_ms).toBeGreaterThanOrEqual(1900);
    expect(rows[1].latency_ms).toBeGreaterThanOrEqual(900);
    expect(await metric('webhook_attempts_total', { result: 'timeout' })).toBe(timeoutsBefore + 1);
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-02T15:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Mon, 02 Nov 2026 15:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 02 Nov 2026 14:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 3_600_000);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
  });

  it('follows no redirect: a 3xx is a failed attempt, recorded, and the Location is never called', async () => {
    const u = await subscriber('/moved', 'moved-secret-1234567');
    rx.script('/moved', [{ status: 302, headers: { location: rx.url('/elsewhere') } }]);
    const [p] = await deliver(await meetingOf(u));
    expect(await result(p)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(rx.requests('/elsewhere')).toHaveLength(0);
    const rows = await attempts(p.input.deliveryId);
    expect(rows.map((a) => a.status_code)).toEqual([302, 302, 302]);
    expect(rows[0].error).toBe('receiver answered 302 (redirects are not followed: save the final URL)');
  });

  it('signs with both secrets while a rotated-out secret overlaps, and with the new one only afterwards', async () => {
    const u = await subscriber('/rotating', 'old-secret-123456789');
    await setWebhookSecret({ db: t.db, config: gql.config }, u.principal, { secret: 'new-secret-987654321' });
    const [p] = await deliver(await meetingOf(u));
    await result(p);
    const [r] = await rx.waitFor('/rotating', 1);
    expect(consumerVerifies('new-secret-987654321', r.rawBody, r.headers['x-hub-signature'])).toBe(true);
    expect(consumerVerifies('old-secret-123456789', r.rawBody, r.headers['x-hub-signature-previous'])).toBe(true);
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardVerifies('new-secret-987654321', r)).toBe(true);
    expect(standardVerifies('old-secret-123456789', r)).toBe(true);

    await t
      .db('webhook_endpoints')
      .where({ scope: 'user', user_id: u.id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
    const [q] = await deliver(await meetingOf(u));
    await result(q);
    const [, r2] = await rx.waitFor('/rotating', 2);
    expect(consumerVerifies('new-secret-987654321', r2.rawBody, r2.headers['x-hub-signature'])).toBe(true);
    expect(r2.headers['x-hub-signature-previous']).toBeUndefined();
    expect(String(r2.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerifies('old-secret-123456789', r2)).toBe(false);
  });

  it('never sends a saved webhook unsigned: without a secret the delivery is recorded skipped', async () => {
    const skippedBefore = await metric('webhook_deliveries_total', { outcome: 'skipped' });
    const u = await subscriber('/unsigned');
    const meetingId = await meetingOf(u);
    expect(await deliver(meetingId)).toEqual([]);
    const row = await t.db('webhook_deliveries').where({ meeting_id: meetingId }).first();
    expect(row).toMatchObject({ target: 'owner', status: 'skipped', attempts_count: 0 });
    expect(row.last_error).toMatch(/no webhook secret is set/);
    expect(rx.requests('/unsigned')).toHaveLength(0);
    expect(await metric('webhook_deliveries_total', { outcome: 'skipped' })).toBe(skippedBefore + 1);
    // Preparing again (a retried activity) makes no second row.
    await deliver(meetingId);
    expect(await t.db('webhook_deliveries').where({ meeting_id: meetingId }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('sends a per-upload webhook unsigned when the uploader has no secret, signed with it when they have one', async () => {
    const plain = await makeUser(t.db, team);
    const m1 = await meetingOf(plain, { upload_webhook: rx.url('/upload-plain') });
    const [p1] = await deliver(m1);
    expect(p1.input.target).toBe('upload');
    expect(await result(p1)).toMatchObject({ status: 'delivered' });
    const [r1] = await rx.waitFor('/upload-plain', 1);
    expect(r1.headers['x-hub-signature']).toBeUndefined();
    expect(r1.headers['webhook-signature']).toBeUndefined();
    expect(r1.headers['x-delivery-id']).toBe(p1.input.deliveryId);

    await setWebhookSecret({ db: t.db, config: gql.config }, plain.principal, { secret: 'uploader-secret-1234' });
    const m2 = await meetingOf(plain, { upload_webhook: rx.url('/upload-signed') });
    const [p2] = await deliver(m2);
    await result(p2);
    const [r2] = await rx.waitFor('/upload-signed', 1);
    expect(consumerVerifies('uploader-secret-1234', r2.rawBody, r2.headers['x-hub-signature'])).toBe(true);
  });

  it('applies the SSRF guard at send time: a worker without ALLOW_PRIVATE_NETWORK never reaches 127.0.0.1', async () => {
    const u = await subscriber('/private', 'private-secret-12345');
    const [p] = await deliver(await meetingOf(u), guardedQueue);
    expect(await result(p)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(rx.requests('/private')).toHaveLength(0);
    const rows = await attempts(p.input.deliveryId);
    expect(rows).toHaveLength(3);
    expect(rows[0].status_code).toBeNull();
    expect(rows[0].error).toMatch(/^webhook: resolves to a private address \(127\.0\.0\.1, loopback\)/);
  });

  describe('ledger and redelivery over GraphQL', () => {
    let owner: TestUser;
    let other: TestUser;
    const ids: string[] = [];

    beforeAll(async () => {
      owner = await subscriber('/ledger', 'ledger-secret-123456');
      other = await subscriber('/other', 'other-secret-1234567');
      rx.script('/ledger', [503, 200]);
      for (let i = 0; i < 3; i++) {
        const [p] = await deliver(await meetingOf(owner, { client_reference_id: `ref-${i}` }));
        await result(p);
        ids.push(p.input.deliveryId);
      }
    });

    it("lists the caller's deliveries newest first with their attempts, page by page", async () => {
      const first = (await ok(gql, owner.key, DELIVERIES, { limit: 2 })).webhookDeliveries;
      expect(first.deliveries.map((d: any) => d.id)).toEqual([ids[2], ids[1]]);
      expect(first.has_more).toBe(true);
      const oldest = (await ok(gql, owner.key, DELIVERIES, { limit: 2, cursor: first.next_cursor })).webhookDeliveries;
      expect(oldest.deliveries.map((d: any) => d.id)).toEqual([ids[0]]);
      expect(oldest).toMatchObject({ has_more: false, next_cursor: null });
      const d0 = oldest.deliveries[0];
      expect(d0).toMatchObject({
        target: 'owner',
        status: 'delivered',
        attempts_count: 2,
        redelivery_count: 0,
        url: rx.url('/ledger'),
        last_error: null,
      });
      expect(JSON.parse(d0.payload)).toMatchObject({
        eventType: 'Transcription completed',
        clientReferenceId: 'ref-0',
      });
      expect(d0.attempts.map((a: any) => [a.attempt_no, a.status_code, a.error])).toEqual([
        [1, 503, 'receiver answered 503'],
        [2, 200, null],
      ]);
      expect(typeof d0.attempts[0].latency_ms).toBe('number');
      // Another user sees none of them.
      expect(
        (await ok(gql, other.key, DELIVERIES, {})).webhookDeliveries.deliveries.map((d: any) => d.id),
      ).not.toContain(ids[0]);
    });

    it('filters by meeting and status, and takes limit 1 to 50', async () => {
      const meetingId = (await t.db('webhook_deliveries').where({ id: ids[1] }).first()).meeting_id;
      const byMeeting = (await ok(gql, owner.key, DELIVERIES, { meetingId })).webhookDeliveries;
      expect(byMeeting.deliveries.map((d: any) => d.id)).toEqual([ids[1]]);
      expect((await ok(gql, owner.key, DELIVERIES, { status: 'failed' })).webhookDeliveries.deliveries).toEqual([]);
      expect((await ok(gql, owner.key, DELIVERIES, { limit: 1 })).webhookDeliveries.deliveries).toHaveLength(1);
      expect((await ok(gql, owner.key, DELIVERIES, { limit: 50 })).webhookDeliveries.deliveries).toHaveLength(3);
      for (const limit of [0, 51]) {
        const error = await refused(gql, owner.key, DELIVERIES, { limit });
        expect(error.extensions).toMatchObject({
          code: 'invalid_arguments',
          field: 'limit',
          rule: 'whole number 1 to 50',
        });
      }
      const badCursor = await refused(gql, owner.key, DELIVERIES, { cursor: 'not-a-cursor' });
      expect(badCursor.extensions).toMatchObject({ code: 'invalid_arguments', field: 'cursor' });
      const teamScope = await refused(gql, owner.key, DELIVERIES, { scope: 'team' });
      expect(teamScope.extensions!.code).toBe('require_elevated_privilege');
    });

    it('redelivers with the same delivery id and payload: a new run, a new attempt', async () => {
      const before = rx.requests('/ledger').length;
      const answer = (await ok(gql, owner.key, REDELIVER, { deliveryId: ids[0] })).redeliverWebhook;
      expect(answer).toMatchObject({ id: ids[0], redelivery_count: 1 });
      const row = await settled(t.db, ids[0]);
      expect(row).toMatchObject({ status: 'delivered', attempts_count: 3, redelivery_count: 1 });
      const seen = await rx.waitFor('/ledger', before + 1);
      const again = seen[seen.length - 1];
      const original = seen.find((r) => r.headers['x-delivery-id'] === ids[0] && r.answered === 200)!;
      expect(again.headers['x-delivery-id']).toBe(ids[0]);
      expect(again.headers['webhook-id']).toBe(ids[0]);
      expect(again.headers['x-delivery-attempt']).toBe('3');
      expect(again.rawBody.equals(original.rawBody)).toBe(true);
      expect(consumerVerifies('ledger-secret-123456', again.rawBody, again.headers['x-hub-signature'])).toBe(true);
      const d = (await ok(gql, owner.key, DELIVERY, { id: ids[0] })).webhookDelivery;
      expect(d.attempts.map((a: any) => a.attempt_no)).toEqual([1, 2, 3]);
      expect(
        await t.db('audit_log').where({ action: 'webhook.redelivered', target_id: ids[0] }).count({ n: '*' }),
      ).toEqual([{ n: '1' }]);
    });

    it("refuses to redeliver or show a delivery that is not the caller's (not found), changing nothing", async () => {
      for (const query of [REDELIVER, DELIVERY]) {
        const error = await refused(
          gql,
          other.key,
          query,
          query === REDELIVER ? { deliveryId: ids[1] } : { id: ids[1] },
        );
        expect(error.extensions!.code).toBe('object_not_found');
      }
      expect((await refused(gql, owner.key, DELIVERY, { id: 'nope' })).extensions!.code).toBe('object_not_found');
      expect(await t.db('webhook_deliveries').where({ id: ids[1] }).first()).toMatchObject({
        redelivery_count: 0,
        attempts_count: 1,
        status: 'delivered',
      });
    });

    it('refuses to redeliver to a saved webhook that can no longer receive', async () => {
      await ok(gql, owner.key, 'mutation { clearWebhookUrl { url } }');
      const error = await refused(gql, owner.key, REDELIVER, { deliveryId: ids[2] });
      expect(error.extensions).toMatchObject({ code: 'invalid_arguments', field: 'deliveryId' });
      expect(error.message).toMatch(/URL was cleared/);
      expect(await t.db('webhook_deliveries').where({ id: ids[2] }).first()).toMatchObject({
        status: 'delivered',
        redelivery_count: 0,
      });
    });
  });
});
