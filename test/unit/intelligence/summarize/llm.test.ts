import {
  createSummarizer,
  LLM_SUMMARY_SCHEMA,
  PROMPT_VERSION,
  summarizeWithLlm,
  summarizeWithLlmRun,
} from '../../../../services/intelligence/summarize';
import { NetError } from '../../../../services/net/errors';
import { standIn, type Received } from '../http-stand-in';
import { transcript } from '../transcript';

const meeting = transcript([
  ['Ada Park', 0, 4, 'Thanks for joining the pricing review.'],
  ['Ben Ode', 5, 9, "I'll send the revised pricing sheet by Friday."],
  ['Ada Park', 10, 20, 'Great, then we can decide on the discount next week.'],
  ['Ada Park', 21, 25, 'Ben, could you also check the contract terms with legal?'],
]);

/** A good answer for `meeting`: every line cites sentences that bear it out. */
const goodNotes = () => ({
  meeting_type: 'sales',
  short_summary: 'Pricing review; Ben sends the sheet by Friday.',
  overview: [
    { text: 'Ben sends the revised pricing sheet by Friday.', sentences: [1] },
    { text: 'The discount is decided next week.', sentences: [2] },
  ],
  topics: ['Pricing sheet', 'Discount'],
  keywords: ['pricing sheet', 'discount'],
  action_items: [
    { text: 'Send the revised pricing sheet', kind: 'commitment', owner: 'Ben', due: 'Friday', sentences: [1] },
    { text: 'Check the contract terms with legal', kind: 'request', owner: 'Ben Ode', due: null, sentences: [3] },
  ],
  outline: [
    { title: 'Next steps', sentence: 2 },
    { title: 'Pricing sheet', sentence: 0 },
  ],
});

/** A long meeting of numbered budget lines, the speakers taking turns. */
function budgetMeeting(sentences: number, speakers: string[]) {
  const rows: [string, number, number, string][] = [];
  for (let i = 0; i < sentences; i++)
    rows.push([speakers[i % speakers.length], i * 10, i * 10 + 9, `Budget line ${i} needs review for the vendor.`]);
  return transcript(rows);
}

/** Words that share no stem, one per part of ten sentences. */
const FRUITS =
  'apple banana cherry damson elderberry fig grape honeydew kiwi lemon mango nectarine orange papaya quince'.split(' ');

/** Notes of a part of budgetMeeting whose lines all cite its first sentence. */
const notesCiting = (first: number, kind: string) => ({
  ...goodNotes(),
  overview: [{ text: `Budget line ${first} needs review.`, sentences: [first] }],
  action_items: [{ text: `Review budget line ${first}`, kind, owner: null, due: null, sentences: [first] }],
  outline: [{ title: `Budget ${first}`, sentence: first }],
});

function completion(content: string, usage = { prompt_tokens: 100, completion_tokens: 20 }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  };
}

type Answer = (body: any, req: Received) => { status?: number; body: unknown };
const json = (notes: unknown) => ({ body: completion(JSON.stringify(notes)) });
/** How many times the model was asked in this conversation (a re-ask carries the first answer). */
const turn = (body: any) => body.messages.filter((m: { role: string }) => m.role === 'assistant').length;

