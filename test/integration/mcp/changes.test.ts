/**
 * svc_get_changes as a tool: its formats, its page cut to the token budget without losing a meeting,
 * another team's meetings (their own or shared with the caller) never in it, removed meetings without
 * content, and every refusal naming its field, on both sides of each limit. The mirror test
 * (test/integration/core/changes/mirror.test.ts) follows it through a random history.
 */
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { settled } from '../../support/changes';
import { encodeCursor } from '../../../services/core/changes/cursor';
import { CHANGES_LIMIT_MAX, CHANGES_TOKENS } from '../../../services/core/changes';
import { estimateJsonTokens } from '../../../services/core/limits';
import { deleteMeeting, updateMeetingPrivacy, updateMeetingTitle } from '../../../services/core/meetings';

describe('svc_get_changes', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let ana: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    ana = await makeUser(t.db, team);
    outsider = await makeUser(t.db, other);
    mcp = await startMcp(t.db);
  });

  afterAll(async () => {
    await mcp?.close();
    await t?.drop();
  });

  /** Every page from `cursor` to the end. */
  async function follow(key: string, cursor?: string, limit = CHANGES_LIMIT_MAX) {
    await settled(t.db);
    const pages = [];
    for (;;) {
      const res = await mcp.call(key, 'svc_get_changes', { format: 'json', limit, ...(cursor ? { cursor } : {}) });
      expect(res.isError).toBe(false);
      pages.push(res.data);
      cursor = res.data.next_cursor;
      if (!res.data.has_more) return { pages, cursor: cursor! };
    }
  }

  it('cuts a page to its token budget and the next page goes on without losing a meeting', async () => {
    const ids = [];
    for (let i = 0; i < 120; i++)
      ids.push((await makeMeeting(t.db, { organizer: admin, title: `${'Long title '.repeat(23)}${i}` })).id);
    const { pages } = await follow(admin.key);
    const first = pages[0];
    expect(first.phase).toBe('snapshot');
    expect(first.has_more).toBe(true);
    expect(first.changes.length).toBeGreaterThan(10);
    expect(first.changes.length).toBeLessThan(120);
    expect(first.changes.reduce((n: number, c: unknown) => n + estimateJsonTokens(c), 0)).toBeLessThanOrEqual(
      CHANGES_TOKENS,
    );
    const seen = pages.flatMap((p) => p.changes.map((c: { meeting_id: string }) => c.meeting_id));
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(pages[pages.length - 1]).toMatchObject({ phase: 'changes', has_more: false, retention_days: 30 });
  });

  it("answers a meeting made private, or deleted, as removed with nothing of its content; another team's never", async () => {
    const { cursor } = await follow(ana.key);
    const hidden = (await makeMeeting(t.db, { organizer: admin, title: 'Soon private', privacy: 'teammates' })).id;
    const gone = (await makeMeeting(t.db, { organizer: admin, title: 'Soon deleted', privacy: 'teammates' })).id;
    const theirs = (await makeMeeting(t.db, { organizer: outsider, title: 'Their meeting', privacy: 'link' })).id;
    await shareMeeting(t.db, theirs, ana.email);
    await updateMeetingTitle(t.db, outsider.principal, { meetingId: theirs, title: 'Their meeting, renamed' });
    const mid = await follow(ana.key, cursor);
    const created = mid.pages.flatMap((p) => p.changes);
    expect(created.map((c) => [c.meeting_id, c.changed, c.removed, c.title])).toEqual([
      [hidden, 'created,transcript,sharing', false, 'Soon private'],
      [gone, 'created,transcript,sharing', false, 'Soon deleted'],
    ]);

    await updateMeetingPrivacy(t.db, admin.principal, { meetingId: hidden, privacy: 'owner' });
    await deleteMeeting(t.db, admin.principal, gone);
    const after = (await follow(ana.key, mid.cursor)).pages.flatMap((p) => p.changes);
    const none = { title: null, dateString: null, status: null, privacy: null, channel_id: null };
    expect(after).toEqual([
      expect.objectContaining({
        meeting_id: hidden,
        changed: 'sharing',
        removed: true,
        reason: 'not_visible',
        ...none,
      }),
      expect.objectContaining({ meeting_id: gone, removed: true, reason: 'deleted', organizer_email: null, ...none }),
    ]);
    expect(after[1].changed.split(',')).toContain('deleted');
    // The admin still reads the private meeting.
    const adminView = (await follow(admin.key, mid.cursor)).pages.flatMap((p) => p.changes);
    expect(adminView.find((c) => c.meeting_id === hidden)).toMatchObject({ removed: false, privacy: 'owner' });
    // The other team sees only its own.
    const outsiders = (await follow(outsider.key)).pages.flatMap((p) => p.changes.map((c: any) => c.meeting_id));
    expect(outsiders).toEqual([theirs]);
  });

  it('answers a meeting changed twice on a page once, at its latest change, with both kinds', async () => {
    const first = (await makeMeeting(t.db, { organizer: admin, title: 'First', privacy: 'teammates' })).id;
    const second = (await makeMeeting(t.db, { organizer: admin, title: 'Second', privacy: 'teammates' })).id;
    const { cursor } = await follow(ana.key);
    await updateMeetingTitle(t.db, admin.principal, { meetingId: first, title: 'First, renamed' });
    await updateMeetingTitle(t.db, admin.principal, { meetingId: second, title: 'Second, renamed' });
    await updateMeetingPrivacy(t.db, admin.principal, { meetingId: first, privacy: 'link' });
    const { pages } = await follow(ana.key, cursor);
    expect(pages.flatMap((p) => p.changes.map((c: any) => [c.meeting_id, c.changed, c.title, c.privacy]))).toEqual([
      [second, 'title', 'Second, renamed', 'teammates'],
      [first, 'title,sharing', 'First, renamed', 'link'],
    ]);
  });

  it('answers in TOON by default, and as lines of text', async () => {
    const toon = await mcp.call(ana.key, 'svc_get_changes', { limit: 2 });
    expect(toon.isError).toBe(false);
    expect(toon.text).toMatch(/^changes\[2\t\]\{meeting_id\tchanged\tchanged_at\tremoved\treason\ttitle\t/);
    expect(toon.data.phase).toBe('snapshot');
    const text = await mcp.call(ana.key, 'svc_get_changes', { limit: 2, format: 'text' });
    expect(text.text).toMatch(/ · created · .* · completed · privacy /);
    expect(text.text).toMatch(/More now: call again with cursor: [A-Za-z0-9_-]+$/);
  });

  describe('refusals name the field', () => {
    const refused = async (args: Record<string, unknown>) => {
      const res = await mcp.call(ana.key, 'svc_get_changes', { format: 'json', ...args });
      expect(res.isError).toBe(true);
      return res.data.error;
    };

    it(`limit from 1 to ${CHANGES_LIMIT_MAX}`, async () => {
      for (const limit of [1, CHANGES_LIMIT_MAX])
        expect((await mcp.call(ana.key, 'svc_get_changes', { limit })).isError).toBe(false);
      expect(await refused({ limit: 0 })).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
      expect(await refused({ limit: CHANGES_LIMIT_MAX + 1 })).toMatchObject({
        code: 'invalid_arguments',
        field: 'limit',
        rule: `at most ${CHANGES_LIMIT_MAX}; page with next_cursor for more`,
      });
      expect(await refused({ limit: 2.5 })).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
    });

    it('a cursor that is not one of ours', async () => {
      for (const cursor of ['', 'not a cursor!', Buffer.from('{"v":2}').toString('base64url'), 'x'.repeat(513)]) {
        const error = await refused({ cursor });
        expect(error).toMatchObject({ code: 'invalid_arguments', field: 'cursor' });
      }
      const altered = Buffer.from(JSON.stringify({ v: 1, p: 'c', a: '', x: 'drop', m: '', t: 1 })).toString(
        'base64url',
      );
      expect(await refused({ cursor: altered })).toMatchObject({ field: 'cursor' });
      const past = (x: string) =>
        encodeCursor({ phase: 'changes', after: '', xid: x, meeting: '', issued: Math.floor(Date.now() / 1000) });
      expect(await refused({ cursor: past('18446744073709551616') })).toMatchObject({ field: 'cursor' });
      expect((await mcp.call(ana.key, 'svc_get_changes', { cursor: past('18446744073709551615') })).isError).toBe(
        false,
      );
    });

    it('a cursor older than the change log keeps changes, but not one just within it', async () => {
      const at = (days: number) =>
        encodeCursor({
          phase: 'changes',
          after: '',
          xid: '1',
          meeting: '',
          issued: Math.floor(Date.now() / 1000 - days * 86_400),
        });
      const error = await refused({ cursor: at(30.01) });
      expect(error).toMatchObject({ code: 'invalid_arguments', field: 'cursor' });
      expect(error.message).toMatch(
        /older than the change log keeps changes \(30 days\).*start again without a cursor/,
      );
      const within = await mcp.call(ana.key, 'svc_get_changes', { format: 'json', cursor: at(29.99) });
      expect(within.isError).toBe(false);
    });
  });
});
