/**
 * Action items as records: found when a meeting is summarized (the real summarizer and the real
 * persist, on hand-made meetings with known commitments), listed across meetings through the MCP
 * server and GraphQL, changed by people, and kept as they set them when the meeting is summarized again.
 */
import { analyze } from '../../../../services/intelligence/analytics';
import { summarize } from '../../../../services/intelligence/summarize';
import type { Sentence } from '../../../../services/intelligence/types';
import { persistTranscript } from '../../../../services/core/ingest';
import { flushReads } from '../../../../services/core/audit';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

type Line = [speaker: string, text: string];

const PLANNING: Line[] = [
  ['Ada Park', 'Welcome everyone, this is sprint planning.'],
  ['Ada Park', 'Tom, can you send the release notes by Friday?'],
  ['Tom Berg', 'Sure, I will do that.'],
  ['Ada Park', 'I will update the roadmap by next Monday.'],
  ['Tom Berg', 'I will book the venue for the offsite by November 20.'],
  ['Ada Park', 'Great, thanks everyone.'],
];

function sentencesOf(lines: Line[]): Sentence[] {
  const speakers = [...new Set(lines.map(([s]) => s))];
  return lines.map(([speaker, text], i) => ({
    index: i,
    speaker_name: speaker,
    speaker_id: speakers.indexOf(speaker),
    text,
    raw_text: text,
    start_time: i * 5,
    end_time: i * 5 + 4,
  }));
}

