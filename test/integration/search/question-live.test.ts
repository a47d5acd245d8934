/**
 * Meaning follows a meeting through its life: a live meeting is found by meaning within a minute of a
 * sentence arriving (the worker's schedule, through Temporal), and a change of model re-embeds every
 * meeting, after which questions are answered with the new model's vectors.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { testEmbedder } from '../../support/embedder';
import { startTestWorker, TestWorker } from '../../support/worker';
import { testConfig } from '../../support/config';
import { appendLiveSentences } from '../../../services/core/live';
import { embedMeeting, ensureModelIndex, vectorIndexName } from '../../../services/core/passages';
import { loadEmbedder, type Embedder } from '../../../services/intelligence/embeddings';
import { createTemporalClient } from '../../../services/platform/temporal';
import { ensureLiveEmbeddingSchedule } from '../../../workflows/client';
import { createEmbeddingActivities } from '../../../workflows/activities/embeddings';
import { liveEmbeddingScheduleId } from '../../../workflows/contracts';

let t: TestDatabase;
let owner: TestUser;
let embedder: Embedder;

beforeAll(async () => {
  t = await createTestDatabase();
  embedder = await testEmbedder();
  owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Lia Live' });
}, 60_000);
afterAll(async () => t?.drop());

const ask = async (mcp: McpHarness, question: string) =>
  (await mcp.call(owner.key, 'svc_get_transcripts', { question, limit: 3, format: 'json' })).data;

describe('a live meeting', () => {
  let worker: TestWorker;
  let mcp: McpHarness;
  const queue = testTaskQueue('question-live');
  const { client, connection } = createTemporalClient(testConfig({ TEMPORAL_TASK_QUEUE: queue }));

  beforeAll(async () => {
    worker = await startTestWorker(t.db, { taskQueue: queue, embedder });
    mcp = await startMcp(t.db, {}, { embedder });
    await ensureLiveEmbeddingSchedule(client, queue);
  }, 60_000);
  afterAll(async () => {
    await client.schedule.getHandle(liveEmbeddingScheduleId(queue)).delete();
    await mcp?.close();
    await worker?.stop();
    await connection.close();
  });

  it('is found by meaning within a minute of a sentence arriving', async () => {
    const live = await makeMeeting(t.db, {
      organizer: owner,
      title: 'Live planning',
      isLive: true,
      liveState: 'active',
      sentences: [{ speaker: 'Lia', text: 'Hello, can everyone hear me?', start: 0, end: 2 }],
    });
    const said = Date.now();
    await appendLiveSentences({ db: t.db, config: mcp.config }, owner.principal, live.id, [
      {
        speaker_name: 'Max',
        text: 'The printers on the third floor are broken again.',
        start_time: 3,
        end_time: 6,
        chunk_id: 'c-2',
      },
      {
        speaker_name: 'Lia',
        text: 'I will call the repair company this afternoon.',
        start_time: 7,
        end_time: 9,
        chunk_id: 'c-3',
      },
    ]);
    let found: { meeting_id: string; index: number } | undefined;
    while (!found && Date.now() - said < 60_000) {
      const r = await ask(mcp, 'Which office equipment stopped working?');
      found = r.moments.find((m: { meeting_id: string; index: number }) => m.meeting_id === live.id && m.index === 1);
      if (!found) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(found).toBeDefined();
    expect(Date.now() - said).toBeLessThan(60_000);
  }, 90_000);
});

describe('a change of model', () => {
  let dir: string;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('re-embeds every meeting with the new model, which then answers', async () => {
    const m = await makeMeeting(t.db, {
      organizer: owner,
      title: 'Budget',
      sentences: [
        { speaker: 'Ana', text: 'Welcome, everyone.', start: 0, end: 2 },
        { speaker: 'Bo', text: 'We spent twice what we planned on cloud hosting this quarter.', start: 2.5, end: 6 },
        { speaker: 'Ana', text: 'Thanks, Bo.', start: 6.5, end: 8 },
      ],
    });
    expect(await embedMeeting(t.db, embedder, m.id)).toBe('embedded');
    // The same weights under another name: to the service, another model.
    dir = mkdtempSync(join(tmpdir(), 'mi-model-'));
    cpSync(testConfig({}, 'mcp').embeddingModelDir, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ ...manifest, name: 'minilm-renamed' }));
    const renamed = await loadEmbedder(dir);
    expect(await ensureModelIndex(t.db, renamed.info)).toBe('built');
    const step = createEmbeddingActivities({ db: t.db, config: testConfig(), embedder: async () => renamed });
    let r = await step.embedBackfillStep({ afterId: '', batchSize: 100, budgetMs: 60_000 });
    while (!r.done) r = await step.embedBackfillStep({ afterId: r.lastId, batchSize: 100, budgetMs: 60_000 });
    expect(r.model).toBe('minilm-renamed');
    // Every completed meeting (the live one is the live schedule's to re-embed).
    const completed = t.db('meetings').where('status', 'completed').select('id');
    const models = await t.db('meeting_embeddings').whereIn('meeting_id', completed).distinct('model').pluck('model');
    expect(models).toEqual(['minilm-renamed']);
    const vectors = await t.db('passage_vectors').whereIn('meeting_id', completed).distinct('model').pluck('model');
    expect(vectors).toEqual(['minilm-renamed']);
    const index = await t.db.raw('select indexdef from pg_indexes where indexname = ?', [
      vectorIndexName('minilm-renamed'),
    ]);
    expect(index.rows[0].indexdef).toMatch(/hnsw.*halfvec\(384\).*minilm-renamed/);

    const mcp = await startMcp(t.db, {}, { embedder: renamed });
    try {
      const answer = await ask(mcp, 'How far over the plan did the servers bill go?');
      expect(answer.answered_by).toBe('meaning');
      expect(answer.moments[0]).toMatchObject({ meeting_id: m.id, index: 1 });
    } finally {
      await mcp.close();
      await renamed.close();
    }
  }, 120_000);
});
