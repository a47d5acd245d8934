/**
 * svc_correct_sentence and GraphQL correctSentence: one sentence's text replaced under the meeting's
 * edit rule, over the SDK's MCP client and HTTP GraphQL; search, the changes feed and the outbox
 * follow in the same statement, and the meeting's vectors are computed again, never stored for words
 * that changed while the model ran.
 */
import { correctSentence, SENTENCE_TEXT_MAX } from '../../../services/core/meetings';
import { embedMeeting, WordsChangedError, type TextEmbedder } from '../../../services/core/passages';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { McpHarness, startMcp } from '../../support/mcp';
import { testEmbedder } from '../../support/embedder';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { recordingWorkflows } from '../../support/workflow-port';
import { testConfig } from '../../support/config';
import { settled } from '../../support/changes';

const CORRECT = /* GraphQL */ `
  mutation ($meetingId: ID!, $index: Int!, $text: String!) {
    correctSentence(meetingId: $meetingId, index: $index, text: $text) {
      meetingId
      index
      text
      previous_text
      changed
      meaning
    }
  }
`;

describe('correcting a transcript sentence', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  const workflows = recordingWorkflows();
  let admin: TestUser;
  let olivia: TestUser;
  let pat: TestUser;
  let outsiderAdmin: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { flags: ['search'] });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    outsiderAdmin = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    mcp = await startMcp(t.db, {}, { workflows });
    gql = await startGraphql(t.db);
  });
  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  const meeting = (extra: { status?: string; isLive?: boolean } = {}) =>
    makeMeeting(t.db, {
      organizer: olivia,
      title: 'Vendor call',
      participants: [{ email: pat.email, name: 'Pat' }],
      sentences: [
        { speaker: 'Olivia', text: 'Thanks for joining the vendor call.', start: 0, end: 3 },
        { speaker: 'Pat', text: 'We will sign with Akme next week.', start: 3, end: 6 },
        { speaker: 'Olivia', text: 'Good, that settles the hosting.', start: 6, end: 9 },
      ],
      ...extra,
    });

  const sentence = async (meetingId: string, idx: number) =>
    t.db('sentences').where({ meeting_id: meetingId, idx }).first('text', 'raw_text', 'speaker_name', 'start_time');

  it('replaces the text, keeps speaker, times and what the engine heard, and search follows', async () => {
    const m = await meeting();
    const before = await sentence(m.id, 1);
    const res = await mcp.call(olivia.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 1,
      text: '  We will sign with  Acme Cloud next week.',
    });
    expect(res.isError).toBeFalsy();
    expect(res.data).toEqual({
      success: true,
      meetingId: m.id,
      index: 1,
      text: 'We will sign with Acme Cloud next week.',
      previous_text: 'We will sign with Akme next week.',
      changed: true,
      meaning: 'unchanged',
    });
    expect(await sentence(m.id, 1)).toEqual({ ...before, text: 'We will sign with Acme Cloud next week.' });

    const page = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: m.id, format: 'json' });
    expect(page.data.sentences[1].text).toBe('We will sign with Acme Cloud next week.');
    const found = await mcp.call(olivia.key, 'svc_get_transcripts', { keyword: 'acme', format: 'json' });
    expect(found.data.meetings.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(found.data.moments[0]).toMatchObject({ meeting_id: m.id, index: 1 });
    const gone = await mcp.call(olivia.key, 'svc_get_transcripts', { keyword: 'akme', format: 'json' });
    expect(gone.data.meetings).toEqual([]);
  });

  it('records the change once in the changes feed and the audit log, and not again for the same text', async () => {
    const m = await meeting();
    // A page reads only transactions older than every one still running (other test files' too).
    await settled(t.db);
    const first = await mcp.call(admin.key, 'svc_get_changes', { limit: 200, format: 'json' });
    let cursor = first.data.next_cursor;
    for (let page = first.data; page.has_more; cursor = page.next_cursor)
      page = (await mcp.call(admin.key, 'svc_get_changes', { cursor, limit: 200, format: 'json' })).data;

    await mcp.call(admin.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 0,
      text: 'Welcome to the vendor call.',
    });
    await settled(t.db);
    const changes = await mcp.call(admin.key, 'svc_get_changes', { cursor, format: 'json' });
    expect(changes.data.changes).toEqual([expect.objectContaining({ meeting_id: m.id, changed: 'transcript' })]);

    const again = await mcp.call(admin.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 0,
      text: 'Welcome to the vendor call.',
    });
    expect(again.data).toMatchObject({ changed: false, previous_text: 'Welcome to the vendor call.' });
    await settled(t.db);
    const after = await mcp.call(admin.key, 'svc_get_changes', { cursor: changes.data.next_cursor, format: 'json' });
    expect(after.data.changes).toEqual([]);
    const audit = await t.db('audit_log').where({ action: 'meeting.correct_sentence', target_id: m.id });
    expect(audit).toHaveLength(1);
    // The audit row outlives the meeting: it names the sentence, never its words.
    expect(JSON.stringify(audit[0])).not.toMatch(/vendor/i);
  });

  it('enforces the index and the text at their limits', async () => {
    const m = await meeting();
    const ok = await mcp.call(olivia.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 2,
      text: 'x'.repeat(SENTENCE_TEXT_MAX),
    });
    expect(ok.data).toMatchObject({ index: 2, changed: true });

    const past = await mcp.call(olivia.key, 'svc_correct_sentence', { meetingId: m.id, index: 3, text: 'No.' });
    expect(past.isError).toBe(true);
    expect(past.text).toMatch(/index 3 is past the transcript: meeting .+ has sentences 0 to 2/);
    expect(past.text).toMatch(/field: index/);

    const long = await mcp.call(olivia.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 2,
      text: 'x'.repeat(SENTENCE_TEXT_MAX + 1),
    });
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(/text.*at most 5000 characters/);

    for (const [args, message] of [
      [{ index: -1, text: 'No.' }, /index.*0 or more/],
      [{ index: 1.5, text: 'No.' }, /index.*whole number/],
      [{ index: 1, text: '' }, /text.*must not be empty/],
      [{ index: 1, text: '   ' }, /text must be 1 to 5000 characters/],
      [{ index: 1, text: 'two\nlines' }, /text must be one line without control characters/],
    ] as const) {
      const res = await mcp.call(olivia.key, 'svc_correct_sentence', { meetingId: m.id, ...args });
      expect(res.isError).toBe(true);
      expect(res.text).toMatch(message);
    }
    // Nothing refused was written.
    expect((await sentence(m.id, 1)).text).toBe('We will sign with Akme next week.');
  });

  it("lets the organizer and the team's admins, not participants or other teams", async () => {
    const m = await meeting();
    const participant = await mcp.call(pat.key, 'svc_correct_sentence', { meetingId: m.id, index: 1, text: 'Mine.' });
    expect(participant.isError).toBe(true);
    expect(participant.text).toMatch(/forbidden|organizer or an admin/i);
    const outsider = await mcp.call(outsiderAdmin.key, 'svc_correct_sentence', {
      meetingId: m.id,
      index: 1,
      text: 'Mine.',
    });
    expect(outsider.isError).toBe(true);
    expect(outsider.text).toMatch(/not found/i);
    expect((await sentence(m.id, 1)).text).toBe('We will sign with Akme next week.');
    const byAdmin = await mcp.call(admin.key, 'svc_correct_sentence', { meetingId: m.id, index: 1, text: 'Signed.' });
    expect(byAdmin.data).toMatchObject({ changed: true, text: 'Signed.' });
  });

  it('refuses a live meeting and one still processing', async () => {
    const live = await meeting({ isLive: true });
    const res = await mcp.call(olivia.key, 'svc_correct_sentence', { meetingId: live.id, index: 0, text: 'No.' });
    expect(res.text).toMatch(/is live: it keeps the sentences its source sends/);
    const processing = await meeting({ status: 'processing' });
    const res2 = await mcp.call(olivia.key, 'svc_correct_sentence', {
      meetingId: processing.id,
      index: 0,
      text: 'No.',
    });
    expect(res2.text).toMatch(/has no transcript yet \(status processing\)/);
  });

  it('starts computing the vectors again when the meeting has them', async () => {
    const m = await meeting();
    await t.db('meeting_embeddings').insert({ meeting_id: m.id, model: 'any', sentences: 3 });
    const res = await mcp.call(olivia.key, 'svc_correct_sentence', { meetingId: m.id, index: 1, text: 'Acme it is.' });
    expect(res.data.meaning).toBe('updating');
    expect(workflows.embeddings).toContain(m.id);
    // Without a workflow engine the correction stands and says the vectors are stale.
    const deps = { db: t.db, config: testConfig({}, 'mcp') };
    const r = await correctSentence(deps, olivia.principal, { meetingId: m.id, index: 1, text: 'Acme, then.' });
    expect(r).toMatchObject({ changed: true, meaning: 'stale' });
  });

  it('corrects over GraphQL the same way', async () => {
    const m = await meeting();
    const res = await gql.request(olivia.key, CORRECT, {
      meetingId: m.id,
      index: 2,
      text: 'That settles the hosting.',
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.correctSentence).toEqual({
      meetingId: m.id,
      index: 2,
      text: 'That settles the hosting.',
      previous_text: 'Good, that settles the hosting.',
      changed: true,
      meaning: 'unchanged',
    });
    const refused = await gql.request(olivia.key, CORRECT, { meetingId: m.id, index: 9, text: 'No.' });
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'index' });
  });

  it('never stores vectors of words that changed while the model ran', async () => {
    const embedder = await testEmbedder();
    const m = await meeting();
    let corrected = false;
    // The shipped model, with a correction committed while it computes.
    const racing: TextEmbedder = {
      info: embedder.info,
      embedQuery: (text) => embedder.embedQuery(text),
      embedPassages: async (texts) => {
        const vectors = await embedder.embedPassages(texts);
        if (!corrected) {
          corrected = true;
          await t.db('sentences').where({ meeting_id: m.id, idx: 1 }).update({ text: 'We sign with Acme.' });
        }
        return vectors;
      },
    };
    await expect(embedMeeting(t.db, racing, m.id)).rejects.toBeInstanceOf(WordsChangedError);
    expect(await t.db('meeting_embeddings').where('meeting_id', m.id)).toEqual([]);
    // The retry reads the words afresh and stores them.
    expect(await embedMeeting(t.db, racing, m.id)).toBe('embedded');
    expect(await t.db('meeting_embeddings').where('meeting_id', m.id).first('sentences')).toEqual({ sentences: 3 });
  });
});
