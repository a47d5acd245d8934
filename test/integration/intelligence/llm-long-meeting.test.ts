/**
 * A three-hour meeting summarised whole by a chat model, end to end: its WebVTT file (the labelled
 * meetings one after another, test/support/long-meeting.ts) uploaded through GraphQL's uploadAudio,
 * the TranscriptionWorkflow on a real Temporal and worker with LLM_URL at a chat server over real
 * HTTP, the notes stored in PostgreSQL. The server is a stand-in that writes what a model held to the
 * schema writes at best: a part's every promise and its topic, and, asked to merge, the first lines
 * of each list up to the schema's limits, so the later parts are what it leaves out. Nothing may be
 * lost: every sentence is shown once, no request is over its budget, and the last hour's items,
 * topics and sections are in the notes. (The same meeting against a real model:
 * test/bench/llm-long-meeting.bench.ts.)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIMITS } from '../../../services/intelligence/summarize/llm-notes';
import { makeTeam, makeUser, type TestUser } from '../../support/factory';
import { startGraphql, UPLOAD_AUDIO, type GraphqlHarness } from '../../support/graphql';
import { longMeeting } from '../../support/long-meeting';
import { createTestDatabase, testTaskQueue, type TestDatabase } from '../../support/testDb';
import { startTestWorker, waitForRun, type TestWorker } from '../../support/worker';
import { startMediaServer, type MediaServer } from '../core/ingest/media-server';

const PART_CHARS = 12_000;
const MAX_TOKENS = 700;
/** One word per part, sharing no stem with another part's: a part's topic. */
const WORDS = (
  'alfa bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa ' +
  'quebec romeo sierra tango uniform victor whiskey xray yankee zulu'
).split(' ');

interface Asked {
  max_tokens: number;
  system: string;
  user: string;
  part?: { number: number; shown: number[]; items: number[]; topic: string; transcriptChars: number };
}

