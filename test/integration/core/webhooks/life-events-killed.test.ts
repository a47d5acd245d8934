/**
 * A life event across a worker killed outright (SIGKILL): the real worker role, which starts the
 * events' dispatcher itself, dies while the receiver holds the event's first attempt; a new worker
 * finishes the delivery. The event arrives at least once, every time with the same delivery id, and
 * the change has one delivery in the ledger. A change made while no worker runs waits in the outbox
 * and is delivered once when one starts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveWebhookUrl, setWebhookSecret } from '../../../../services/core/webhooks';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { testConfig } from '../../../support/config';
import { startTestWorker, startWorkerProcess, TestWorker } from '../../../support/worker';
import { RECEIVER_CERT_PATH, startWebhookReceiver, WebhookReceiver } from '../../../support/webhook-receiver';
import { createTemporalClient } from '../../../../services/platform/temporal';
import { body, eventually, hmacHex, settled } from './support';

describe('a life event across a worker killed outright', () => {
  let t: TestDatabase;
  let rx: WebhookReceiver;
  let olga: TestUser;
  let dir: string;
  let child: ChildProcess | undefined;
  let second: TestWorker | undefined;
  let secret: string;
  const queue = testTaskQueue('webhook-life-killed');
  const env = { WEBHOOK_RETRY_SCHEDULE: '0s,1s,1s', WEBHOOK_TIMEOUT: '30s' };
  const config = testConfig({ TEMPORAL_TASK_QUEUE: queue, ...env }, 'worker');

  beforeAll(async () => {
    t = await createTestDatabase();
    olga = await makeUser(t.db, await makeTeam(t.db), { name: 'Olga Owner' });
    rx = await startWebhookReceiver();
    await saveWebhookUrl({ db: t.db, config }, olga.principal, rx.url('/olga'), ['transcript.updated']);
    secret = (await setWebhookSecret({ db: t.db, config }, olga.principal, { generate: true })).secret!;
    dir = mkdtempSync(join(tmpdir(), 'mi-life-killed-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const c = createTemporalClient(config);
    await c.client.workflow
      .getHandle(`webhook-events-${queue}`)
      .terminate()
      .catch(() => undefined);
    await c.connection.close();
    await second?.stop();
    await rx?.close();
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const events = (meetingId: string) =>
    rx.requests('/olga').filter((r) => body(r).event === 'transcript.updated' && body(r).meeting_id === meetingId);

  it('SIGKILL during the first attempt: delivered by the next worker, one delivery id, one ledger row', async () => {
    // The worker process trusts the receiver's certificate as the test process does.
    child = await startWorkerProcess({
      dir,
      databaseUrl: t.url,
      taskQueue: queue,
      env: { ...env, NODE_EXTRA_CA_CERTS: RECEIVER_CERT_PATH },
    });
    // The first attempt is held past the kill; the next ones are answered at once.
    rx.script('/olga', [{ status: 200, delayMs: 5_000 }, 200]);
    const { id } = await makeMeeting(t.db, { organizer: olga });
    await t.db('sentences').where({ meeting_id: id, idx: 1 }).update({ speaker_name: 'Gina Guest' });
    await rx.waitFor('/olga', 1, 30_000);

    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // A change while no worker runs: it waits in the outbox.
    const later = await makeMeeting(t.db, { organizer: olga });
    await t.db('sentences').where({ meeting_id: later.id, idx: 0 }).update({ speaker_name: 'Olga O.' });
    expect(await t.db('webhook_events').where({ meeting_id: later.id }).first('dispatched_at')).toEqual({
      dispatched_at: null,
    });

    second = await startTestWorker(t.db, { taskQueue: queue, env });
    const [row] = await t.db('webhook_deliveries').where({ event_meeting_id: id });
    expect(await settled(t.db, row.id, 60_000)).toMatchObject({ status: 'delivered' });
    await eventually(async () => (events(later.id).length ? true : undefined), 60_000, 'the later change delivered');

    const got = events(id);
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Set(got.map((r) => r.headers['x-delivery-id']))).toEqual(new Set([row.id]));
    expect(new Set(got.map((r) => r.rawBody.toString())).size).toBe(1);
    for (const r of [...got, ...events(later.id)])
      expect(r.headers['x-hub-signature']).toBe(`sha256=${hmacHex(secret, r.rawBody)}`);
    expect(body(got[0])).toMatchObject({ meeting_id: id, changed: ['speakers'] });
    expect(await t.db('webhook_deliveries').whereIn('event_meeting_id', [id, later.id]).count({ n: '*' })).toEqual([
      { n: '2' },
    ]);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(events(later.id)).toHaveLength(1);
  });
});
