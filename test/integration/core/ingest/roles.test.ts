/**
 * The graphql and worker roles as the CLI starts them (startGraphqlRole / startWorkerRole from a
 * Config): real ports, health and metrics, an upload through both, a prebuilt workflow bundle, and a
 * graceful close.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGraphqlRole } from '../../../../services/graphql/main';
import { startWorkerRole } from '../../../../services/worker/main';
import { bundleWorkflows } from '../../../../services/worker/worker';
import { createTemporalClient } from '../../../../services/platform/temporal';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { testConfig } from '../../../support/config';
import { UPLOAD_AUDIO } from '../../../support/graphql';
import { waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

const VTT =
  'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Rae>Ship it on Friday.\n\n00:00:03.500 --> 00:00:05.000\n<v Sol>Agreed.\n';

describe('graphql and worker roles', () => {
  let t: TestDatabase;
  let media: MediaServer;
  let user: TestUser;
  const dir = mkdtempSync(join(tmpdir(), 'mi-bundle-'));

  beforeAll(async () => {
    t = await createTestDatabase();
    user = await makeUser(t.db, await makeTeam(t.db), { name: 'Rae' });
    media = await startMediaServer();
  });
  afterAll(async () => {
    delete process.env.MI_WORKFLOW_BUNDLE;
    rmSync(dir, { recursive: true, force: true });
    await media?.close();
    await t?.drop();
  });

  it('serve one upload end to end through the roles, with a prebuilt workflow bundle, then stop cleanly', async () => {
    const bundlePath = join(dir, 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflows()).code);
    process.env.MI_WORKFLOW_BUNDLE = bundlePath;
    const queue = testTaskQueue('roles');
    const config = testConfig(
      {
        DATABASE_URL: t.url,
        TEMPORAL_TASK_QUEUE: queue,
        GRAPHQL_PORT: '0',
        WORKER_METRICS_PORT: '0',
        HOST: '127.0.0.1',
        SHUTDOWN_GRACE_MS: '500',
      },
      'worker',
    );
    const graphql = await startGraphqlRole(config);
    const worker = await startWorkerRole(config);
    const { client, connection } = createTemporalClient(config);
    try {
      const workerBase = worker.url.replace(/\/metrics$/, '');
      const ready = await fetch(`${workerBase}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: { name: string; ok: boolean }[] }).checks).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'worker', ok: true }),
          expect.objectContaining({ name: 'database', ok: true }),
        ]),
      );

      const url = media.serve('/roles.vtt', { body: VTT, contentType: 'text/vtt' });
      const res = await fetch(graphql.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
        body: JSON.stringify({ query: UPLOAD_AUDIO, variables: { input: { url } } }),
      });
      const body = (await res.json()) as { data: { uploadAudio: { meetingId: string } } };
      expect(await waitForRun(client, body.data.uploadAudio.meetingId)).toMatchObject({
        status: 'completed',
        result: { sentences: 2, speakers: 2 },
      });

      const metrics = await (await fetch(worker.url)).text();
      expect(metrics).toMatch(/pipeline_stage_duration_seconds_count\{stage="persist",outcome="ok"\} [1-9]/);
      expect(metrics).toMatch(/pipeline_stage_duration_seconds_count\{stage="fetch_media",outcome="ok"\} [1-9]/);
    } finally {
      await connection.close();
      await worker.close();
      await graphql.close();
    }
    expect(worker.worker.getState()).toBe('STOPPED');
    expect(graphql.server.listening).toBe(false);
    expect(worker.server.listening).toBe(false);
  });

  it('refuses to start with a workflow bundle path that does not exist', async () => {
    process.env.MI_WORKFLOW_BUNDLE = join(dir, 'missing.js');
    const config = testConfig(
      {
        DATABASE_URL: t.url,
        TEMPORAL_TASK_QUEUE: testTaskQueue('roles-missing'),
        WORKER_METRICS_PORT: '0',
        HOST: '127.0.0.1',
      },
      'worker',
    );
    await expect(startWorkerRole(config)).rejects.toThrow(
      /MI_WORKFLOW_BUNDLE points at .*missing\.js, which does not exist/,
    );
  });
});
