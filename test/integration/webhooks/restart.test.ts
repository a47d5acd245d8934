/**
 * The retry schedule is durable: its waits are workflow timers, its attempts single-attempt
 * activities. A worker shut down while a delivery waits to retry (or in the middle of an attempt)
 * loses nothing: a new worker continues the schedule and the delivery completes, one delivery id
 * throughout, every attempt in the ledger.
 */
import type { Client } from '@temporalio/client';
import { prepareDeliveries, saveWebhookUrl, setWebhookSecret, type PreparedDelivery } from '../../../services/core/webhooks';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTemporalClient } from '../../../services/platform/temporal';
import { testConfig } from '../../support/config';
import { startTestWorker, TestWorker } from '../../support/worker';
import { startWebhookReceiver, WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from './support';

describe('webhook delivery across worker restarts', () => {
  let t: TestDatabase;
  let rx: WebhookReceiver;
  let client: Client;
  let closeClient: () => Promise<void>;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  const queue = testTaskQueue('webhook-restart');
  const env = { TEMPORAL_TASK_QUEUE: queue, WEBHOOK_TIMEOUT: '10s' };
  const config = testConfig(env, 'worker');
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db);
    rx = await startWebhookReceiver();
    const c = createTemporalClient(config);
    client = c.client;
    closeClient = () => c.connection.close();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await closeClient?.();
    await rx?.close();
    await t?.drop();
  });

  const startWorker = async () => {
    const w = await startTestWorker(t.db, { taskQueue: queue, env });
    workers.push(w);
    return w;
  };

  async function delivery(path: string, scheduleMs: number[]): Promise<{ p: PreparedDelivery; user: TestUser }> {
    const user = await makeUser(t.db, team);
    await saveWebhookUrl({ db: t.db, config }, user.principal, rx.url(path));
    await setWebhookSecret({ db: t.db, config }, user.principal, { secret: 'restart-secret-12345' });
    const { id } = await makeMeeting(t.db, { organizer: user });
    const [p] = await prepareDeliveries(t.db, config, id);
    p.input.scheduleMs = scheduleMs;
    await client.workflow.start('WebhookDeliveryWorkflow', { taskQueue: queue, workflowId: p.workflowId, args: [p.input] });
    return { p, user };
  }

  const attemptRows = (id: string) => t.db('webhook_attempts').where({ delivery_id: id }).orderBy('attempt_no');

  it('a worker shut down during a retry wait: a new worker continues the schedule and the delivery completes', async () => {
    const first = await startWorker();
    rx.script('/sleepy', [503, 200]);
    const { p } = await delivery('/sleepy', [0, 3000, 3000]);
    await rx.waitFor('/sleepy', 1);
    // The first attempt is in the ledger: the workflow now sleeps on a durable timer.
    await eventually(async () => ((await attemptRows(p.input.deliveryId)).length === 1 ? true : undefined));
    await first.stop();
    const stoppedAt = Date.now();
    expect(first.worker.getState()).toBe('STOPPED');
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.requests('/sleepy')).toHaveLength(1);

    await startWorker();
    const result = await client.workflow.getHandle(p.workflowId).result();
    expect(result).toEqual({ deliveryId: p.input.deliveryId, status: 'delivered', attempts: 2 });

    const seen = rx.requests('/sleepy');
    expect(seen.map((r) => r.answered)).toEqual([503, 200]);
    expect(seen.map((r) => r.headers['x-delivery-id'])).toEqual([p.input.deliveryId, p.input.deliveryId]);
    expect(seen[1].at).toBeGreaterThan(stoppedAt);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(3000);
    expect((await attemptRows(p.input.deliveryId)).map((a) => [a.attempt_no, a.status_code])).toEqual([
      [1, 503],
      [2, 200],
    ]);

    // The schedule is timers between single-attempt activities, not activity retries.
    const history = await client.workflow.getHandle(p.workflowId).fetchHistory();
    const events = history.events ?? [];
    const timers = events.filter((e) => e.timerStartedEventAttributes).map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds ?? 0));
    expect(timers).toHaveLength(1);
    expect(timers[0]).toBeGreaterThanOrEqual(3);
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled).toHaveLength(2);
    for (const e of scheduled) expect(e.activityTaskScheduledEventAttributes!.retryPolicy!.maximumAttempts).toBe(1);
  });

  it('a worker shut down in the middle of an attempt: that attempt is recorded as failed, and the next worker delivers', async () => {
    // Exactly one worker polls while the attempt runs.
    await Promise.all(workers.map((x) => x.stop()));
    const w = await startWorker();
    // The receiver takes 4 s to answer the first request: the worker goes away meanwhile.
    rx.script('/slow', [{ status: 200, delayMs: 4000 }, 200]);
    const { p } = await delivery('/slow', [0, 500, 500]);
    await rx.waitFor('/slow', 1);
    await w.stop();
    await startWorker();
    const result = await client.workflow.getHandle(p.workflowId).result();
    expect(result).toMatchObject({ status: 'delivered' });
    const rows = await attemptRows(p.input.deliveryId);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows[0].status_code).toBeNull();
    expect(rows[0].error).toMatch(/cancel|did not complete/);
    expect(rows[rows.length - 1].status_code).toBe(200);
    expect(new Set(rx.requests('/slow').map((r) => r.headers['x-delivery-id']))).toEqual(new Set([p.input.deliveryId]));
    expect(await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first()).toMatchObject({ status: 'delivered', attempts_count: rows.length });
  });
});
