/**
 * LLM notes against a real model: SmolLM2-135M-Instruct (models/manifest.json) behind a
 * chat-completions server over node-llama-cpp (test/llm-server). The model is tiny and its notes are
 * poor, so nothing here judges their wisdom: the tests hold the structure (every cited sentence
 * exists and its time matches, owners are people of the meeting), the fallback to the built-in
 * summary with a note for every field the model did not give usably, the long-meeting path (parts,
 * then the whole from their notes, every sentence shown once) and the json_object path of a server
 * that refuses schemas, where this model never closes its JSON and the built-in summary stands in.
 */
import {
  createSummarizer,
  MEETING_TYPES,
  summarize,
  summarizeWithLlmRun,
  type LlmRun,
  type SummarizeOptions,
  type Summary,
} from '../../../services/intelligence/summarize';
import type { Sentence } from '../../../services/intelligence/types';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { transcript } from '../../unit/intelligence/transcript';

/** Sentences six seconds apart, five seconds each. */
const meetingOf = (rows: [string, string][]): Sentence[] =>
  transcript(rows.map(([speaker, text], i) => [speaker, i * 6, i * 6 + 5, text]));

const STANDUP = meetingOf([
  ['Ada Park', 'Good morning, this is our standup.'],
  ['Ben Ode', "Yesterday I fixed the login bug. Today I'll write the release notes."],
  ['Ada Park', 'Ben, could you review the vendor contract by Friday?'],
  ['Ben Ode', "Sure, I'll review the contract by Friday."],
]);

const PLANNING = meetingOf([
  ['Ada Park', 'Let us plan the launch of the mobile app.'],
  ['Ben Ode', 'The beta build is ready for testers on Monday.'],
  ['Ada Park', "I'll write the announcement for the blog."],
  ['Cy Lee', 'Marketing needs the screenshots by Wednesday.'],
  ['Ben Ode', "I'll send the screenshots to marketing on Tuesday."],
  ['Cy Lee', 'The launch date stays the first of March.'],
  ['Ada Park', 'Cy, can you book the press call?'],
  ['Cy Lee', "Yes, I'll book the press call this week."],
]);

/**
 * Answer tokens per call: the model loops without a limit. Shown an example answer, it fills every
 * list as far as the schema lets it, so a whole answer takes about a thousand.
 */
const MAX_TOKENS = 1_200;

/** The chat requests a run made, recorded on their way to the server. */
function recordingFetch() {
  const bodies: { url: string; status: number; body: any }[] = [];
  const fetchImpl: typeof fetch = async (url, init) => {
    const res = await fetch(url, init);
    bodies.push({ url: String(url), status: res.status, body: JSON.parse(String(init!.body)) });
    return res;
  };
  return { bodies, fetchImpl };
}

