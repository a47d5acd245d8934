/**
 * Records the event histories that test/unit/workflows/replay.test.ts replays: real scenarios of
 * every workflow, run by a worker in this process on a real Temporal server over a real PostgreSQL
 * database, each closed run's history saved as test/fixtures/histories/<release>/<name>.json, <release>
 * being this code's (services/platform/release.ts).
 *
 *   npx tsx scripts/record-histories.ts                     # every scenario
 *   npx tsx scripts/record-histories.ts live-idle           # only the named scenarios (see SCENARIOS)
 *   npx tsx scripts/record-histories.ts --tag v2 [names]    # files named <history>.v2.json
 *   npx tsx scripts/record-histories.ts --overwrite [names] # replace existing files (a history of an
 *                                                           # unreleased change only)
 *
 * PostgreSQL and Temporal are provisioned as `make test` does (test/support/globalSetup.ts): the ones
 * named by DATABASE_URL / TEMPORAL_ADDRESS, else local binaries, else testcontainers.
 *
 * Record a new history only when a workflow changed ON PURPOSE, and add it beside the old ones: the
 * histories of released versions must keep replaying (running workflows were started by them).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import globalSetup from '../test/support/globalSetup';
import globalTeardown from '../test/support/globalTeardown';
import { createTestDatabase, testTaskQueue, type TestDatabase } from '../test/support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, type TestUser } from '../test/support/factory';
import { startGraphql, UPLOAD_AUDIO, type GraphqlHarness, type GraphqlResponse } from '../test/support/graphql';
import { startTestWorker, waitForRun, type TestWorker } from '../test/support/worker';
import { testEmbedder } from '../test/support/embedder';
import { startWebhookReceiver, type WebhookReceiver } from '../test/support/webhook-receiver';
import { startMediaServer, type MediaServer } from '../test/integration/core/ingest/media-server';
import { CREATE_RULE } from '../test/integration/core/rules/support';
import { SAVE_EVENTS, SET_SECRET } from '../test/integration/core/webhooks/support';
import { APPEND, END, PAUSE, RESUME, said, START } from '../test/integration/core/live/support';
import { historyToJSON } from '../test/unit/workflows/history-json';
import {
  embeddingWorkflowId,
  liveWorkflowId,
  resummaryWorkflowId,
  ruleExecutionWorkflowId,
  transcriptionWorkflowId,
  webhookWorkflowId,
} from '../workflows/contracts';
import { LanguageReindexWorkflow } from '../workflows/languages';
import { RetentionWorkflow } from '../workflows/retention';
import { EmbeddingBackfillWorkflow, EmbeddingWorkflow, LiveEmbeddingWorkflow } from '../workflows/embedding';
import { WebhookEventsWorkflow } from '../workflows/webhook-events';
import { RELEASE } from '../services/platform/release';

const ROOT = join(__dirname, '..');
const OUT = join(ROOT, 'test', 'fixtures', 'histories', RELEASE);
const KICKOFF = readFileSync(join(ROOT, 'services', 'cli', 'demo', 'meetings', '2026-11-05-q1-planning-kickoff.vtt'));
/** Short enough that a recording takes seconds: one failed webhook attempt, then 200 ms later the next. */
const WEBHOOK_ENV = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_TIMEOUT: '2s' };
const IDLE_TIMEOUT = '2s';

interface Ctx {
  t: TestDatabase;
  gql: GraphqlHarness;
  /** The graphql role with LIVE_IDLE_TIMEOUT=2s (live meetings started through it idle out quickly). */
  gqlIdle: GraphqlHarness;
  temporal: Client;
  media: MediaServer;
  rx: WebhookReceiver;
  admin: TestUser;
  member: TestUser;
  channelId: string;
  /** The task queue of the worker recording. */
  queue: string;
}

/** The data of an operation that must succeed. */
function data(res: GraphqlResponse, field: string): any {
  if (res.body.errors?.length) throw new Error(`${field} failed: ${JSON.stringify(res.body.errors[0])}`);
  return res.body.data[field];
}

const options = { tag: '', overwrite: false };

