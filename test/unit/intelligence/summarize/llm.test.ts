import { createSummarizer, LLM_SUMMARY_SCHEMA, summarizeWithLlm } from '../../../../services/intelligence/summarize';
import { NetError } from '../../../../services/net/errors';
import { standIn } from '../http-stand-in';
import { transcript } from '../transcript';

const meeting = transcript([
  ['Ada Park', 0, 4, 'Thanks for joining the pricing review.'],
  ['Ben Ode', 5, 9, "I'll send the revised pricing sheet by Friday."],
  ['Ada Park', 10, 20, 'Great, then we can decide on the discount next week.'],
]);

const modelAnswer = {
  keywords: ['pricing sheet', 'discount'],
  action_items: [{ text: 'Send the revised pricing sheet', assignee: 'Ben Ode', due: 'Friday', start_time: 5.2 }],
  overview: 'Ada and Ben reviewed pricing and agreed on next steps.',
  short_summary: 'Pricing review; Ben sends the sheet by Friday.',
  topics_discussed: ['Pricing', 'Discount'],
  meeting_type: 'sales',
  outline: [
    { title: 'Next steps', start_time: 10 },
    { title: 'Pricing sheet', start_time: 0 },
  ],
};

function completion(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  };
}

describe('OpenAI-compatible chat summarizer', () => {
  let server: Awaited<ReturnType<typeof standIn>>;
  beforeAll(async () => {
    server = await standIn((req) => {
      if (req.url.startsWith('/broken')) return { body: completion('Sure! Here is a summary of the meeting.') };
      if (req.url.startsWith('/fenced'))
        return { body: completion('```json\n' + JSON.stringify({ ...modelAnswer, keywords: [] }) + '\n```') };
      if (req.url.startsWith('/down')) return { status: 502, body: 'bad gateway' };
      return { body: completion(JSON.stringify(modelAnswer)) };
    });
  });
  afterAll(() => server.close());

  const llm = () => ({ url: server.url, apiKey: 'sk-llm', model: 'qwen2.5-7b-instruct' });

  it('posts a chat completion asking for JSON that fits the summary schema', async () => {
    await summarizeWithLlm(meeting, { title: 'Pricing review', meetingDate: '2026-10-14' }, llm());
    const req = server.received.at(-1)!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-llm');
    expect(req.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req.body.toString('utf8'));
    expect(body.model).toBe('qwen2.5-7b-instruct');
    expect(body.temperature).toBe(0);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'meeting_summary', strict: true, schema: LLM_SUMMARY_SCHEMA },
    });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1].content).toContain('Title: Pricing review');
    expect(body.messages[1].content).toContain("[5.0] Ben Ode: I'll send the revised pricing sheet by Friday.");
  });

  it('turns the answer into the summary fields, with dates and speakers filled in', async () => {
    const summary = await summarizeWithLlm(meeting, { meetingDate: '2026-10-14' }, llm());
    expect(summary).toMatchObject({
      source: 'llm',
      keywords: ['pricing sheet', 'discount'],
      meeting_type: 'sales',
      overview: modelAnswer.overview,
      short_summary: modelAnswer.short_summary,
      notes: {},
    });
    expect(summary.action_items).toEqual([
      {
        text: 'Send the revised pricing sheet',
        assignee: 'Ben Ode',
        due: 'Friday',
        due_date: '2026-10-16',
        speaker_name: 'Ben Ode',
        start_time: 5.2,
        index: 1,
        kind: 'commitment',
        moments: [{ index: 1, start_time: 5 }],
      },
    ]);
    // sections in time order, each ending where the next begins
    expect(summary.outline).toEqual([
      { title: 'Pricing sheet', start_time: 0, end_time: 10, summary: '', index: 0 },
      { title: 'Next steps', start_time: 10, end_time: 20, summary: '', index: 2 },
    ]);
  });

  it('reads JSON wrapped in a Markdown fence and notes fields the model left empty', async () => {
    const summary = await summarizeWithLlm(meeting, {}, { ...llm(), url: `${server.url}/fenced` });
    expect(summary.keywords).toEqual([]);
    expect(summary.notes.keywords).toBe('the chat model returned none');
  });

  it('refuses an answer that is not the JSON asked for, as a non-retryable error', async () => {
    const error = await summarizeWithLlm(meeting, {}, { ...llm(), url: `${server.url}/broken` }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/unusable summary: the message content is not JSON/);
  });

  it('falls back to the extractive summary, saying why, when the chat model fails', async () => {
    const summarizer = createSummarizer({ llm: { ...llm(), url: `${server.url}/down` } });
    expect(summarizer.source).toBe('llm');
    const summary = await summarizer.summarize(meeting, { meetingDate: '2026-10-14' });
    expect(summary.source).toBe('extractive');
    expect(summary.notes.llm).toMatch(/answered 502.*built-in extractive summary instead/);
    expect(summary.action_items[0]).toMatchObject({ assignee: 'Ben Ode', due_date: '2026-10-16' });
  });

  it('passes the error on with fallback "throw", and uses no chat model without LLM_URL', async () => {
    await expect(
      createSummarizer({ llm: { ...llm(), url: `${server.url}/down` } }, { fallback: 'throw' }).summarize(meeting),
    ).rejects.toMatchObject({
      retryable: true,
      status: 502,
    });
    const before = server.received.length;
    const local = createSummarizer({ llm: { url: '', apiKey: '', model: 'x' } });
    expect(local.source).toBe('extractive');
    expect((await local.summarize(meeting)).source).toBe('extractive');
    expect(server.received.length).toBe(before);
  });

  it('cuts a transcript longer than the budget and says so', async () => {
    const summary = await summarizeWithLlm(meeting, {}, { ...llm(), maxTranscriptChars: 60 });
    const sent = JSON.parse(server.received.at(-1)!.body.toString('utf8')).messages[1].content as string;
    expect(sent).toContain('Thanks for joining');
    expect(sent).not.toContain('revised pricing sheet');
    expect(summary.notes.llm).toMatch(/longer than 60 characters/);
  });
});