/** Every line cites a sentence of the meeting at its time; every field is the model's or says why not. */
function expectNotesHold(
  summary: Summary,
  run: LlmRun,
  sentences: readonly Sentence[],
  people: string[],
  options: SummarizeOptions = {},
) {
  const at = new Map(sentences.map((s) => [s.index, s.start_time]));
  const cited = [
    ...summary.action_items.flatMap((a) => [{ index: a.index, start_time: a.start_time }, ...a.moments]),
    ...summary.overview_lines.map((l) => ({ index: l.index, start_time: l.start_time })),
  ];
  expect(cited.length).toBeGreaterThan(0);
  for (const c of cited) expect([c.index, c.start_time]).toEqual([c.index, at.get(c.index)]);
  // A section cites the sentence that sums it up, said within it.
  for (const o of summary.outline) expect([o.index, o.start_time <= at.get(o.index)!]).toEqual([o.index, true]);
  for (const a of summary.action_items) if (a.assignee) expect(people).toContain(a.assignee);
  expect(MEETING_TYPES).toContain(summary.meeting_type);
  expect(summary.source).toBe('llm');

  const builtIn = summarize(sentences, options);
  for (const field of run.fallback_fields) {
    expect([field, summary.notes[field as keyof Summary['notes']]]).toEqual([
      field,
      expect.stringMatching(/; these are the built-in summarizer's$/),
    ]);
    expect([field, summary[field as keyof Summary]]).toEqual([field, builtIn[field as keyof Summary]]);
  }
  // A field the model gave is not the fallback's, and nothing the model wrote is left unexplained.
  for (const field of ['keywords', 'topics_discussed', 'action_items', 'outline', 'overview'] as const)
    if (!run.fallback_fields.includes(field) && summary.notes[field])
      expect(summary.notes[field]).toMatch(/left out|neither the chat model nor the built-in summarizer/);
  expect(run.prompt_tokens).toBeGreaterThan(0);
  expect(run.completion_tokens).toBeGreaterThan(0);
}

describe('LLM notes by a real model (SmolLM2-135M over node-llama-cpp)', () => {
  let server: LlmServer;
  beforeAll(async () => {
    server = await startLlmServer();
  }, 90_000);
  afterAll(() => server?.close());

  const settings = (extra: object = {}) => ({
    url: server.url,
    apiKey: '',
    model: 'smollm2-135m-instruct',
    maxTokens: MAX_TOKENS,
    // On a busy machine a thousand tokens take minutes.
    timeoutMs: 480_000,
    ...extra,
  });

  it('writes notes whose every line cites a sentence of the meeting, falling back field by field', async () => {
    const { bodies, fetchImpl } = recordingFetch();
    const { summary, run } = await summarizeWithLlmRun(STANDUP, { title: 'Standup' }, settings({ fetchImpl }));
    expect(bodies.every((b) => b.body.max_tokens === MAX_TOKENS && b.body.response_format.type === 'json_schema')).toBe(
      true,
    );
    expect(run).toMatchObject({ parts: 1, response_format: 'json_schema', calls: bodies.length });
    expect(run.calls).toBeLessThanOrEqual(2);
    expectNotesHold(summary, run, STANDUP, ['Ada Park', 'Ben Ode'], { title: 'Standup' });
  }, 600_000);

  it('summarises a meeting longer than one call in parts, then whole, showing every sentence once', async () => {
    const { bodies, fetchImpl } = recordingFetch();
    const { summary, run } = await summarizeWithLlmRun(PLANNING, {}, settings({ fetchImpl, partChars: 300 }));
    const users = bodies.map((b) => b.body.messages[1].content as string);
    const partCalls = users.filter((u) => / of 2 of the transcript:/.test(u));
    // The parts' first questions (a part asked again repeats its question).
    const shown = [...new Set(partCalls)].flatMap((u) => [...u.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1])));
    expect(run.parts).toBe(2);
    expect(shown).toEqual(PLANNING.map((s) => s.index));
    expect(users.filter((u) => u.includes('Notes of the parts:')).length).toBe(run.calls - partCalls.length);
    expectNotesHold(summary, run, PLANNING, ['Ada Park', 'Ben Ode', 'Cy Lee']);
  }, 900_000);

  it('asks for a JSON object where the server refuses json_schema; a reply never closed is the built-in summary', async () => {
    const { bodies, fetchImpl } = recordingFetch();
    // Without a schema's grammar this model writes until the token limit: a small limit keeps the test short.
    const { summary, run } = await createSummarizer(
      { llm: { ...settings(), url: `${server.url}/refuse`, maxTokens: 120 } },
      { fetchImpl },
    ).summarizeWithRun(STANDUP, {});
    expect(bodies.map((b) => [b.body.response_format.type, b.status])).toEqual([
      ['json_schema', 400],
      ['json_object', 200],
      ['json_object', 200],
    ]);
    expect(bodies[1].body.messages[0].content).toContain('The JSON must fit this JSON Schema:');
    expect(bodies[2].body.messages.at(-1).content).toContain('That answer is not usable: the answer is not valid JSON');
    expect(run).toMatchObject({ source: 'extractive', model: 'smollm2-135m-instruct' });
    expect(summary).toEqual({
      ...summarize(STANDUP, {}),
      notes: {
        ...summarize(STANDUP, {}).notes,
        llm: 'The chat model at LLM_URL gave an unusable summary: the answer is not valid JSON (cut at the limit of 120 answer tokens); this is the built-in extractive summary instead',
      },
    });
  }, 180_000);
});