/** What the stand-in writes for a part of the transcript: every promise an item, one topic, one section. */
function partNotes(user: string, number: number) {
  const lines = [...user.matchAll(/^#(\d+) \[[\d:]+\] ([^:]+): (.*)$/gm)].map((m) => ({
    index: Number(m[1]),
    speaker: m[2],
    text: m[3],
  }));
  const promises = lines.filter((l) => /\b(i'll|i will|i can)\b/i.test(l.text));
  return {
    lines,
    notes: {
      meeting_type: 'planning',
      short_summary: `Part ${number}.`,
      overview: promises.slice(0, 2).map((l) => ({ text: l.text, sentences: [l.index] })),
      topics: [WORDS[number - 1]],
      keywords: [WORDS[number - 1]],
      action_items: promises.map((l) => ({
        text: l.text,
        kind: 'commitment',
        owner: l.speaker,
        due: null,
        sentences: [l.index],
      })),
      outline: [{ title: `Section ${WORDS[number - 1]}`, sentence: lines[0].index }],
    },
  };
}

/** What it writes to merge parts' notes: each list's first lines, up to the schema's limits. */
function mergedNotes(user: string) {
  const cites = (s: string) => [...s.matchAll(/#(\d+)/g)].map((m) => Number(m[1]));
  const lines = (kind: string) => [...user.matchAll(new RegExp(`^${kind}(?: \\(([^)]*)\\))?: (.*)$`, 'gm'))];
  return {
    meeting_type: 'planning',
    short_summary: 'A long planning meeting.',
    overview: lines('overview')
      .slice(0, LIMITS.overview)
      .map((m) => ({ text: m[2].replace(/ \[#[^\]]*\]$/, ''), sentences: cites(m[2].slice(m[2].lastIndexOf('['))) })),
    topics: lines('topics')
      .flatMap((m) => m[2].split('; '))
      .slice(0, LIMITS.topics),
    keywords: lines('keywords')
      .flatMap((m) => m[2].split('; '))
      .slice(0, LIMITS.keywords),
    action_items: lines('action item')
      .slice(0, LIMITS.action_items)
      .map((m) => ({
        text: m[2].replace(/ \[#[^\]]*\]$/, ''),
        kind: 'commitment',
        owner: /owner ([^,]+)/.exec(m[1] ?? '')?.[1] ?? null,
        due: null,
        sentences: cites(m[2].slice(m[2].lastIndexOf('['))),
      })),
    outline: lines('section')
      .slice(0, LIMITS.outline)
      .map((m) => ({ title: m[2].replace(/ \[#\d+\]$/, ''), sentence: cites(m[2])[0] })),
  };
}

async function startCappedModel() {
  const asked: Asked[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const system: string = body.messages[0].content;
      const user: string = body.messages[1].content;
      const entry: Asked = { max_tokens: body.max_tokens, system, user };
      let notes: object;
      // A part asked again (a line that did not hold) counts once, as first asked.
      const again = body.messages.length > 2;
      const part = / of (\d+) of the transcript:/.test(user) ? /^Part (\d+) \(/m.exec(user) : null;
      if (part) {
        const made = partNotes(user, Number(part[1]));
        notes = made.notes;
        if (!again)
          entry.part = {
            number: Number(part[1]),
            shown: made.lines.map((l) => l.index),
            items: made.notes.action_items.map((a) => a.sentences[0]),
            topic: made.notes.topics[0],
            transcriptChars: user.slice(user.indexOf('of the transcript:\n') + 19).length,
          };
      } else notes = mergedNotes(user);
      asked.push(entry);
      const content = JSON.stringify(notes);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          // Counts as a careless server might give them: the run records whole tokens.
          usage: { prompt_tokens: (system.length + user.length) / 4, completion_tokens: content.length / 4 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a three-hour meeting summarised whole by a chat model', () => {
  const meeting = longMeeting();
  const lastHour = meeting.sentences.find((s) => s.start >= meeting.sentences.at(-1)!.end - 3600)!.index;
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let media: MediaServer;
  let model: Awaited<ReturnType<typeof startCappedModel>>;
  let owner: TestUser;
  const taskQueue = testTaskQueue('llm-long');

  beforeAll(async () => {
    t = await createTestDatabase();
    owner = await makeUser(t.db, await makeTeam(t.db), { name: 'Grace Okafor' });
    media = await startMediaServer();
    model = await startCappedModel();
    const env = {
      TEMPORAL_TASK_QUEUE: taskQueue,
      LLM_URL: model.url,
      LLM_MODEL: 'capped-stand-in',
      LLM_PART_CHARS: String(PART_CHARS),
      LLM_MAX_TOKENS: String(MAX_TOKENS),
    };
    gql = await startGraphql(t.db, env);
    worker = await startTestWorker(t.db, { taskQueue, env });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await gql?.close();
    await model?.close();
    await media?.close();
    await t?.drop();
  });

  it('shows every sentence once, within the budget, and keeps the last hour in the notes', async () => {
    expect(meeting.sentences.length).toBeGreaterThan(2_000);
    expect(meeting.sentences.at(-1)!.end).toBeGreaterThanOrEqual(3 * 3600);
    const url = media.serve('/recordings/long.vtt', { body: meeting.vtt, contentType: 'text/vtt' });
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Quarterly planning day' } });
    expect(res.body.errors).toBeUndefined();
    const id: string = res.body.data.uploadAudio.meetingId;
    const outcome = await waitForRun(gql.temporal, id, 150_000);
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([
      { n: String(meeting.sentences.length) },
    ]);

    // Every sentence shown to the model once, in order, in parts within LLM_PART_CHARS.
    const parts = model.asked.flatMap((a) => (a.part ? [a.part] : []));
    expect(parts.map((p) => p.number)).toEqual(parts.map((_, i) => i + 1));
    expect(parts.flatMap((p) => p.shown)).toEqual(meeting.sentences.map((s) => s.index));
    expect(Math.max(...parts.map((p) => p.transcriptChars))).toBeLessThanOrEqual(PART_CHARS);
    expect(model.asked.every((a) => a.max_tokens === MAX_TOKENS)).toBe(true);
    // The merges, in rounds: each within the budget of a part.
    const merges = model.asked.filter((a) => !a.part);
    expect(merges.length).toBeGreaterThan(1);
    for (const m of merges)
      expect(m.user.length - m.user.indexOf('Notes of the parts:')).toBeLessThanOrEqual(PART_CHARS + 40);

    const run = await t.db('summary_runs').where({ meeting_id: id }).first();
    expect(run).toMatchObject({
      source: 'llm',
      model: 'capped-stand-in',
      parts: parts.length,
      calls: model.asked.length,
      fallback_fields: [],
      error: null,
    });
    expect(Number.isInteger(run.prompt_tokens) && run.prompt_tokens > 0).toBe(true);

    const summary = await t.db('summaries').where({ meeting_id: id }).first();
    expect(summary.source).toBe('llm');
    // Every part's items, though a merge writes twenty at most; the last hour's among them.
    const items = summary.action_items.map((a: { index: number }) => a.index);
    expect(items).toEqual(parts.flatMap((p) => p.items));
    expect(items.length).toBeGreaterThan(LIMITS.action_items);
    expect(items.filter((i: number) => i >= lastHour).length).toBeGreaterThan(5);
    const labelledLastHour = meeting.items.filter((i) => i.index >= lastHour).map((i) => i.index);
    expect(labelledLastHour.filter((i) => items.includes(i)).length).toBeGreaterThan(0);
    // A section in every part, and the topics of the parts the merges left unheard.
    const sections = summary.outline.map((o: { index: number }) => o.index);
    for (const p of parts)
      expect([p.number, sections.some((s: number) => p.shown.includes(s))]).toEqual([p.number, true]);
    const lastTopics = parts.filter((p) => p.shown[0] >= lastHour).map((p) => p.topic);
    expect(lastTopics.length).toBeGreaterThan(0);
    expect(summary.topics_discussed).toEqual(expect.arrayContaining([lastTopics.at(-1)]));
    expect(summary.topics_discussed.length).toBeLessThanOrEqual(2 * LIMITS.topics);
  }, 200_000);
});