describe('notes by an OpenAI-compatible chat model', () => {
  let server: Awaited<ReturnType<typeof standIn>>;
  let answer: Answer;
  beforeAll(async () => {
    server = await standIn((req) => answer(JSON.parse(req.body.toString('utf8')), req));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.received.length = 0;
    answer = () => json(goodNotes());
  });
  const bodies = () => server.received.map((r) => JSON.parse(r.body.toString('utf8')));
  const llm = (extra: object = {}) => ({ url: server.url, apiKey: 'sk-llm', model: 'qwen2.5-7b-instruct', ...extra });

  it('asks for notes constrained by the JSON schema, with numbered lines and a token limit', async () => {
    await summarizeWithLlm(meeting, { title: 'Pricing review', meetingDate: '2026-10-14' }, llm({ maxTokens: 900 }));
    const req = server.received.at(-1)!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-llm');
    const body = bodies()[0];
    expect(body).toMatchObject({ model: 'qwen2.5-7b-instruct', temperature: 0, max_tokens: 900 });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'meeting_notes', strict: true, schema: LLM_SUMMARY_SCHEMA },
    });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1].content).toContain('Title: Pricing review');
    expect(body.messages[1].content).toContain('People: Ada Park, Ben Ode');
    expect(body.messages[1].content).toContain("#1 [00:00:05] Ben Ode: I'll send the revised pricing sheet by Friday.");
    expect(server.received).toHaveLength(1);
  });

  it('makes every line cite its stored sentence, owners named as the meeting names them', async () => {
    const { summary, run } = await summarizeWithLlmRun(meeting, { meetingDate: '2026-10-14' }, llm());
    expect(summary).toMatchObject({
      source: 'llm',
      meeting_type: 'sales',
      notes: {},
      keywords: ['pricing sheet', 'discount'],
    });
    expect(summary.action_items).toEqual([
      {
        text: 'Send the revised pricing sheet',
        assignee: 'Ben Ode',
        due: 'Friday',
        due_date: '2026-10-16',
        speaker_name: 'Ben Ode',
        start_time: 5,
        index: 1,
        kind: 'commitment',
        moments: [{ index: 1, start_time: 5 }],
      },
      {
        text: 'Check the contract terms with legal',
        assignee: 'Ben Ode',
        due: null,
        due_date: null,
        speaker_name: 'Ada Park',
        start_time: 21,
        index: 3,
        kind: 'request',
        moments: [{ index: 3, start_time: 21 }],
      },
    ]);
    expect(summary.overview_lines).toEqual([
      { text: 'Ben sends the revised pricing sheet by Friday.', index: 1, start_time: 5 },
      { text: 'The discount is decided next week.', index: 2, start_time: 10 },
    ]);
    expect(summary.overview).toBe('Ben sends the revised pricing sheet by Friday.\nThe discount is decided next week.');
    expect(summary.outline).toEqual([
      { title: 'Pricing sheet', start_time: 0, end_time: 10, summary: meeting[0].text, index: 0 },
      { title: 'Next steps', start_time: 10, end_time: 25, summary: meeting[2].text, index: 2 },
    ]);
    expect(run).toMatchObject({
      model: 'qwen2.5-7b-instruct',
      prompt_version: PROMPT_VERSION,
      calls: 1,
      prompt_tokens: 100,
      completion_tokens: 20,
      parts: 1,
      response_format: 'json_schema',
      fallback_fields: [],
      dropped_lines: 0,
    });
  });

  it('asks again about a made-up sentence number, and drops the line when the answer keeps it', async () => {
    answer = () => {
      const notes = goodNotes();
      notes.action_items[1].sentences = [99];
      return json(notes);
    };
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(run.calls).toBe(2);
    const again = bodies()[1].messages;
    expect(again.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(again[3].content).toContain(
      '"Check the contract terms with legal" cites #99, not a sentence of the transcript',
    );
    expect(summary.action_items.map((a) => a.index)).toEqual([1]);
    expect(summary.notes.action_items).toBe("1 of the chat model's lines were left out: their citations do not hold");
    expect(run.dropped_lines).toBe(1);
  });

  it('takes the corrected answer when the model fixes its citation', async () => {
    answer = (body) => {
      const notes = goodNotes();
      if (turn(body) === 0) notes.overview[1].sentences = [42];
      return json(notes);
    };
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(run.calls).toBe(2);
    expect(summary.overview_lines.map((l) => l.index)).toEqual([1, 2]);
    expect(summary.notes).toEqual({});
  });

  it('drops a line whose words the cited sentence does not bear out', async () => {
    answer = () => {
      const notes = goodNotes();
      notes.overview.push({ text: 'Everyone enjoyed the sunny weather.', sentences: [0] });
      return json(notes);
    };
    const { summary } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(bodies()[1].messages[3].content).toContain(
      '"Everyone enjoyed the sunny weather." says nothing that sentence #0 says',
    );
    expect(summary.overview_lines.map((l) => l.text)).not.toContain('Everyone enjoyed the sunny weather.');
  });

  it('keeps a promise in common words that its sentence bears out, and drops one it does not', async () => {
    const promises = transcript([
      ['Ada Park', 0, 4, 'Can someone send both over?'],
      ['Ben Ode', 5, 9, "Sure, I'll send both over by Thursday."],
    ]);
    const item = (text: string) => ({ text, kind: 'commitment', owner: null, due: 'Thursday', sentences: [1] });
    answer = () =>
      json({
        ...goodNotes(),
        overview: [{ text: 'Ben sends both by Thursday.', sentences: [1] }],
        action_items: [item("I'll send both over by Thursday."), item('Book the venue.')],
      });
    const summary = await summarizeWithLlm(promises, {}, llm());
    expect(summary.action_items.map((a) => a.text)).toEqual(["I'll send both over by Thursday."]);
    expect(summary.notes.action_items).toMatch(/^1 of the chat model's lines were left out/);
  });

  it('leaves out an owner who never appears among speakers or participants', async () => {
    answer = () => {
      const notes = goodNotes();
      notes.action_items[1].owner = 'Zed Quinn';
      return json(notes);
    };
    const { summary } = await summarizeWithLlmRun(meeting, { participants: [{ name: 'Cy Lee' }] }, llm());
    expect(bodies()[1].messages[3].content).toContain(
      'names the owner "Zed Quinn", who is neither a speaker nor a participant',
    );
    expect(summary.action_items[1]).toMatchObject({ index: 3, kind: 'request', assignee: null });
    expect(summary.notes.action_items).toBe(
      'the owner "Zed Quinn" the chat model named never appear among the speakers or participants and were left out',
    );
  });

  it('falls back to the built-in action items when the model lists none, and says so', async () => {
    answer = () => json({ ...goodNotes(), action_items: [] });
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(summary.source).toBe('llm');
    expect(summary.action_items.map((a) => a.text)).toContain("I'll send the revised pricing sheet by Friday.");
    expect(summary.notes.action_items).toBe("the chat model gave none; these are the built-in summarizer's");
    expect(run.fallback_fields).toEqual(['action_items']);
    expect(summary.overview_lines).toHaveLength(2);
  });

  it('falls back field by field: a field that does not fit the schema is the built-in one', async () => {
    answer = () => json({ ...goodNotes(), meeting_type: 'party', topics: 'pricing' });
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(run.fallback_fields.sort()).toEqual(['meeting_type', 'topics_discussed']);
    expect(summary.notes.topics_discussed).toMatch(/^the answer's topics: .*; these are the built-in summarizer's$/);
    expect(summary.action_items).toHaveLength(2);
  });

  it('asks again after an answer that is not JSON, and uses the second', async () => {
    answer = (body) => (turn(body) === 0 ? { body: completion('Sure! Here are the notes.') } : json(goodNotes()));
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(run.calls).toBe(2);
    expect(bodies()[1].messages[3].content).toContain('That answer is not usable: the answer is not valid JSON.');
    expect(summary.action_items).toHaveLength(2);
  });

  it('gives up on a model that never answers JSON: an error, or the extractive notes saying why', async () => {
    answer = () => ({ body: completion('{"meeting_type": "sales", "overview": [') });
    const err = await summarizeWithLlm(meeting, {}, llm()).catch((e) => e);
    expect(err).toBeInstanceOf(NetError);
    expect(err).toMatchObject({ retryable: false, details: { rule: 'upstream_format' } });
    expect(err.message).toBe('The chat model at LLM_URL gave an unusable summary: the answer is not valid JSON');
    const { summary, run } = await createSummarizer({ llm: llm() }).summarizeWithRun(meeting, {});
    expect(summary.source).toBe('extractive');
    expect(summary.notes.llm).toBe(
      'The chat model at LLM_URL gave an unusable summary: the answer is not valid JSON; this is the built-in extractive summary instead',
    );
    expect(run).toMatchObject({ source: 'extractive', model: 'qwen2.5-7b-instruct', error: err.message });
  });

  it('asks with json_object and the schema in the prompt where the server refuses json_schema', async () => {
    answer = (body) =>
      body.response_format.type === 'json_schema'
        ? { status: 400, body: { error: { message: "response_format type 'json_schema' is not supported" } } }
        : json(goodNotes());
    const { summary, run } = await summarizeWithLlmRun(meeting, {}, llm());
    expect(bodies().map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object']);
    expect(bodies()[1].messages[0].content).toContain(
      `The JSON must fit this JSON Schema: ${JSON.stringify(LLM_SUMMARY_SCHEMA)}`,
    );
    expect(run.response_format).toBe('json_object');
    expect(summary.action_items).toHaveLength(2);
  });

  it('summarises a long meeting in parts, then whole from the parts\u2019 notes, never cutting it', async () => {
    const long = budgetMeeting(60, ['Ada Park', 'Ben Ode']);
    answer = (body) => json(notesCiting(Number(/#(\d+)/.exec(body.messages[1].content)![1]), 'commitment'));
    const { summary, run } = await summarizeWithLlmRun(long, {}, llm({ partChars: 1_000 }));
    const users: string[] = bodies().map((b) => b.messages[1].content);
    const parts = users.filter((u) => u.includes('of the transcript:'));
    const merges = users.filter((u) => u.includes('Notes of the parts:'));
    expect(parts.length).toBe(run.parts);
    expect(run.parts).toBeGreaterThan(3);
    expect(merges.length).toBeGreaterThanOrEqual(1);
    expect(parts.every((u) => u.length < 1_300)).toBe(true);
    for (const u of merges) expect(u.length - u.indexOf('Notes of the parts:')).toBeLessThanOrEqual(1_000 + 20);
    // Every sentence was shown to the model once: nothing was cut.
    const shown = parts.flatMap((u) => [...u.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1])));
    expect(shown).toEqual(long.map((s) => s.index));
    expect(run.calls).toBe(parts.length + merges.length);
    for (const a of summary.action_items)
      expect(a.moments[0]).toEqual({ index: a.index, start_time: long[a.index].start_time });
  });

  it('puts back what a merge leaves out of a part: its items, an outline section, its topics', async () => {
    const long = budgetMeeting(80, ['Ada Park', 'Ben Ode']);
    // Each part's notes name its own vendor; the merge, like a model out of room, keeps the first part's only.
    const fruits = new Map<number, string>(); // a part's topic by its first sentence
    answer = (body) => {
      const user: string = body.messages[1].content;
      const first = Number(/#(\d+)/.exec(user)![1]);
      const part = /Part (\d+) \(sentences/.exec(user);
      if (part && !user.includes('Notes of the parts:')) fruits.set(first, FRUITS[Number(part[1]) - 1]);
      return json({ ...notesCiting(first, 'commitment'), topics: [fruits.get(first)!] });
    };
    const { summary, run } = await summarizeWithLlmRun(long, {}, llm({ partChars: 1_000 }));
    const firsts = bodies()
      .map((b) => b.messages[1].content as string)
      .filter((u) => u.includes('of the transcript:'))
      .map((u) => Number(/^#(\d+) /m.exec(u)![1]));
    expect(firsts).toHaveLength(run.parts);
    expect(run.parts).toBeGreaterThan(5);
    expect(summary.action_items.map((a) => a.index)).toEqual(firsts);
    expect(summary.outline.map((o) => o.index)).toEqual(firsts);
    // Every part's topic: the merge's own and those of the parts it left unheard.
    expect([...summary.topics_discussed].sort()).toEqual(firsts.map((f) => fruits.get(f)).sort());
    expect(run.fallback_fields).toEqual([]);
  });

  it('merges without the model evenly across a long meeting, the last part heard as well as the first', async () => {
    const long = budgetMeeting(120, ['Ada Park']);
    answer = (body) => {
      const user: string = body.messages[1].content;
      if (user.includes('Notes of the parts:')) return { body: completion('not json') };
      const first = Number(/#(\d+) /.exec(user)![1]);
      return json({ ...notesCiting(first, 'offer'), topics: [`Vendor ${first}`], keywords: [`vendor ${first}`] });
    };
    const { summary, run } = await summarizeWithLlmRun(long, {}, llm({ partChars: 800 }));
    expect(run.parts).toBeGreaterThan(10);
    const vendors = (xs: string[]) => xs.map((t) => Number(/\d+/.exec(t)![0]));
    expect(summary.topics_discussed).toHaveLength(8);
    expect(vendors(summary.topics_discussed)[0]).toBe(0);
    expect(vendors(summary.topics_discussed).at(-1)).toBe(summary.action_items.at(-1)!.index);
    expect(vendors(summary.keywords).at(-1)).toBe(summary.action_items.at(-1)!.index);
    expect(summary.overview_lines.at(-1)!.index).toBe(summary.action_items.at(-1)!.index);
    expect(summary.action_items).toHaveLength(run.parts);
  });

  it("merges the parts' notes without the model when its merge is never JSON, and skips a part it never answers", async () => {
    const long = budgetMeeting(40, ['Ada Park']);
    answer = (body) => {
      const user: string = body.messages[1].content;
      if (user.includes('Notes of the parts:') || user.includes('Part 2 ')) return { body: completion('not json') };
      return json(notesCiting(Number(/#(\d+) /.exec(user)![1]), 'offer'));
    };
    const { summary, run } = await summarizeWithLlmRun(long, {}, llm({ partChars: 1_000 }));
    expect(run.parts).toBeGreaterThan(2);
    // Every part but the second gave one item, in meeting order, each the speaker's own offer.
    expect(summary.action_items).toHaveLength(run.parts - 1);
    expect(summary.action_items.map((a) => a.index)).toEqual(
      [...summary.action_items.map((a) => a.index)].sort((a, b) => a - b),
    );
    expect(summary.action_items.every((a) => a.kind === 'offer' && a.assignee === 'Ada Park')).toBe(true);
    expect(summary.outline.map((o) => o.index)).toEqual(summary.action_items.map((a) => a.index));
    expect(run.fallback_fields).toEqual([]);
  });

  it('throws a retryable error for a server that is down; the summarizer falls back unless told to throw', async () => {
    answer = () => ({ status: 502, body: 'bad gateway' });
    const summary = await createSummarizer({ llm: llm() }).summarize(meeting);
    expect(summary.source).toBe('extractive');
    expect(summary.notes.llm).toMatch(/answered 502: bad gateway; this is the built-in extractive summary instead$/);
    const err = await createSummarizer({ llm: llm() }, { fallback: 'throw' })
      .summarize(meeting)
      .catch((e) => e);
    expect(err).toBeInstanceOf(NetError);
    expect(err.retryable).toBe(true);
  });

  it('waits for a slow model as long as LLM_TIMEOUT says, and no longer', async () => {
    answer = () => ({ ...json(goodNotes()), delayMs: 1_500 });
    const { summary } = await summarizeWithLlmRun(meeting, {}, llm({ timeoutMs: 5_000 }));
    expect(summary.source).toBe('llm');
    const err = await summarizeWithLlmRun(meeting, {}, llm({ timeoutMs: 400 })).catch((e) => e);
    expect(err).toBeInstanceOf(NetError);
    expect([err.retryable, err.message]).toEqual([
      true,
      expect.stringMatching(/could not be reached \(no answer within 0 s\)$/),
    ]);
  });

  it('uses the built-in summarizer when LLM_URL is empty', async () => {
    const local = createSummarizer({ llm: { url: '', apiKey: '', model: 'x' } });
    expect(local.source).toBe('extractive');
    const { summary, run } = await local.summarizeWithRun(meeting);
    expect(summary.source).toBe('extractive');
    expect(run).toMatchObject({ source: 'extractive', model: null, calls: 0, error: null });
    expect(server.received).toHaveLength(0);
  });
});
