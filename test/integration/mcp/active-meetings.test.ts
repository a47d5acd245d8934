import { newId } from '../../../services/core/input';
import { ACTIVE_MEETING_CAP } from '../../../services/core/live/active';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('svc_get_active_meetings', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let a1: string;
  let a2: string;
  let b1: string;
  let o1: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro' });
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@a.test' });
    alice = await makeUser(t.db, team, { email: 'alice@a.test' });
    bob = await makeUser(t.db, team, { email: 'bob@a.test' });
    outsider = await makeUser(t.db, other, { role: 'admin', email: 'out@b.test' });
    a1 = (
      await makeMeeting(t.db, {
        organizer: alice,
        title: 'Alice standup',
        isLive: true,
        liveState: 'active',
        date: '2026-11-21T09:00:00Z',
      })
    ).id;
    await t
      .db('meetings')
      .where({ id: a1 })
      .update({
        meeting_link: 'https://meet.test/abc',
        scheduled_start: new Date('2026-11-21T09:05:00Z'),
        scheduled_end: new Date('2026-11-21T09:30:00Z'),
      });
    a2 = (
      await makeMeeting(t.db, {
        organizer: alice,
        title: 'Alice 1:1',
        isLive: true,
        liveState: 'paused',
        privacy: 'owner',
        date: '2026-11-21T08:00:00Z',
      })
    ).id;
    b1 = (
      await makeMeeting(t.db, {
        organizer: bob,
        title: 'Bob sync',
        isLive: true,
        liveState: 'active',
        date: '2026-11-21T07:00:00Z',
      })
    ).id;
    await makeMeeting(t.db, { organizer: alice, title: 'Done meeting' });
    o1 = (await makeMeeting(t.db, { organizer: outsider, title: 'Foreign live', isLive: true, liveState: 'active' }))
      .id;
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const A1 = () => ({
    id: a1,
    title: 'Alice standup',
    organizer_email: 'alice@a.test',
    meeting_link: 'https://meet.test/abc',
    start_time: '2026-11-21T09:05:00.000Z',
    end_time: '2026-11-21T09:30:00.000Z',
    privacy: 'teammatesandparticipants',
    state: 'active',
  });
  const A2 = () => ({
    id: a2,
    title: 'Alice 1:1',
    organizer_email: 'alice@a.test',
    meeting_link: null,
    start_time: '2026-11-21T08:00:00.000Z',
    end_time: null,
    privacy: 'owner',
    state: 'paused',
  });
  const ids = (data: { meetings: { id: string }[] }) => data.meetings.map((m) => m.id);

  it("lists a member's own live meetings, newest start first, as a flat TOON table", async () => {
    const res = await mcp.call(alice.key, 'svc_get_active_meetings');
    expect(res.isError).toBe(false);
    expect(res.text).toContain('meetings[2]{id,title,organizer_email,meeting_link,start_time,end_time,privacy,state}:');
    expect(res.data).toEqual({ meetings: [A1(), A2()], has_more: false });
  });

  it('filters by state', async () => {
    expect((await mcp.call(alice.key, 'svc_get_active_meetings', { states: ['paused'] })).data).toEqual({
      meetings: [A2()],
      has_more: false,
    });
    expect(ids((await mcp.call(alice.key, 'svc_get_active_meetings', { states: ['active'] })).data)).toEqual([a1]);
    expect(ids((await mcp.call(alice.key, 'svc_get_active_meetings', { states: ['paused', 'active'] })).data)).toEqual([
      a1,
      a2,
    ]);
    expect(ids((await mcp.call(alice.key, 'svc_get_active_meetings', { states: ['active', 'active'] })).data)).toEqual([
      a1,
    ]);
  });

  it("accepts a member's own email in any case, refuses anyone else's with require_elevated_privilege", async () => {
    expect(ids((await mcp.call(alice.key, 'svc_get_active_meetings', { email: 'Alice@A.test' })).data)).toEqual([
      a1,
      a2,
    ]);
    for (const email of ['bob@a.test', 'out@b.test', 'nobody@a.test']) {
      const res = await mcp.call(alice.key, 'svc_get_active_meetings', { email });
      expect(res.isError).toBe(true);
      expect(res.data.error.code).toBe('require_elevated_privilege');
    }
  });

  it('gives an admin the whole team by default and any teammate by email', async () => {
    expect(ids((await mcp.call(admin.key, 'svc_get_active_meetings')).data)).toEqual([a1, a2, b1]);
    expect(ids((await mcp.call(admin.key, 'svc_get_active_meetings', { email: 'bob@a.test' })).data)).toEqual([b1]);
    expect(
      ids((await mcp.call(admin.key, 'svc_get_active_meetings', { email: 'bob@a.test', states: ['paused'] })).data),
    ).toEqual([]);
    expect((await mcp.call(admin.key, 'svc_get_active_meetings', { email: 'admin@a.test' })).data).toEqual({
      meetings: [],
      has_more: false,
    });
  });

  it("reports an email outside the admin's team as object_not_found, and never shows another team", async () => {
    for (const email of ['out@b.test', 'nobody@a.test']) {
      const res = await mcp.call(admin.key, 'svc_get_active_meetings', { email });
      expect(res.data.error.code).toBe('object_not_found');
    }
    expect(ids((await mcp.call(outsider.key, 'svc_get_active_meetings')).data)).toEqual([o1]);
  });

  it('checks states and email, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ states: [] }, 'states'],
      [{ states: ['ended'] }, 'states.0'],
      [{ states: ['active', 'paused', 'active'] }, 'states'],
      [{ states: 'active' }, 'states'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: `${'x'.repeat(250)}@a.test` }, 'email'],
    ];
    for (const [args, field] of cases) {
      const res = await mcp.call(alice.key, 'svc_get_active_meetings', args);
      expect(res.isError).toBe(true);
      expect(res.data.error).toMatchObject({ field });
    }
    const bad = await mcp.call(alice.key, 'svc_get_active_meetings', { states: ['ended'] });
    expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', rule: 'each state must be active or paused' });
  });

  it(`lists at most ${ACTIVE_MEETING_CAP} meetings and says has_more beyond`, async () => {
    const busy = await makeTeam(t.db);
    const host = await makeUser(t.db, busy);
    const live = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: newId(),
        team_id: busy.id,
        organizer_id: host.id,
        organizer_email: host.email,
        title: `Live ${i}`,
        date: new Date(Date.UTC(2026, 10, 1, 0, i)),
        status: 'live',
        is_live: true,
        live_state: 'active',
      }));
    await t.db('meetings').insert(live(ACTIVE_MEETING_CAP));
    const full = await mcp.call(host.key, 'svc_get_active_meetings');
    expect(full.data.meetings).toHaveLength(ACTIVE_MEETING_CAP);
    expect(full.data.has_more).toBe(false);
    await t.db('meetings').insert({ ...live(1)[0], title: 'Oldest', date: new Date('2026-01-01T00:00:00Z') });
    const over = await mcp.call(host.key, 'svc_get_active_meetings');
    expect(over.data.meetings).toHaveLength(ACTIVE_MEETING_CAP);
    expect(over.data.has_more).toBe(true);
    expect(over.data.meetings.map((m: { title: string }) => m.title)).not.toContain('Oldest');
  });

  it('is listed as read-only', async () => {
    const c = await mcp.client(alice.key);
    const tool = (await c.listTools()).tools.find((x) => x.name === 'svc_get_active_meetings');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
  });
});
