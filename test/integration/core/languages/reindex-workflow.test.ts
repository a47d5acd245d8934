/**
 * LanguageReindexWorkflow on a real Temporal with real worker processes: meetings of several languages
 * uploaded before meetings had one are re-indexed so that an inflected form then finds them (through
 * the MCP client), a worker killed outright (SIGKILL) mid-way leaves the rest to the next worker with
 * no meeting skipped or taken twice, and English meetings' index and search stay as they were. The
 * worker role starts the workflow at its start when meetings wait; `meeting-intel search reindex`
 * starts and follows it, and `search status` says where it is.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { reindexProgress } from '../../../../services/core/languages';
import { createTemporalClient } from '../../../../services/platform/temporal';
import { ensureLanguageReindex, languageReindexResult } from '../../../../workflows/client';
import { languageReindexWorkflowId } from '../../../../workflows/contracts';
import { runCli } from '../../../support/cli';
import { testConfig } from '../../../support/config';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { startTestWorker, startWorkerProcess, TestWorker } from '../../../support/worker';

/** A sentence in each language whose plural English stemming leaves alone, and its singular. */
const SAID = {
  de: { text: 'Wir haben die Häuser am See gesehen.', finds: 'Haus' },
  fr: { text: 'Les chevaux courent dans le pré.', finds: 'cheval' },
  es: { text: 'Los árboles crecen junto al río.', finds: 'árbol' },
} as const;
const ENGLISH = [
  { speaker: 'Ada', text: 'We reviewed the budgets for the new offices.', start: 0, end: 4 },
  { speaker: 'Ben', text: 'The hiring plans are running late.', start: 4, end: 8 },
];

let t: TestDatabase;
let u: TestUser;
let mcp: McpHarness;
let temporal: Client;
let closeTemporal: () => Promise<void>;
let dir: string;
let child: ChildProcess | undefined;
let second: TestWorker | undefined;
const queue = testTaskQueue('language-reindex');
const env = () => ({ DATABASE_URL: t.url, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE: queue });