async function save(temporal: Client, workflowId: string, history_: string): Promise<void> {
  const name = options.tag ? `${history_}.${options.tag}` : history_;
  const handle = temporal.workflow.getHandle(workflowId);
  await handle.result().catch(() => undefined); // closed runs only: a failed run is a history too
  const history = await handle.fetchHistory();
  const json = historyToJSON(history);
  const file = join(OUT, `${name}.json`);
  if (existsSync(file) && !options.overwrite)
    throw new Error(
      `${file} exists: histories of released versions are kept; record with --tag <version>, or --overwrite`,
    );
  writeFileSync(file, json);
  console.log(
    `  ${name}.json: ${history.events?.length ?? 0} events, ${(json.length / 1024).toFixed(1)} KB (${workflowId})`,
  );
}

function expectThat(cond: unknown, what: string): void {
  if (!cond) throw new Error(`scenario did not go as planned: ${what}`);
}

const SCENARIOS: Record<string, (c: Ctx) => Promise<void>> = {
  /** An upload of a caption file with two matching rules and a per-upload webhook that answers 503, then 200. */
  async 'transcription-post-processing'(c) {
    for (const [name, text] of [
      ['Board meetings', 'Board'],
      ['Planning', 'planning'],
    ]) {
      data(
        await c.gql.request(c.admin.key, CREATE_RULE, {
          input: {
            name,
            conditions: [{ type: 'title_contains', text }],
            actions:
              name === 'Planning'
                ? [{ type: 'move', channel_id: c.channelId }]
                : [
                    { type: 'share', emails: ['x@y.test'], expiry_days: 7 },
                    { type: 'privacy', privacy: 'teammates' },
                  ],
          },
        }),
        'createRule',
      );
    }
    c.rx.script('/upload', [503, 200]);
    const url = c.media.serve('/recordings/q1-board-kickoff.vtt', { body: KICKOFF, contentType: 'text/vtt' });
    const up = data(
      await c.gql.request(c.member.key, UPLOAD_AUDIO, {
        input: {
          url,
          title: 'Q1 Board planning kickoff',
          meeting_date: '2026-11-05T15:00:00Z',
          webhook: c.rx.url('/upload'),
        },
      }),
      'uploadAudio',
    );
    const id: string = up.meetingId;
    const run = await waitForRun(c.temporal, id, 120_000);
    expectThat(run.status === 'completed', `transcription completed (${JSON.stringify(run)})`);
    const webhookId = webhookWorkflowId(id, 'upload');
    expectThat(
      run.status === 'completed' &&
        run.result.children.join() === [ruleExecutionWorkflowId(id), webhookId, embeddingWorkflowId(id)].join(),
      'children: rules, the upload webhook and the embedding',
    );
    const rules = await c.temporal.workflow.getHandle(ruleExecutionWorkflowId(id)).result();
    expectThat(
      rules.matched === 2 && rules.executions.every((e: { status: string }) => e.status === 'success'),
      `two rules ran (${JSON.stringify(rules)})`,
    );
    const delivery = await c.temporal.workflow.getHandle(webhookId).result();
    expectThat(
      delivery.status === 'delivered' && delivery.attempts === 2,
      `delivered at the second attempt (${JSON.stringify(delivery)})`,
    );
    await save(c.temporal, transcriptionWorkflowId(id), 'transcription-captions-with-post-processing');
    await save(c.temporal, ruleExecutionWorkflowId(id), 'rule-execution-two-matching-rules');
    await save(c.temporal, webhookId, 'webhook-delivery-503-then-delivered');
  },

  /** A caption file without cues: bad input, the run fails and marks the meeting failed. */
  async 'transcription-failure'(c) {
    const url = c.media.serve('/recordings/empty.vtt', {
      body: 'WEBVTT\n\nNOTE nothing was said\n',
      contentType: 'text/vtt',
    });
    const id: string = data(
      await c.gql.request(c.member.key, UPLOAD_AUDIO, { input: { url, title: 'Nothing said' } }),
      'uploadAudio',
    ).meetingId;
    const run = await waitForRun(c.temporal, id, 120_000);
    expectThat(run.status === 'failed', `the run failed (${JSON.stringify(run)})`);
    await save(c.temporal, transcriptionWorkflowId(id), 'transcription-bad-input-fails');
  },

  /** A live meeting: appends, a pause, a resume, another append, an end; then its post-processing. */
  async 'live-lifecycle'(c) {
    const id: string = data(
      await c.gql.request(c.member.key, START, { input: { title: 'Weekly sync' } }),
      'startLiveMeeting',
    );
    const append = async (n: number, text: string) =>
      data(
        await c.gql.request(c.member.key, APPEND, { id, sentences: [said(n, 'Priya', text)] }),
        'appendLiveSentences',
      );
    await append(0, 'Good morning, everyone.');
    await append(1, 'Let us start with the release.');
    expectThat(data(await c.gql.request(c.member.key, PAUSE, { id }), 'pauseLiveMeeting').state === 'paused', 'paused');
    expectThat(
      data(await c.gql.request(c.member.key, RESUME, { id }), 'resumeLiveMeeting').state === 'active',
      'resumed',
    );
    await append(2, 'The release ships on Friday.');
    expectThat(data(await c.gql.request(c.member.key, END, { id }), 'endLiveMeeting').is_live === false, 'ended');
    const result = await c.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expectThat(
      result.status === 'completed' && result.endReason === 'requested' && result.sentences === 3,
      `completed (${JSON.stringify(result)})`,
    );
    await c.temporal.workflow.getHandle(ruleExecutionWorkflowId(id)).result();
    await save(c.temporal, liveWorkflowId(id), 'live-meeting-pause-resume-end');
  },

  /**
   * The retention run: a team keeping meetings 30 days, five meetings past it (one on legal hold) and
   * one within it, two old read-audit rows; batches of two meetings, so the run takes several steps.
   */
  async retention(c) {
    await c.t.db('teams').where({ id: c.admin.teamId }).update({ retention_days: 30 });
    const now = new Date('2026-11-26T03:00:00Z');
    const day = 86_400_000;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await makeMeeting(c.t.db, {
            organizer: c.member,
            title: `Old meeting ${i}`,
            date: new Date(now.getTime() - (i === 5 ? 10 : 31 + i) * day),
          })
        ).id,
      );
    await c.t.db('meetings').where({ id: ids[4] }).update({ legal_hold_at: now, legal_hold_by: c.admin.id });
    await c.t.db('read_audit').insert(
      [0, 1].map((i) => ({
        team_id: c.admin.teamId,
        user_id: c.member.id,
        meeting_id: ids[i],
        surface: 'mcp:svc_get_transcript',
        read_at: new Date(now.getTime() - 400 * day),
      })),
    );
    const workflowId = `retention-record-${Date.now()}`;
    const result = await c.temporal.workflow.execute(RetentionWorkflow, {
      taskQueue: c.queue,
      workflowId,
      args: [{ now: now.toISOString(), batchSize: 2 }],
    });
    expectThat(
      result.deletedMeetings === 4 && result.prunedReads === 2,
      `four meetings and two reads deleted (${JSON.stringify(result)})`,
    );
    await c.t.db('teams').where({ id: c.admin.teamId }).update({ retention_days: null });
    await save(c.temporal, workflowId, 'retention-daily-run');
  },

  /** A speaker named (transcript.updated from the outbox): dispatched in the first of three rounds. */
  async 'webhook-events'(c) {
    data(
      await c.gql.request(
        c.member.key,
        'mutation { saveWebhookUrl(url: "' + c.rx.url('/events') + '", events: ["transcript.updated"]) { url } }',
      ),
      'saveWebhookUrl',
    );
    data(
      await c.gql.request(c.member.key, 'mutation { setWebhookSecret(generate: true) { secret } }'),
      'setWebhookSecret',
    );
    const { id } = await makeMeeting(c.t.db, { organizer: c.member, title: 'Named later' });
    await c.t.db('sentences').where({ meeting_id: id, idx: 1 }).update({ speaker_name: 'Gina Guest' });
    const workflowId = `webhook-events-record-${Date.now()}`;
    await c.temporal.workflow.execute(WebhookEventsWorkflow, {
      taskQueue: c.queue,
      workflowId,
      args: [{ waitMs: 300, maxRounds: 3 }],
    });
    await c.rx.waitFor('/events', 1);
    await save(c.temporal, workflowId, 'webhook-events-one-change');
  },

  /** A completed meeting's notes written again on its organizer's request (meeting.summarized goes by the outbox). */
  async resummary(c) {
    data(
      await c.gql.request(c.member.key, SAVE_EVENTS, { url: c.rx.url('/summarized'), events: ['meeting.summarized'] }),
      'saveWebhookUrl',
    );
    data(await c.gql.request(c.member.key, SET_SECRET, { generate: true }), 'setWebhookSecret');
    const m = await makeMeeting(c.t.db, {
      organizer: c.member,
      title: 'Launch planning',
      sentences: [
        { speaker: 'Priya Raman', text: 'Welcome, let us plan the launch.', start: 0, end: 4 },
        { speaker: 'Grace Okafor', text: "I'll send the pricing sheet by Friday.", start: 4, end: 8 },
      ],
      summary: { overview: 'An old overview.' },
    });
    data(
      await c.gql.request(c.member.key, `mutation ($id: ID!) { resummarizeMeeting(meetingId: $id) { status } }`, {
        id: m.id,
      }),
      'resummarizeMeeting',
    );
    const result = await c.temporal.workflow.getHandle(resummaryWorkflowId(m.id)).result();
    expectThat(result.replaced, `notes replaced (${JSON.stringify(result)})`);
    await save(c.temporal, resummaryWorkflowId(m.id), 'resummary');
  },

  /**
   * Search by meaning: one meeting embedded (EmbeddingWorkflow), a backfill over three meetings in steps
   * of one (EmbeddingBackfillWorkflow, resting between steps), a live meeting's new sentences
   * (LiveEmbeddingWorkflow).
   */
  async embedding(c) {
    const said3 = (i: number) => [
      { speaker: 'Priya Raman', text: `Meeting ${i}: the warehouse in Denver closes in June.`, start: 0, end: 4 },
      { speaker: 'Grace Okafor', text: 'We need two more support engineers.', start: 4, end: 8 },
    ];
    const one = await makeMeeting(c.t.db, { organizer: c.member, title: 'Embedded alone', sentences: said3(0) });
    const oneId = `embed-record-${Date.now()}`;
    const outcome = await c.temporal.workflow.execute(EmbeddingWorkflow, {
      taskQueue: c.queue,
      workflowId: oneId,
      args: [{ meetingId: one.id }],
    });
    expectThat(outcome === 'embedded', `embedded (${outcome})`);
    await save(c.temporal, oneId, 'embedding-one-meeting');

    for (let i = 1; i <= 3; i++)
      await makeMeeting(c.t.db, { organizer: c.member, title: `Before the model ${i}`, sentences: said3(i) });
    const backfillId = `embedding-backfill-record-${Date.now()}`;
    const backfill = await c.temporal.workflow.execute(EmbeddingBackfillWorkflow, {
      taskQueue: c.queue,
      workflowId: backfillId,
      args: [{ batchSize: 1, restRatio: 0.1 }],
    });
    expectThat(backfill.embedded >= 3 && backfill.failed === 0, `backfill (${JSON.stringify(backfill)})`);
    await save(c.temporal, backfillId, 'embedding-backfill-steps');

    const live: string = data(
      await c.gql.request(c.member.key, START, { input: { title: 'Live and searchable' } }),
      'startLiveMeeting',
    );
    data(
      await c.gql.request(c.member.key, APPEND, {
        id: live,
        sentences: [said(0, 'Priya', 'The launch moves to May.')],
      }),
      'appendLiveSentences',
    );
    const liveId = `embed-live-record-${Date.now()}`;
    const sentences = await c.temporal.workflow.execute(LiveEmbeddingWorkflow, {
      taskQueue: c.queue,
      workflowId: liveId,
    });
    expectThat(sentences >= 1, `live sentences embedded (${sentences})`);
    data(await c.gql.request(c.member.key, END, { id: live }), 'endLiveMeeting');
    await save(c.temporal, liveId, 'embedding-live-step');
  },

  /** Three meetings uploaded with a language before meetings had one, re-indexed one a step with rests between. */
  async 'language-reindex'(c) {
    const ids: string[] = [];
    for (const lang of ['de', 'fr', 'en']) {
      const { id } = await makeMeeting(c.t.db, { organizer: c.member, title: `Weekly (${lang})` });
      await c.t.db('meetings').where({ id }).update({ custom_language: lang });
      ids.push(id);
    }
    const workflowId = `language-reindex-record-${Date.now()}`;
    const result = await c.temporal.workflow.execute(LanguageReindexWorkflow, {
      taskQueue: c.queue,
      workflowId,
      args: [{ batchSize: 1, stepBudgetMs: 1, restRatio: 1 }],
    });
    expectThat(
      result.meetings === 3 && result.remaining === 0,
      `three meetings re-indexed (${JSON.stringify(result)})`,
    );
    await save(c.temporal, workflowId, 'language-reindex');
  },

  /** A live meeting nobody talks to after one append: ends by LIVE_IDLE_TIMEOUT (2 s here). */
  async 'live-idle'(c) {
    const id: string = data(
      await c.gqlIdle.request(c.member.key, START, { input: { title: 'Forgotten bot' } }),
      'startLiveMeeting',
    );
    data(
      await c.gqlIdle.request(c.member.key, APPEND, { id, sentences: [said(0, 'Priya', 'Is anyone there?')] }),
      'appendLiveSentences',
    );
    const result = await c.temporal.workflow.getHandle(liveWorkflowId(id)).result();
    expectThat(
      result.status === 'completed' && result.endReason === 'idle' && result.sentences === 1,
      `idled out (${JSON.stringify(result)})`,
    );
    await c.temporal.workflow.getHandle(ruleExecutionWorkflowId(id)).result();
    await save(c.temporal, liveWorkflowId(id), 'live-meeting-idle-timeout');
  },
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const wanted: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--overwrite') options.overwrite = true;
    else if (args[i] === '--tag' && /^[\w.-]+$/.test(args[i + 1] ?? '')) options.tag = args[++i];
    else if (args[i].startsWith('-'))
      throw new Error(`unknown option ${args[i]} (known: --tag <version>, --overwrite)`);
    else wanted.push(args[i]);
  }
  const unknown = wanted.filter((w) => !(w in SCENARIOS));
  if (unknown.length)
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  mkdirSync(OUT, { recursive: true });

  await globalSetup();
  const t = await createTestDatabase();
  const queue = testTaskQueue('record-histories');
  let worker: TestWorker | undefined;
  const closers: (() => Promise<void>)[] = [];
  try {
    const team = await makeTeam(t.db, { tier: 'enterprise', name: 'Ledgerly' });
    const admin = await makeUser(t.db, team, { role: 'admin', email: 'grace@demo.example', name: 'Grace Okafor' });
    const member = await makeUser(t.db, team, { email: 'priya@demo.example', name: 'Priya Raman' });
    const channelId = (await makeChannel(t.db, team.id, 'Planning', [])).id;
    const media = await startMediaServer();
    closers.push(() => media.close());
    const rx = await startWebhookReceiver();
    closers.push(() => rx.close());
    const gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...WEBHOOK_ENV });
    closers.push(() => gql.close());
    const gqlIdle = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: queue,
      ...WEBHOOK_ENV,
      LIVE_IDLE_TIMEOUT: IDLE_TIMEOUT,
    });
    closers.push(() => gqlIdle.close());
    worker = await startTestWorker(t.db, { taskQueue: queue, env: WEBHOOK_ENV, embedder: await testEmbedder() });
    const ctx: Ctx = { t, gql, gqlIdle, temporal: gql.temporal, media, rx, admin, member, channelId, queue };

    for (const [name, run] of Object.entries(SCENARIOS)) {
      if (wanted.length && !wanted.includes(name)) continue;
      console.log(`scenario ${name}`);
      await run(ctx);
    }
  } finally {
    await worker?.stop();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await t.drop();
    await globalTeardown();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