describe('action items', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let ada: TestUser;
  let tom: TestUser;
  let mia: TestUser;
  let planning: string;
  let secret: string;

  async function summarized(lines: Line[], spec: Parameters<typeof makeMeeting>[1]): Promise<string> {
    const { id } = await makeMeeting(t.db, { ...spec, sentences: [], status: 'processing' });
    await persist(id, lines, spec.date);
    return id;
  }

  async function persist(id: string, lines: Line[], date: string | Date | undefined) {
    const sentences = sentencesOf(lines);
    const summary = summarize(sentences, {
      meetingDate: new Date(date ?? '2026-11-02T15:00:00Z').toISOString(),
      participants: [{ name: 'Ada Park' }, { name: 'Tom Berg' }],
    });
    await persistTranscript(t.db, {
      meetingId: id,
      sentences,
      durationSeconds: lines.length * 5,
      analytics: analyze(sentences),
      summary,
    });
  }

  const items = async (key: string, args: Record<string, unknown> = {}) => {
    const r = await mcp.call(key, 'svc_get_action_items', { format: 'json', ...args });
    if (r.isError) throw new Error(r.text);
    return r.data as { action_items: Record<string, any>[]; has_more: boolean; next_cursor: string | null };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    ada = await makeUser(t.db, team, { name: 'Ada Park', email: 'ada@example.test' });
    tom = await makeUser(t.db, team, { name: 'Tom Berg', email: 'tom@example.test' });
    mia = await makeUser(t.db, team, { name: 'Mia Chen', email: 'mia@example.test' });
    // Monday 2 November 2026: "Friday" is the 6th, "next Monday" the 9th.
    planning = await summarized(PLANNING, {
      organizer: ada,
      title: 'Sprint planning',
      date: '2026-11-02T15:00:00Z',
      privacy: 'teammates',
      participants: [{ email: tom.email, name: tom.name }],
    });
    // Only its participants may read it: Mia is none.
    secret = await summarized(
      [
        ['Ada Park', 'Tom, could you draft the reorg memo by tomorrow?'],
        ['Tom Berg', 'Yes, I can.'],
      ],
      {
        organizer: ada,
        title: 'Reorg',
        date: '2026-11-03T09:00:00Z',
        privacy: 'participants',
        participants: [{ email: tom.email, name: tom.name }],
      },
    );
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await gql.close();
    await t.drop();
  });

  it('finds the commitments with their owners, due dates resolved against the meeting date, and the moment', async () => {
    const page = await items(ada.key, { meetingId: planning });
    expect(
      page.action_items.map((a) => [
        a.text,
        a.owner_name,
        a.owner_email,
        a.due,
        a.due_date,
        a.status,
        a.sentence_index,
        a.start_time,
      ]),
    ).toEqual([
      [
        'Tom, can you send the release notes by Friday?',
        'Tom Berg',
        'tom@example.test',
        'Friday',
        '2026-11-06',
        'open',
        1,
        5,
      ],
      [
        'I will update the roadmap by next Monday.',
        'Ada Park',
        'ada@example.test',
        'next Monday',
        '2026-11-09',
        'open',
        3,
        15,
      ],
      [
        'I will book the venue for the offsite by November 20.',
        'Tom Berg',
        'tom@example.test',
        'November 20',
        '2026-11-20',
        'open',
        4,
        20,
      ],
    ]);
    expect(page.action_items[0].link).toBe(`${mcp.config.publicBaseUrl}/meetings/${planning}#t=5`);
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    // The summary's action_items keep their shape.
    const summary = await mcp.call(ada.key, 'svc_get_summary', { transcriptId: planning });
    // ... and cite the moments that state it: the request, and Tom's "Sure, I will do that."
    const link = (t: number) => `${mcp.config.publicBaseUrl}/meetings/${planning}#t=${t}`;
    expect(summary.data.action_items[0]).toEqual({
      text: 'Tom, can you send the release notes by Friday?',
      assignee: 'Tom Berg',
      due: 'Friday',
      due_date: '2026-11-06',
      speaker_name: 'Ada Park',
      start_time: 5,
      index: 1,
      kind: 'request',
      link: link(5),
      moments: [
        { index: 1, start_time: 5, link: link(5) },
        { index: 2, start_time: 10, link: link(10) },
      ],
    });
  });

  it('answers "what is still open for me" in one call, newest meeting first, as a TOON table that teaches citing', async () => {
    const mine = await items(tom.key, { mine: true, status: 'open' });
    expect(mine.action_items.map((a) => [a.meeting_title, a.text])).toEqual([
      ['Reorg', 'Tom, could you draft the reorg memo by tomorrow?'],
      ['Sprint planning', 'Tom, can you send the release notes by Friday?'],
      ['Sprint planning', 'I will book the venue for the offsite by November 20.'],
    ]);
    const toon = await mcp.call(tom.key, 'svc_get_action_items', { mine: true, status: 'open' });
    expect(toon.text).toMatch(/^action_items\[3\t\]\{id\tmeeting_id\tmeeting_title\t/);
    const { tools } = await (await mcp.client(tom.key)).listTools();
    expect(tools.find((x) => x.name === 'svc_get_action_items')!.description).toContain('[meeting_title, mm:ss](link)');
    const text = await mcp.call(tom.key, 'svc_get_action_items', { mine: true, status: 'open', format: 'text' });
    expect(text.text).toContain(`[Reorg, 00:00](${mcp.config.publicBaseUrl}/meetings/${secret}#t=0)`);
  });

  it('filters by owner, due dates, meeting dates and channel', async () => {
    expect((await items(ada.key, { owner: 'Tom Berg' })).action_items).toHaveLength(3);
    expect((await items(ada.key, { owner: 'ADA@example.test' })).action_items.map((a) => a.due_date)).toEqual([
      '2026-11-09',
    ]);
    // Inclusive at both ends.
    expect((await items(ada.key, { dueBefore: '2026-11-06' })).action_items.map((a) => a.due_date)).toEqual([
      '2026-11-04',
      '2026-11-06',
    ]);
    expect(
      (await items(ada.key, { dueAfter: '2026-11-09', dueBefore: '2026-11-09' })).action_items.map((a) => a.due_date),
    ).toEqual(['2026-11-09']);
    expect(
      (await items(ada.key, { fromDate: '2026-11-03', toDate: '2026-11-03' })).action_items.map((a) => a.meeting_title),
    ).toEqual(['Reorg']);
    expect(
      (await items(ada.key, { toDate: '2026-11-02' })).action_items.every((a) => a.meeting_title === 'Sprint planning'),
    ).toBe(true);
    const bad = await mcp.call(ada.key, 'svc_get_action_items', { dueAfter: '2026-11-10', dueBefore: '2026-11-09' });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.text).toMatch(/dueAfter/);
    const channel = await makeChannel(t.db, ada.teamId, 'Ops', [ada]);
    expect((await items(ada.key, { channelId: channel.id })).action_items).toEqual([]);
    await t.db('meetings').where({ id: planning }).update({ channel_id: channel.id });
    expect((await items(ada.key, { channelId: channel.id })).action_items).toHaveLength(3);
    await t.db('meetings').where({ id: planning }).update({ channel_id: null });
  });

  it('a member never sees an item of a meeting they may not read, in lists, by owner, or to change', async () => {
    const all = await items(mia.key, { limit: 100 });
    expect(all.action_items.map((a) => a.meeting_id)).not.toContain(secret);
    expect(all.action_items).toHaveLength(3);
    expect((await mcp.call(mia.key, 'svc_get_action_items', { meetingId: secret })).text).toMatch(/object_not_found/);
    expect((await items(mia.key, { owner: 'tom@example.test' })).action_items.map((a) => a.meeting_title)).toEqual([
      'Sprint planning',
      'Sprint planning',
    ]);
    const [hidden] = (await items(tom.key, { meetingId: secret })).action_items;
    const change = await mcp.call(mia.key, 'svc_update_action_item', { id: hidden.id, status: 'done' });
    expect(change).toMatchObject({ isError: true });
    expect(change.text).toMatch(/object_not_found/);
    // Mia reads the planning meeting (teammates) but may not write to it: neither organizer nor participant.
    const [open] = (await items(mia.key, { meetingId: planning })).action_items;
    const refused = await mcp.call(mia.key, 'svc_update_action_item', { id: open.id, status: 'done' });
    expect(refused.text).toMatch(/forbidden/);
    const gq = await gql.request(
      mia.key,
      'query { actionItems(owner: "tom@example.test") { action_items { meeting_id } } }',
    );
    expect(gq.body.data.actionItems.action_items.map((a: { meeting_id: string }) => a.meeting_id)).not.toContain(
      secret,
    );
  });

  it('keeps the status, owner and due date a person set when the meeting is summarized again, without duplicates', async () => {
    const before = (await items(tom.key, { meetingId: planning })).action_items;
    const notes = before[0];
    const venue = before[2];
    const done = await mcp.call(tom.key, 'svc_update_action_item', {
      id: notes.id,
      status: 'done',
      dueDate: '2026-11-05',
      format: 'json',
    });
    expect(done.data).toMatchObject({ id: notes.id, status: 'done', due_date: '2026-11-05', due: 'Friday' });
    const moved = await gql.request(
      ada.key,
      'mutation($id: ID!) { updateActionItem(id: $id, owner: "mia@example.test") { owner_name owner_email } }',
      { id: venue.id },
    );
    expect(moved.body.data.updateActionItem).toEqual({ owner_name: 'Mia Chen', owner_email: 'mia@example.test' });

    await persist(planning, PLANNING, '2026-11-02T15:00:00Z');
    const after = (await items(tom.key, { meetingId: planning })).action_items;
    expect(after.map((a) => [a.id, a.status, a.due_date, a.owner_email])).toEqual([
      [notes.id, 'done', '2026-11-05', 'tom@example.test'],
      [before[1].id, 'open', '2026-11-09', 'ada@example.test'],
      [venue.id, 'open', '2026-11-20', 'mia@example.test'],
    ]);
    expect(await t.db('action_items').where({ meeting_id: planning }).count({ n: '*' })).toEqual([{ n: '3' }]);

    // A summary that no longer finds an item: gone unless a person touched it.
    await persist(
      planning,
      PLANNING.filter(([, text]) => !/release notes|roadmap|venue|Sure/.test(text)),
      '2026-11-02T15:00:00Z',
    );
    expect((await items(tom.key, { meetingId: planning })).action_items.map((a) => a.id)).toEqual([notes.id, venue.id]);
    await persist(planning, PLANNING, '2026-11-02T15:00:00Z');
  });

  it('refuses changes that name no field, or a bad status or date, naming the field', async () => {
    const [a] = (await items(ada.key, { meetingId: planning })).action_items;
    const audited = () => t.db('audit_log').where({ action: 'action_item.updated', target_id: a.id }).count({ n: '*' });
    const before = await audited();
    expect((await mcp.call(ada.key, 'svc_update_action_item', { id: a.id })).text).toMatch(
      /at least one of status, owner, ownerName, dueDate/,
    );
    expect((await mcp.call(ada.key, 'svc_update_action_item', { id: a.id, status: 'closed' })).text).toMatch(/status/);
    expect((await mcp.call(ada.key, 'svc_update_action_item', { id: a.id, dueDate: '2026-02-30' })).text).toMatch(
      /dueDate/,
    );
    const g = await gql.request(ada.key, 'mutation($id: ID!) { updateActionItem(id: $id, status: "closed") { id } }', {
      id: a.id,
    });
    expect(g.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'status' });
    expect(await audited()).toEqual(before);
  });

  it('pages to the end with has_more and next_cursor: every item once, limits exact at their bounds', async () => {
    for (let i = 0; i < 11; i++) {
      await summarized(PLANNING, {
        organizer: ada,
        title: `Planning ${i}`,
        date: new Date(Date.UTC(2026, 9, 1 + i, 10)),
        participants: [{ email: tom.email, name: tom.name }],
      });
    }
    const total = Number((await t.db('action_items').count({ n: '*' }))[0].n);
    expect(total).toBe(3 * 12 + 1);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await items(ada.key, { limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.action_items.map((a) => a.id));
      expect(page.action_items.length).toBe(page.has_more ? 5 : total % 5 || 5);
      cursor = page.next_cursor ?? undefined;
      expect(Boolean(cursor)).toBe(page.has_more);
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(total / 5));
    expect(new Set(seen).size).toBe(total);
    const whole = await items(ada.key, { limit: 100 });
    expect(whole.action_items.map((a) => a.id)).toEqual(seen);
    // The cursor belongs to its filters.
    const first = await items(ada.key, { limit: 5 });
    const other = await mcp.call(ada.key, 'svc_get_action_items', {
      limit: 5,
      status: 'open',
      cursor: first.next_cursor,
    });
    expect(other.text).toMatch(/cursor belongs to a list with other filters/);
    expect((await mcp.call(ada.key, 'svc_get_action_items', { cursor: 'not-a-cursor' })).text).toMatch(
      /cursor must be the next_cursor/,
    );
    expect((await mcp.call(ada.key, 'svc_get_action_items', { limit: 101 })).text).toMatch(/limit/);
    expect((await mcp.call(ada.key, 'svc_get_action_items', { limit: 0 })).text).toMatch(/limit/);
    // GraphQL pages the same list.
    const g = await gql.request(
      ada.key,
      'query { actionItems(limit: 100) { action_items { id } has_more next_cursor } }',
    );
    expect(g.body.data.actionItems.action_items.map((a: { id: string }) => a.id)).toEqual(seen.slice(0, 100));
  });

  it('records a read of each meeting whose items a list answered', async () => {
    await flushReads(t.db);
    const before = await t
      .db('read_audit')
      .where({ user_id: tom.id, surface: 'mcp:svc_get_action_items', meeting_id: secret })
      .count({ n: '*' });
    await items(tom.key, { meetingId: secret });
    await flushReads(t.db);
    const after = await t
      .db('read_audit')
      .where({ user_id: tom.id, surface: 'mcp:svc_get_action_items', meeting_id: secret })
      .count({ n: '*' });
    expect(Number(after[0].n)).toBe(Number(before[0].n) + 1);
  });

  it('the /action-items page lists the open items of the person signed in, with links to their moments', async () => {
    const html = await (await mcp.page(tom, '/action-items')).text();
    const open = (await items(tom.key, { mine: true, status: 'open', limit: 20 })).action_items;
    const shown = [...html.matchAll(/<li class="action-item" data-status="(\w+)">/g)].map((m) => m[1]);
    expect(shown).toEqual(open.map(() => 'open'));
    expect(html).toContain(`/meetings/${secret}#t=0`);
    expect(html).not.toContain('I will update the roadmap');
    const signedOut = await fetch(`${mcp.pages}/action-items`, { redirect: 'manual' });
    expect(signedOut.status).toBe(303);
  });
});