beforeAll(async () => {
  t = await createTestDatabase();
  u = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
  mcp = await startMcp(t.db);
  const { client, connection } = createTemporalClient(testConfig({ TEMPORAL_TASK_QUEUE: queue }));
  temporal = client;
  closeTemporal = () => connection.close();
  dir = mkdtempSync(join(tmpdir(), 'mi-language-reindex-'));
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await second?.stop();
  await closeTemporal?.();
  await mcp?.close();
  await t?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const search = async (keyword: string) => {
  const r = await mcp.call(u.key, 'svc_get_transcripts', { keyword, format: 'json' });
  expect(r.isError).toBe(false);
  return new Set((r.data as { meetings: { id: string }[] }).meetings.map((m) => m.id));
};

/** A meeting as release 0.1.0 left an upload with a language: the upload's language, none of its own, an English index. */
async function uploadedBefore(language: string | null, sentences = ENGLISH): Promise<string> {
  const { id } = await makeMeeting(t.db, { organizer: u, title: 'Weekly', sentences });
  await t.db('meetings').where({ id }).update({ custom_language: language });
  return id;
}

/** Everything search reads of these meetings' words. */
const indexOf = (ids: string[]) =>
  t.db.raw(
    `select m.id, m.search_config, m.title_tsv::text, m.transcript_tsv::text, m.transcript_pairs::text, b.by_word,
            (select json_agg(s.tsv::text order by s.idx) from sentences s where s.meeting_id = m.id) as sentences
     from meetings m left join best_moments b on b.meeting_id = m.id where m.id = any(?) order by m.id`,
    [ids],
  );

async function waitUntil(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('re-indexes meetings of several languages across a killed worker, leaving English ones as they were', async () => {
  const languages = Object.keys(SAID) as (keyof typeof SAID)[];
  const foreign: Record<string, string[]> = {};
  for (const lang of languages) {
    foreign[lang] = [];
    for (let i = 0; i < 3; i++) {
      foreign[lang].push(await uploadedBefore(lang, [{ speaker: 'Eva', text: SAID[lang].text, start: 0, end: 4 }]));
    }
  }
  // English: uploaded saying so before (waiting, but its configuration does not change), and without a language.
  const english = [await uploadedBefore('en'), await uploadedBefore('en'), await uploadedBefore(null)];
  const englishBefore = (await indexOf(english)).rows;
  const budgets = await search('budget');
  expect(budgets).toEqual(new Set(english));
  for (const lang of languages) expect(await search(SAID[lang].finds)).toEqual(new Set());
  const waiting = 9 + 2;
  expect((await reindexProgress(t.db)).remaining).toBe(waiting);

  // One meeting a step, resting five times as long as it worked: slow enough to be stopped part way,
  // most likely while it rests (a kill mid-step costs the activity's heartbeat timeout, a minute).
  await ensureLanguageReindex(temporal, queue, { batchSize: 1, stepBudgetMs: 1, restRatio: 5 });
  child = await startWorkerProcess({ dir, databaseUrl: t.url, taskQueue: queue });
  await waitUntil(
    'three meetings are re-indexed',
    async () => (await reindexProgress(t.db)).remaining <= waiting - 3,
    120_000,
  );
  const exited = new Promise((r) => child!.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  const left = (await reindexProgress(t.db)).remaining;
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThanOrEqual(waiting - 3);

  second = await startTestWorker(t.db, { taskQueue: queue });
  const result = await languageReindexResult(temporal, queue);
  // Every waiting meeting taken once over both workers: a meeting done is no longer waiting, and a batch
  // cut short by the kill was rolled back whole. The totals count the steps the workflow saw end, so a
  // step whose transaction committed just before the kill is done but not counted: at most one of them.
  expect(result.remaining).toBe(0);
  expect(result.meetings).toBeGreaterThanOrEqual(waiting - 1);
  expect(result.meetings).toBeLessThanOrEqual(waiting);
  expect(result.sentences).toBeGreaterThanOrEqual(9 - 1);
  expect(result.sentences).toBeLessThanOrEqual(9);
  expect((await reindexProgress(t.db)).remaining).toBe(0);

  for (const lang of languages) expect(await search(SAID[lang].finds)).toEqual(new Set(foreign[lang]));
  const langs = await t.db('meetings').whereIn('id', Object.values(foreign).flat()).select('language', 'search_config');
  expect(new Set(langs.map((m) => `${m.language} ${m.search_config}`))).toEqual(
    new Set(['de german', 'fr french', 'es spanish']),
  );
  expect((await indexOf(english)).rows).toEqual(englishBefore);
  expect(await search('budget')).toEqual(budgets);
  expect(await t.db('meetings').whereIn('id', english).pluck('language')).toEqual(expect.arrayContaining(['en', null]));
  await second.stop();
  second = undefined;
}, 240_000);

it('is started by the worker at its start when meetings wait, and by search reindex, which follows it', async () => {
  const first = await uploadedBefore('de', [{ speaker: 'Eva', text: SAID.de.text, start: 0, end: 4 }]);
  child = await startWorkerProcess({ dir, databaseUrl: t.url, taskQueue: queue });
  await waitUntil('the worker re-indexes the meeting', async () => (await reindexProgress(t.db)).remaining === 0);
  const handle = temporal.workflow.getHandle(languageReindexWorkflowId(queue));
  expect(await handle.result()).toEqual({ meetings: 1, sentences: 1, remaining: 0 });
  expect(await search(SAID.de.finds)).toContain(first);

  const next = await uploadedBefore('fr', [{ speaker: 'Eva', text: SAID.fr.text, start: 0, end: 4 }]);
  const r = await runCli(['search', 'reindex', '--json'], env());
  expect(r.code).toBe(0);
  expect(r.json).toMatchObject({ workflow: 'started', meetings: 1, sentences: 1, remaining: 0 });
  expect(await search(SAID.fr.finds)).toContain(next);

  const status = await runCli(['search', 'status', '--json'], { ...env(), EMBEDDING_MODEL_DIR: 'off' });
  expect(status.code).toBe(0);
  expect(status.json.languages).toEqual({
    indexed: expect.any(Number),
    remaining: 0,
    workflow: { status: 'completed' },
  });
}, 180_000);
