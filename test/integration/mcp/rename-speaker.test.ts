/**
 * svc_rename_speaker and GraphQL renameSpeaker: a meeting speaker named everywhere the meeting keeps
 * speaker names, under the meeting's edit rule, over the SDK's MCP client and HTTP GraphQL.
 */
import { newId } from '../../../services/core/input';
import { renameSpeaker, SPEAKER_NAME_MAX } from '../../../services/core/meetings';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const RENAME = /* GraphQL */ `
  mutation ($meetingId: ID!, $from: String!, $to: String!, $email: String) {
    renameSpeaker(meetingId: $meetingId, from: $from, to: $to, email: $email) {
      meetingId
      speaker
      previous_speaker
      email
      sentences
      action_items_owned
    }
  }
`;

/** "Speaker 2" as a whole name: not the start of "Speaker 21". */
const OLD = /Speaker 2(?!\d)/;

describe('naming a meeting speaker', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let olivia: TestUser;
  let pat: TestUser;
  let tom: TestUser;
  let priya: TestUser;
  let outsiderAdmin: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { flags: ['search'] });
    const other = await makeTeam(t.db, { flags: ['search'] });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    tom = await makeUser(t.db, team, { name: 'Tom' });
    priya = await makeUser(t.db, team, { name: 'Priya Shah' });
    outsiderAdmin = await makeUser(t.db, other, { role: 'admin' });
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
  });
  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  /**
   * A meeting organized by Olivia, Pat a participant, with an unnamed "Speaker 2" (and a "Speaker 21"
   * that must keep its name), its analytics, summary and action items.
   */
  async function meeting(extra: { isLive?: boolean; status?: string } = {}) {
    const m = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Launch planning',
      date: new Date(Date.now() - 86_400_000),
      participants: [{ email: pat.email, name: 'Pat' }],
      sentences: [
        { speaker: 'Olivia', text: 'Welcome, let us plan the launch.', start: 0, end: 4 },
        { speaker: 'Speaker 2', text: 'I will send the pricing sheet by Friday.', start: 4, end: 8 },
        { speaker: 'Speaker 21', text: 'The budget forecast looks healthy.', start: 8, end: 12 },
        { speaker: 'Speaker 2', text: 'Then the pricing is settled.', start: 12, end: 15 },
      ],
      summary: {
        overview:
          'Planning with Olivia, Speaker 2 and Speaker 21, 1 min.\n- Speaker 2: I will send the pricing sheet by Friday.',
        short_summary: 'Planning with Olivia, Speaker 2 and Speaker 21 (1 min).',
        action_items: [
          {
            text: 'I will send the pricing sheet by Friday.',
            assignee: 'Speaker 2',
            due: 'Friday',
            due_date: null,
            speaker_name: 'Speaker 2',
            start_time: 4,
          },
        ],
      },
      ...extra,
    });
    await t.db('speaker_analytics').insert(
      ['Olivia', 'Speaker 2', 'Speaker 21'].map((name, i) => ({
        meeting_id: m.id,
        speaker_id: i,
        name,
        email: name === 'Olivia' ? olivia.email : null,
        duration: 4 + i,
        word_count: 7,
        words_per_minute: 100,
        filler_words: 1,
        questions: 0,
        monologues_count: 1,
        longest_monologue: 4,
        duration_pct: 33,
        positive_pct: 40,
        neutral_pct: 50,
        negative_pct: 10,
      })),
    );
    const item = (key: string, ownerSetBy: string | null) => ({
      id: newId(),
      team_id: olivia.teamId,
      meeting_id: m.id,
      meeting_date: new Date(Date.now() - 86_400_000),
      item_key: key,
      text: key,
      sentence_index: 1,
      start_time: 4,
      speaker_name: 'Speaker 2',
      owner_name: 'Speaker 2',
      owner_email: null,
      owner_set_by: ownerSetBy,
    });
    // The second owner was set by a person: it stays as they set it.
    await t.db('action_items').insert([item('send the pricing sheet', null), item('settle the pricing', olivia.id)]);
    return m;
  }

  const speakersOf = async (id: string) =>
    (await t.db('sentences').where({ meeting_id: id }).distinct('speaker_name').orderBy('speaker_name')).map(
      (r) => r.speaker_name,
    );

  async function pageHtml(user: TestUser, id: string): Promise<string> {
    const res = await mcp.page(user, `/meetings/${id}`);
    expect(res.status).toBe(200);
    return res.text();
  }

  it('renames the speaker in the transcript, search moments, analytics, page, summary and action items; an owner a person set stays', async () => {
    const m = await meeting();
    const analyticsBefore = await mcp.call(admin.key, 'svc_get_analytics', {});
    expect(analyticsBefore.data.users.map((u: { email: string }) => u.email)).not.toContain(priya.email);
    const searchBefore = await mcp.call(olivia.key, 'svc_search', {
      query: `pricing participants:${priya.email}`,
      format: 'json',
    });
    expect(searchBefore.data.meetings).toHaveLength(0);

    const res = await mcp.call(olivia.key, 'svc_rename_speaker', {
      meetingId: m.id,
      from: 'Speaker 2',
      to: '  Priya   Shah ',
      email: priya.email.toUpperCase(),
    });
    expect(res.isError).toBe(false);
    expect(res.data).toEqual({
      success: true,
      meetingId: m.id,
      speaker: 'Priya Shah',
      previous_speaker: 'Speaker 2',
      email: priya.email,
      sentences: 2,
      action_items_owned: 1,
    });

    // The transcript.
    const transcript = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: m.id, format: 'json' });
    expect(transcript.data.sentences.map((s: { speaker_name: string }) => s.speaker_name)).toEqual([
      'Olivia',
      'Priya Shah',
      'Speaker 21',
      'Priya Shah',
    ]);
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Priya Shah', 'Speaker 21']);

    // Search: the person's email finds the meeting, and the moments carry the new name.
    const search = await mcp.call(olivia.key, 'svc_search', {
      query: `pricing participants:${priya.email}`,
      format: 'json',
    });
    expect(search.data.meetings.map((x: { id: string }) => x.id)).toEqual([m.id]);
    const moments = search.data.moments.filter((x: { meeting_id: string }) => x.meeting_id === m.id);
    expect(moments.length).toBeGreaterThan(0);
    for (const mo of moments) expect(mo.speaker_name).toBe('Priya Shah');
    // Priya now takes part, so she finds it among her own meetings.
    const hers = await mcp.call(priya.key, 'svc_search', { query: 'pricing mine:true', format: 'json' });
    expect(hers.data.meetings.map((x: { id: string }) => x.id)).toEqual([m.id]);

    // Analytics: the speaker counts for Priya through her email.
    const analytics = await mcp.call(admin.key, 'svc_get_analytics', {});
    expect(analytics.data.users.map((u: { email: string }) => u.email)).toContain(priya.email);
    expect(
      await t.db('speaker_analytics').where({ meeting_id: m.id }).orderBy('speaker_id').select('name', 'email'),
    ).toEqual([
      { name: 'Olivia', email: olivia.email },
      { name: 'Priya Shah', email: priya.email },
      { name: 'Speaker 21', email: null },
    ]);

    // The summary: whole-name mentions only ("Speaker 21" keeps its name).
    const summary = await mcp.call(olivia.key, 'svc_get_summary', { transcriptId: m.id });
    expect(summary.data.overview).toBe(
      'Planning with Olivia, Priya Shah and Speaker 21, 1 min.\n- Priya Shah: I will send the pricing sheet by Friday.',
    );
    expect(summary.data.short_summary).toBe('Planning with Olivia, Priya Shah and Speaker 21 (1 min).');
    const stored = await t.db('summaries').where({ meeting_id: m.id }).first('action_items');
    expect(stored.action_items[0]).toMatchObject({ assignee: 'Priya Shah', speaker_name: 'Priya Shah' });

    // Action items: the summary's owner follows; the one a person set does not.
    const items = await mcp.call(olivia.key, 'svc_get_action_items', { meetingId: m.id, format: 'json' });
    const owners = Object.fromEntries(
      items.data.action_items.map((i: { text: string; owner_name: string; owner_email: string | null }) => [
        i.text,
        [i.owner_name, i.owner_email],
      ]),
    );
    expect(owners).toEqual({
      'send the pricing sheet': ['Priya Shah', priya.email],
      'settle the pricing': ['Speaker 2', null],
    });
    expect(
      (await t.db('action_items').where({ meeting_id: m.id }).distinct('speaker_name')).map((r) => r.speaker_name),
    ).toEqual(['Priya Shah']);

    // The meeting page.
    const html = await pageHtml(olivia, m.id);
    expect(html).toContain('Priya Shah');
    expect(html).toContain('Speaker 21');
    // Only the owner a person set still says the old name.
    expect(html.match(new RegExp(OLD.source, 'g'))).toEqual(['Speaker 2']);
    expect(html).toContain('<span class="meta">Speaker 2</span>');

    // Audited like the other meeting edits.
    const [row] = await t.db('audit_log').where({ target_id: m.id, action: 'meeting.rename_speaker' });
    expect(row).toMatchObject({ actor_user_id: olivia.id, target_type: 'meeting' });
    expect(row.details).toMatchObject({
      from: 'Speaker 2',
      to: 'Priya Shah',
      email: priya.email,
      sentences: 2,
      action_items_owned: 1,
      summary: true,
    });

    // Renamed again, the old name is not a speaker any more.
    const again = await mcp.call(olivia.key, 'svc_rename_speaker', {
      meetingId: m.id,
      from: 'Speaker 2',
      to: 'Priya Shah',
    });
    expect(again.data.error).toMatchObject({ code: 'invalid_arguments', field: 'from' });
    expect(again.data.error.message).toContain('"Priya Shah"');
  });

  it('without an email keeps the one the speaker had, and renames a participant listed under the old name', async () => {
    const m = await meeting();
    // A summary whose items are plain text keeps them as they are.
    await t
      .db('summaries')
      .where({ meeting_id: m.id })
      .update({ action_items: JSON.stringify(['Send the deck']) });
    const res = await mcp.call(admin.key, 'svc_rename_speaker', { meetingId: m.id, from: 'Olivia', to: 'Olivia Park' });
    expect(res.data).toMatchObject({
      speaker: 'Olivia Park',
      email: olivia.email,
      sentences: 1,
      action_items_owned: 0,
    });
    expect(await t.db('meeting_participants').where({ meeting_id: m.id, email: olivia.email }).first('name')).toEqual({
      name: 'Olivia Park',
    });
    expect((await t.db('speaker_analytics').where({ meeting_id: m.id, speaker_id: 0 }).first('name')).name).toBe(
      'Olivia Park',
    );
    expect(await t.db('summaries').where({ meeting_id: m.id }).first('action_items', 'short_summary')).toEqual({
      action_items: ['Send the deck'],
      short_summary: 'Planning with Olivia Park, Speaker 2 and Speaker 21 (1 min).',
    });
  });

  it('lets the organizer and a team admin rename; a member who can read, a participant and another team may not, and nothing changes', async () => {
    const m = await meeting();
    const unknown = await mcp.call(admin.key, 'svc_rename_speaker', {
      meetingId: 'no-such-meeting',
      from: 'Speaker 2',
      to: 'Priya Shah',
    });
    expect(unknown.data.error).toMatchObject({ code: 'object_not_found' });
    expect(unknown.data.error.message).toContain('no-such-meeting');
    for (const [who, code] of [
      [pat, 'forbidden'],
      [tom, 'forbidden'],
      [outsiderAdmin, 'object_not_found'],
    ] as const) {
      const res = await mcp.call(who.key, 'svc_rename_speaker', {
        meetingId: m.id,
        from: 'Speaker 2',
        to: 'Priya Shah',
      });
      expect([who.email, res.data.error.code]).toEqual([who.email, code]);
      const viaGraphql = await gql.request(who.key, RENAME, { meetingId: m.id, from: 'Speaker 2', to: 'Priya Shah' });
      expect([who.email, viaGraphql.body.errors?.[0].extensions?.code]).toEqual([who.email, code]);
    }
    expect((await mcp.call(tom.key, 'svc_get_transcript', { transcriptId: m.id })).isError).toBe(false);
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Speaker 2', 'Speaker 21']);
    expect(await t.db('audit_log').where({ target_id: m.id, action: 'meeting.rename_speaker' })).toHaveLength(0);

    const byAdmin = await mcp.call(admin.key, 'svc_rename_speaker', { meetingId: m.id, from: 'Speaker 21', to: 'Raj' });
    expect(byAdmin.isError).toBe(false);
    const byOrganizer = await gql.request(olivia.key, RENAME, {
      meetingId: m.id,
      from: 'Speaker 2',
      to: 'Priya Shah',
      email: priya.email,
    });
    expect(byOrganizer.body.errors).toBeUndefined();
    expect(byOrganizer.body.data.renameSpeaker).toEqual({
      meetingId: m.id,
      speaker: 'Priya Shah',
      previous_speaker: 'Speaker 2',
      email: priya.email,
      sentences: 2,
      action_items_owned: 1,
    });
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Priya Shah', 'Raj']);
  });

  it(`takes a new name of 1 and ${SPEAKER_NAME_MAX} characters, refuses 0 (after trimming) and ${SPEAKER_NAME_MAX + 1}`, async () => {
    const m = await meeting();
    const longest = 'P'.repeat(SPEAKER_NAME_MAX);
    expect(
      (await mcp.call(olivia.key, 'svc_rename_speaker', { meetingId: m.id, from: 'Speaker 2', to: longest })).isError,
    ).toBe(false);
    expect(
      (await mcp.call(olivia.key, 'svc_rename_speaker', { meetingId: m.id, from: longest, to: 'Q' })).isError,
    ).toBe(false);
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Q', 'Speaker 21']);

    const tooLong = await mcp.call(olivia.key, 'svc_rename_speaker', {
      meetingId: m.id,
      from: 'Q',
      to: 'P'.repeat(SPEAKER_NAME_MAX + 1),
    });
    expect(tooLong.data.error).toMatchObject({ code: 'invalid_arguments', field: 'to' });
    expect(tooLong.data.error.message).toContain(String(SPEAKER_NAME_MAX));
    const blank = await mcp.call(olivia.key, 'svc_rename_speaker', { meetingId: m.id, from: 'Q', to: '   ' });
    expect(blank.data.error).toMatchObject({ code: 'invalid_arguments', field: 'to' });
    // The core function holds the rule for every transport.
    await expect(
      renameSpeaker(t.db, olivia.principal, { meetingId: m.id, from: 'Q', to: 'P'.repeat(SPEAKER_NAME_MAX + 1) }),
    ).rejects.toMatchObject({ code: 'invalid_arguments', details: { field: 'to' } });
    const viaGraphql = await gql.request(olivia.key, RENAME, { meetingId: m.id, from: 'Q', to: '' });
    expect(viaGraphql.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'to' });
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Q', 'Speaker 21']);
  });

  it("refuses control characters, an unknown speaker, a bad email and another speaker's name, naming the field", async () => {
    const m = await meeting();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ from: 'Speaker 2', to: 'Priya\nShah' }, 'to', /control characters/],
      [{ from: 'Speaker 2', to: 'Priya\tShah' }, 'to', /control characters/],
      [
        { from: 'Speaker 3', to: 'Priya Shah' },
        'from',
        /"Speaker 3" is not a speaker of meeting .*"Olivia", "Speaker 2", "Speaker 21"/,
      ],
      [{ from: 'speaker 2', to: 'Priya Shah' }, 'from', /not a speaker/],
      [{ from: 'Speaker 2', to: 'Priya Shah', email: 'priya-at-example' }, 'email', /email address/],
      [
        { from: 'Speaker 2', to: 'olivia' },
        'to',
        /"Olivia" is already another speaker of this meeting; speakers are not merged/,
      ],
    ];
    for (const [args, field, message] of cases) {
      const res = await mcp.call(olivia.key, 'svc_rename_speaker', { meetingId: m.id, ...args });
      expect([args, res.data.error.code, res.data.error.field]).toEqual([args, 'invalid_arguments', field]);
      expect(res.data.error.message).toMatch(message);
    }
    expect(await speakersOf(m.id)).toEqual(['Olivia', 'Speaker 2', 'Speaker 21']);
    // Changing only the case of a speaker's own name is no clash.
    expect(
      (await mcp.call(olivia.key, 'svc_rename_speaker', { meetingId: m.id, from: 'Olivia', to: 'OLIVIA' })).isError,
    ).toBe(false);
  });

  it("leaves a live meeting's speakers as its source sends them, and a meeting still processing has none", async () => {
    const live = await meeting({ isLive: true });
    const res = await mcp.call(olivia.key, 'svc_rename_speaker', {
      meetingId: live.id,
      from: 'Speaker 2',
      to: 'Priya Shah',
    });
    expect(res.data.error).toMatchObject({ code: 'invariant_violation' });
    expect(res.data.error.message).toMatch(/live: it keeps the speaker names its source sends/);
    expect(await speakersOf(live.id)).toContain('Speaker 2');
    const processing = await meeting({ status: 'processing' });
    const pending = await mcp.call(olivia.key, 'svc_rename_speaker', {
      meetingId: processing.id,
      from: 'Speaker 2',
      to: 'Priya Shah',
    });
    expect(pending.data.error.message).toMatch(/no transcript yet \(status processing\)/);
  });
});
