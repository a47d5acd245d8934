/**
 * The retry schedule is durable: its waits are workflow timers, its attempts single-attempt local
 * activities. A worker shut down while a delivery waits to retry loses nothing: a new worker continues
 * the schedule and the delivery completes, one delivery id throughout, every attempt in the ledger. A
 * worker shut down in the middle of an attempt finishes it first. An attempt that never completes is
 * recorded as lost, once.
 */
import type { Client } from '@temporalio/client';
import { saveWebhookUrl, setWebhookSecret } from '../../../../services/core/webhooks';
import { prepareDeliveries, type PreparedDelivery } from '../../../../workflows/activities/webhooks';
import { recordLostAttempt } from '../../../../services/core/webhooks';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { createTemporalClient } from '../../../../services/platform/temporal';
import { testConfig } from '../../../support/config';
import { startTestWorker, TestWorker } from '../../../support/worker';
import { startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
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
    await client.workflow.start('WebhookDeliveryWorkflow', {
      taskQueue: queue,
      workflowId: p.workflowId,
      args: [p.input],
    });
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

    // The schedule is timers between single attempts (local activities, one marker each), not activity retries.
    const history = await client.workflow.getHandle(p.workflowId).fetchHistory();
    const events = history.events ?? [];
    const timers = events
      .filter((e) => e.timerStartedEventAttributes)
      .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds ?? 0));
    expect(timers).toHaveLength(1);
    expect(timers[0]).toBeGreaterThanOrEqual(3);
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(2);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
  });

  it('a worker shut down in the middle of an attempt finishes it before it stops: one POST, one attempt, delivered', async () => {
    // Exactly one worker polls while the attempt runs.
    await Promise.all(workers.map((x) => x.stop()));
    const w = await startWorker();
    // The receiver takes 2 s to answer: the worker is asked to stop meanwhile.
    rx.script('/slow', [{ status: 200, delayMs: 2000 }, 200]);
    const { p } = await delivery('/slow', [0, 500, 500]);
    await rx.waitFor('/slow', 1);
    await w.stop();
    expect(await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first('status')).toEqual({
      status: 'delivered',
    });
    await startWorker();
    const result = await client.workflow.getHandle(p.workflowId).result();
    expect(result).toEqual({ deliveryId: p.input.deliveryId, status: 'delivered', attempts: 1 });
    expect((await attemptRows(p.input.deliveryId)).map((a) => [a.attempt_no, a.status_code])).toEqual([[1, 200]]);
    expect(rx.requests('/slow').map((r) => r.headers['x-delivery-id'])).toEqual([p.input.deliveryId]);
  });

  it('an attempt that never completed (its worker lost, or timed out) is recorded once as lost; on the last one the delivery fails', async () => {
    const user = await makeUser(t.db, team);
    await saveWebhookUrl({ db: t.db, config }, user.principal, rx.url('/never'));
    await setWebhookSecret({ db: t.db, config }, user.principal, { secret: 'restart-secret-12345' });
    const meeting = await makeMeeting(t.db, { organizer: user });
    const [p] = await prepareDeliveries(t.db, config, meeting.id);
    const deps = { db: t.db, config };

    const first = await recordLostAttempt(deps, {
      deliveryId: p.input.deliveryId,
      attemptId: 'lost-1',
      final: false,
      error: 'worker lost',
    });
    expect(first).toMatchObject({
      status: 'pending',
      done: false,
      attemptNo: 1,
      error: 'the attempt did not complete: worker lost',
    });
    // The same attempt reported again (a retried activity) is not counted twice.
    expect(
      await recordLostAttempt(deps, {
        deliveryId: p.input.deliveryId,
        attemptId: 'lost-1',
        final: false,
        error: 'worker lost',
      }),
    ).toMatchObject({ attemptNo: 1 });
    const last = await recordLostAttempt(deps, {
      deliveryId: p.input.deliveryId,
      attemptId: 'lost-2',
      final: true,
      error: 'timed out',
    });
    expect(last).toMatchObject({ status: 'failed', done: true, attemptNo: 2 });

    expect((await attemptRows(p.input.deliveryId)).map((a) => [a.attempt_no, a.status_code, a.error])).toEqual([
      [1, null, 'the attempt did not complete: worker lost'],
      [2, null, 'the attempt did not complete: timed out'],
    ]);
    expect(
      await t.db('webhook_deliveries').where({ id: p.input.deliveryId }).first('status', 'attempts_count'),
    ).toEqual({ status: 'failed', attempts_count: 2 });
    expect(rx.requests('/never')).toHaveLength(0);
  });
});
