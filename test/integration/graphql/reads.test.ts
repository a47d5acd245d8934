/**
 * Reads for polling apps: transcript(id) and transcripts(...) answer what the MCP tools answer
 * (same core functions), with the same limits and permissions.
 */
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeChannel, makeTeam, makeUser, makeMeeting, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { McpHarness, startMcp } from '../../support/mcp';

const LIST_FIELDS =
  'meetings { id title dateString date duration organizer_email participants privacy is_live transcript_url summary } total total_is_lower_bound has_more next_skip';
const LIST = `query List($keyword: String, $scope: TranscriptScope, $fromDate: String, $toDate: String, $limit: Int, $skip: Int, $organizers: [String!], $participants: [String!], $mine: Boolean, $channelId: ID) {
  transcripts(keyword: $keyword, scope: $scope, fromDate: $fromDate, toDate: $toDate, limit: $limit, skip: $skip, organizers: $organizers, participants: $participants, mine: $mine, channelId: $channelId) { ${LIST_FIELDS} }
}`;
const ONE = `query One($id: ID!, $fromIndex: Int, $maxTokens: Int) {
  transcript(id: $id, fromIndex: $fromIndex, maxTokens: $maxTokens) {
    id title dateString date duration organizer_email participants privacy is_live transcript_url status
    meeting_info { summary_status message }
    meeting_analytics { duration_seconds silence_seconds talk_listen_ratio positive_pct neutral_pct negative_pct }
    analytics { speaker_id name duration word_count longest_monologue monologues_count filler_words questions duration_pct words_per_minute positive_pct neutral_pct negative_pct }
    sentences { index speaker_name speaker_id text raw_text start_time end_time }
    has_more next_index
  }
}`;
const SUMMARY = `query S($id: ID!) { transcript(id: $id) { summary { summary_status message keywords overview short_summary meeting_type topics_discussed action_items { text assignee } outline { title } notes { field message } } } }`;

describe('GraphQL reads', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    owner = await makeUser(t.db, team, { name: 'Owen Owner' });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada Admin' });
    member = await makeUser(t.db, team, { name: 'Max Member' });
    outsider = await makeUser(t.db, await makeTeam(t.db), { role: 'super_admin' });
    ids.done = (
      await makeMeeting(t.db, {
        organizer: owner,
        title: 'Roadmap review',
        date: '2026-11-02T15:00:00Z',
        summary: { keywords: ['roadmap', 'budget'] },
      })
    ).id;
    ids.private = (
      await makeMeeting(t.db, {
        organizer: owner,
        title: 'Private notes',
        privacy: 'owner',
        date: '2026-11-03T10:00:00Z',
      })
    ).id;
    ids.processing = (
      await makeMeeting(t.db, {
        organizer: owner,
        title: 'Still processing',
        status: 'processing',
        sentences: [],
        date: '2026-11-04T10:00:00Z',
      })
    ).id;
    ids.failed = (
      await makeMeeting(t.db, {
        organizer: owner,
        title: 'Broken upload',
        status: 'failed',
        sentences: [],
        date: '2026-11-05T10:00:00Z',
      })
    ).id;
    await t.db('meetings').where({ id: ids.failed }).update({ failure_reason: 'url: server answered 404' });
    for (let i = 0; i < 3; i++)
      await makeMeeting(t.db, { organizer: member, title: `Member sync ${i}`, date: `2026-10-1${i}T09:00:00Z` });
    gql = await startGraphql(t.db);
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  it('transcript(id) returns what svc_get_transcript returns, with every raw_text (MCP leaves out those equal to text)', async () => {
    const res = await gql.request(owner.key, ONE, { id: ids.done });
    expect(res.body.errors).toBeUndefined();
    const viaMcp = await mcp.call(owner.key, 'svc_get_transcript', { transcriptId: ids.done, format: 'json' });
    expect(viaMcp.data.sentences.every((s: any) => s.raw_text === null)).toBe(true);
    const filled = {
      ...viaMcp.data,
      sentences: viaMcp.data.sentences.map((s: any) => ({ ...s, raw_text: s.raw_text ?? s.text })),
    };
    expect(res.body.data.transcript).toEqual(filled);
    expect(res.body.data.transcript.sentences.map((s: any) => s.speaker_name)).toEqual(['Owen Owner', 'Guest']);
  });

  it('summary is read when selected, with the fields svc_get_summary returns', async () => {
    const res = await gql.request(owner.key, SUMMARY, { id: ids.done });
    const s = res.body.data.transcript.summary;
    const viaMcp = (await mcp.call(owner.key, 'svc_get_summary', { transcriptId: ids.done })).data;
    expect(s).toMatchObject({
      summary_status: 'processed',
      message: null,
      keywords: viaMcp.keywords,
      overview: viaMcp.overview,
      meeting_type: viaMcp.meeting_type,
    });
    expect(s.notes.map((n: any) => n.field).sort()).toEqual(Object.keys(viaMcp.notes).sort());
  });

  it('pages long transcripts with the same budget rules', async () => {
    const first = await gql.request(owner.key, ONE, { id: ids.done, maxTokens: 500 });
    expect(first.body.data.transcript.sentences.length).toBeGreaterThan(0);
    const tooSmall = await gql.request(owner.key, ONE, { id: ids.done, maxTokens: 499 });
    expect(tooSmall.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'maxTokens' });
    const from = await gql.request(owner.key, ONE, { id: ids.done, fromIndex: 1 });
    expect(from.body.data.transcript.sentences.map((s: any) => s.index)).toEqual([1]);
    const negative = await gql.request(owner.key, ONE, { id: ids.done, fromIndex: -1 });
    expect(negative.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'fromIndex' });
  });

  it("shows a processing meeting's status and a failed meeting's reason, never a partial transcript", async () => {
    const processing = (await gql.request(owner.key, ONE, { id: ids.processing })).body.data.transcript;
    expect(processing).toMatchObject({
      status: 'processing',
      sentences: [],
      meeting_info: { summary_status: 'processing' },
    });
    const failed = (await gql.request(owner.key, ONE, { id: ids.failed })).body.data.transcript;
    expect(failed).toMatchObject({ status: 'failed', sentences: [], meeting_info: { summary_status: 'failed' } });
    expect(failed.meeting_info.message).toContain('url: server answered 404');
    const summary = (await gql.request(owner.key, SUMMARY, { id: ids.failed })).body.data.transcript.summary;
    expect(summary).toMatchObject({ summary_status: 'failed', keywords: [], action_items: [] });
    expect(summary.message).toContain('404');
  });

  it('follows the meeting permissions: owner and admin yes, member not on an owner-only meeting, other team never', async () => {
    expect((await gql.request(owner.key, ONE, { id: ids.private })).body.data.transcript.id).toBe(ids.private);
    expect((await gql.request(admin.key, ONE, { id: ids.private })).body.data.transcript.id).toBe(ids.private);
    expect((await gql.request(member.key, ONE, { id: ids.done })).body.data.transcript.id).toBe(ids.done);
    const hidden = await gql.request(member.key, ONE, { id: ids.private });
    expect(hidden.body.data).toBeNull();
    expect(hidden.body.errors![0]).toMatchObject({ path: ['transcript'], extensions: { code: 'object_not_found' } });
    const foreign = await gql.request(outsider.key, ONE, { id: ids.done });
    expect(foreign.body.errors![0].extensions).toEqual({ code: 'object_not_found' });
  });

  it('names the id argument when it is empty', async () => {
    const res = await gql.request(owner.key, ONE, { id: ' ' });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'id' });
    expect(res.body.errors![0].message).toMatch(/^id /);
  });

  it('transcripts(...) returns exactly what svc_get_transcripts returns for the same filters', async () => {
    for (const filters of [
      {},
      { keyword: 'roadmap' },
      { limit: 2 },
      { limit: 2, skip: 2 },
      { mine: true },
      { fromDate: '2026-10-11', toDate: '2026-10-12' },
      { organizers: [member.email] },
    ]) {
      const res = await gql.request(owner.key, LIST, filters);
      expect(res.body.errors).toBeUndefined();
      // GraphQL lists carry no moments: the MCP list without them.
      const viaMcp = await mcp.call(owner.key, 'svc_get_transcripts', { ...filters, moments: 0, format: 'json' });
      expect(res.body.data.transcripts).toEqual(viaMcp.data);
    }
  });

  it("transcripts(channelId) lists a visible channel's meetings; a channel the caller cannot see is object_not_found", async () => {
    const open = (await makeChannel(t.db, owner.teamId, 'Open', [])).id;
    const closed = (await makeChannel(t.db, owner.teamId, 'Closed', [owner], true)).id;
    const inOpen = (
      await makeMeeting(t.db, {
        organizer: owner,
        title: 'Channel call',
        channelId: open,
        date: '2026-09-01T10:00:00Z',
      })
    ).id;
    const res = await gql.request(member.key, LIST, { channelId: open });
    expect(res.body.data.transcripts).toMatchObject({
      meetings: [{ id: inOpen }],
      total: 1,
      total_is_lower_bound: false,
    });
    const hidden = await gql.request(member.key, LIST, { channelId: closed });
    expect(hidden.body.errors![0].extensions).toMatchObject({ code: 'object_not_found' });
  });

  it('pages with has_more and next_skip', async () => {
    const page = (await gql.request(owner.key, LIST, { limit: 2 })).body.data.transcripts;
    expect(page.meetings).toHaveLength(2);
    expect(page).toMatchObject({ has_more: true, next_skip: 2 });
    const all = (await gql.request(owner.key, LIST, { limit: 50 })).body.data.transcripts;
    expect(all).toMatchObject({ has_more: false, next_skip: null });
    // The owner-only meeting of someone else never appears in a member's list.
    const mine = (await gql.request(member.key, LIST, { limit: 50 })).body.data.transcripts;
    expect(mine.meetings.map((m: any) => m.id)).not.toContain(ids.private);
    expect((await gql.request(outsider.key, LIST, { limit: 50 })).body.data.transcripts.meetings).toEqual([]);
  });

  it('applies the spec limits on both sides: limit 50/51, keyword 255/256, dates, emails, scope', async () => {
    expect((await gql.request(owner.key, LIST, { limit: 50 })).body.errors).toBeUndefined();
    const err = async (vars: Record<string, unknown>) =>
      (await gql.request(owner.key, LIST, vars)).body.errors![0].extensions;
    expect(await err({ limit: 51 })).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
    expect(await err({ limit: 0 })).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
    expect((await gql.request(owner.key, LIST, { keyword: 'k'.repeat(255) })).body.errors).toBeUndefined();
    expect(await err({ keyword: 'k'.repeat(256) })).toMatchObject({ code: 'invalid_arguments', field: 'keyword' });
    expect(await err({ fromDate: '2026-02-30' })).toMatchObject({ code: 'invalid_arguments', field: 'fromDate' });
    expect(await err({ fromDate: '2026-11-02', toDate: '2026-11-01' })).toMatchObject({
      code: 'invalid_arguments',
      field: 'fromDate',
    });
    expect(await err({ participants: ['not-an-email'] })).toMatchObject({
      code: 'invalid_arguments',
      field: 'participants',
    });
    expect(await err({ scope: 'everything' })).toMatchObject({ code: 'invalid_arguments', field: 'scope' });
    expect(await err({ limit: 'ten' })).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
  });
});
