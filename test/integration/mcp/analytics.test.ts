import { newId } from '../../../services/core/input';
import { METRICS } from '../../../services/core/analytics/analytics';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

interface Speaker {
  user?: TestUser;
  name?: string;
  duration: number;
  words: number;
  fillers: number;
  questions: number;
  monologues: number;
  mood: [number, number, number];
}

describe('svc_get_analytics', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let outsider: TestUser;

  const window = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-10-31T00:00:00Z' };

  /** A meeting with its stored analytics, as the analyze step writes them. */
  async function meeting(
    organizer: TestUser,
    date: string,
    seconds: number,
    m: { tlr: number | null; mood: [number, number, number] },
    speakers: Speaker[],
    status = 'completed',
  ) {
    const id = newId();
    await t.db('meetings').insert({
      id,
      team_id: organizer.teamId,
      organizer_id: organizer.id,
      organizer_email: organizer.email,
      title: 'M',
      date: new Date(date),
      duration_seconds: seconds,
      status,
    });
    await t.db('meeting_analytics').insert({
      meeting_id: id,
      duration_seconds: seconds,
      talk_listen_ratio: m.tlr,
      positive_pct: m.mood[0],
      neutral_pct: m.mood[1],
      negative_pct: m.mood[2],
    });
    await t.db('speaker_analytics').insert(
      speakers.map((s, i) => ({
        meeting_id: id,
        speaker_id: i,
        name: s.user?.name ?? s.name ?? `Speaker ${i}`,
        // Emails as a transcript may spell them: matching is case-insensitive.
        email: s.user ? s.user.email.toUpperCase() : null,
        duration: s.duration,
        word_count: s.words,
        filler_words: s.fillers,
        questions: s.questions,
        monologues_count: s.monologues,
        positive_pct: s.mood[0],
        neutral_pct: s.mood[1],
        negative_pct: s.mood[2],
      })),
    );
    return id;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro' });
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@a.test', name: 'Admin' });
    alice = await makeUser(t.db, team, { email: 'alice@a.test', name: 'Alice' });
    bob = await makeUser(t.db, team, { email: 'bob@a.test', name: 'Bob' });
    carol = await makeUser(t.db, team, { email: 'carol@a.test', name: 'Carol' });
    dave = await makeUser(t.db, team, { email: 'dave@a.test', name: 'Dave' });
    outsider = await makeUser(t.db, other, { role: 'super_admin', email: 'out@b.test' });

    // Current window: two meetings.
    await meeting(alice, '2026-10-05T10:00:00Z', 3600, { tlr: 2, mood: [50, 40, 10] }, [
      { user: alice, duration: 1200, words: 2400, fillers: 10, questions: 5, monologues: 2, mood: [60, 30, 10] },
      { user: bob, duration: 600, words: 1000, fillers: 4, questions: 3, monologues: 1, mood: [30, 60, 10] },
      { name: 'Guest', duration: 600, words: 800, fillers: 6, questions: 2, monologues: 0, mood: [0, 100, 0] },
    ]);
    await meeting(bob, '2026-10-20T10:00:00Z', 1800, { tlr: 1, mood: [20, 70, 10] }, [
      { user: bob, duration: 900, words: 1500, fillers: 2, questions: 4, monologues: 1, mood: [20, 70, 10] },
      { user: carol, duration: 900, words: 1200, fillers: 0, questions: 1, monologues: 0, mood: [20, 70, 10] },
    ]);
    // Previous window: one meeting.
    await meeting(alice, '2026-09-15T10:00:00Z', 2700, { tlr: 0.5, mood: [40, 50, 10] }, [
      { user: alice, duration: 900, words: 1500, fillers: 20, questions: 2, monologues: 3, mood: [40, 50, 10] },
      { user: bob, duration: 1800, words: 3000, fillers: 10, questions: 4, monologues: 0, mood: [20, 70, 10] },
    ]);
    // Never counted: still processing, before both windows, at the exclusive end, and another team's (with alice's email as a speaker).
    const noise: Speaker[] = [
      { user: alice, duration: 999, words: 999, fillers: 99, questions: 99, monologues: 99, mood: [0, 0, 100] },
    ];
    await meeting(alice, '2026-10-10T10:00:00Z', 999, { tlr: 9, mood: [0, 0, 100] }, noise, 'processing');
    await meeting(alice, '2026-08-31T23:59:59Z', 999, { tlr: 9, mood: [0, 0, 100] }, noise);
    await meeting(alice, '2026-10-31T00:00:00Z', 999, { tlr: 9, mood: [0, 0, 100] }, noise);
    await meeting(outsider, '2026-10-10T10:00:00Z', 999, { tlr: 9, mood: [0, 0, 100] }, noise);
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const period = {
    start: '2026-10-01T00:00:00.000Z',
    end: '2026-10-31T00:00:00.000Z',
    previous_start: '2026-09-01T00:00:00.000Z',
    previous_end: '2026-10-01T00:00:00.000Z',
    days: 30,
  };

  const teamRows = [
    { metric: 'meetings', value: 2, previous: 1, change_pct: 100 },
    { metric: 'total_duration_minutes', value: 90, previous: 45, change_pct: 100 },
    { metric: 'average_duration_minutes', value: 45, previous: 45, change_pct: 0 },
    { metric: 'filler_words', value: 22, previous: 30, change_pct: -26.7 },
    { metric: 'questions', value: 15, previous: 6, change_pct: 150 },
    { metric: 'monologues', value: 4, previous: 3, change_pct: 33.3 },
    { metric: 'sentiment_positive_pct', value: 40, previous: 40, change_pct: 0 },
    { metric: 'sentiment_neutral_pct', value: 50, previous: 50, change_pct: 0 },
    { metric: 'sentiment_negative_pct', value: 10, previous: 10, change_pct: 0 },
    { metric: 'talk_listen_ratio', value: 1.5, previous: 0.5, change_pct: 200 },
    { metric: 'words_per_minute', value: 98.6, previous: 100, change_pct: -1.4 },
  ];

  /** A user row from [value, change_pct] pairs in METRICS order. */
  const userRow = (u: TestUser, pairs: [number | null, number | null][]) => {
    const row: Record<string, unknown> = { user_id: u.id, email: u.email, name: u.name };
    METRICS.forEach((m, i) => {
      row[m] = pairs[i][0];
      row[`${m}_change_pct`] = pairs[i][1];
    });
    return row;
  };
  const aliceRow = () =>
    userRow(alice, [
      [1, 0],
      [60, 33.3],
      [60, 33.3],
      [10, -50],
      [5, 150],
      [2, -33.3],
      [60, 50],
      [30, -40],
      [10, 0],
      [1, 100],
      [120, 20],
    ]);
  const bobRow = () =>
    userRow(bob, [
      [2, 100],
      [90, 100],
      [45, 0],
      [6, -40],
      [7, 75],
      [2, null],
      [24, 20],
      [66, -5.7],
      [10, 0],
      [0.56, -72],
      [100, 0],
    ]);
  const carolRow = () =>
    userRow(carol, [
      [1, null],
      [30, null],
      [30, null],
      [0, null],
      [1, null],
      [0, null],
      [20, null],
      [70, null],
      [10, null],
      [1, null],
      [80, null],
    ]);

  it('gives an admin team totals and every speaker of the team, each against the previous window', async () => {
    const res = await mcp.call(admin.key, 'svc_get_analytics', window);
    expect(res.isError).toBe(false);
    expect(res.data).toEqual({
      period,
      scope: 'team',
      team: teamRows,
      users: [bobRow(), aliceRow(), carolRow()],
      has_more: false,
    });
  });

  it('renders the team block and the users as TOON tables', async () => {
    const res = await mcp.call(admin.key, 'svc_get_analytics', window);
    expect(res.text).toContain('team[11]{metric,value,previous,change_pct}:');
    expect(res.text).toMatch(/users\[3\]\{user_id,email,name,meetings,meetings_change_pct,total_duration_minutes,/);
  });

  it('gives a member only their own row: no team totals, no other users', async () => {
    const res = await mcp.call(alice.key, 'svc_get_analytics', window);
    expect(res.isError).toBe(false);
    expect(res.data).toEqual({
      period,
      scope: 'self',
      team: null,
      users: [aliceRow()],
      has_more: false,
      note: expect.stringMatching(/team admin/),
    });
    expect(res.text).not.toContain('bob@a.test');
  });

  it('gives a member without meetings a row of zeros rather than nothing', async () => {
    const res = await mcp.call(dave.key, 'svc_get_analytics', window);
    expect(res.data.users).toEqual([
      userRow(dave, [
        [0, null],
        [0, null],
        [null, null],
        [0, null],
        [0, null],
        [0, null],
        [null, null],
        [null, null],
        [null, null],
        [null, null],
        [null, null],
      ]),
    ]);
  });

  it('scopes an admin to their own team', async () => {
    const res = await mcp.call(outsider.key, 'svc_get_analytics', window);
    expect(res.data.team[0]).toEqual({ metric: 'meetings', value: 1, previous: 0, change_pct: null });
    expect(res.data.users).toEqual([]);
  });

  it('defaults to the 30 days ending now', async () => {
    const fresh = await makeTeam(t.db);
    const boss = await makeUser(t.db, fresh, { role: 'admin' });
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    const quiet: Speaker[] = [
      { user: boss, duration: 60, words: 100, fillers: 0, questions: 0, monologues: 0, mood: [0, 100, 0] },
    ];
    for (const ago of [1, 29, 31, 59, 61])
      await meeting(boss, daysAgo(ago), 60, { tlr: null, mood: [0, 100, 0] }, quiet);
    const before = Date.now();
    const res = await mcp.call(boss.key, 'svc_get_analytics');
    const end = Date.parse(res.data.period.end);
    expect(end).toBeGreaterThanOrEqual(before - 1000);
    expect(end).toBeLessThanOrEqual(Date.now() + 1000);
    expect(res.data.period.days).toBe(30);
    expect(res.data.team[0]).toEqual({ metric: 'meetings', value: 2, previous: 2, change_pct: 0 });
    expect(res.data.team.find((r: { metric: string }) => r.metric === 'talk_listen_ratio')).toEqual({
      metric: 'talk_listen_ratio',
      value: null,
      previous: null,
      change_pct: null,
    });
    const onlyEnd = await mcp.call(admin.key, 'svc_get_analytics', { endTime: '2026-10-31T00:00:00Z' });
    expect(onlyEnd.data.period).toEqual(period);
    const onlyStart = await mcp.call(admin.key, 'svc_get_analytics', { startTime: '2026-10-01T00:00:00+02:00' });
    expect(onlyStart.data.period.start).toBe('2026-09-30T22:00:00.000Z');
  });

  it('requires startTime before endTime (equal refused, one second apart accepted)', async () => {
    const equal = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2026-10-01T00:00:00Z',
      endTime: '2026-10-01T00:00:00Z',
    });
    expect(equal.data.error).toMatchObject({
      code: 'invalid_arguments',
      field: 'startTime',
      rule: 'must be before endTime',
    });
    const after = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2026-10-02T00:00:00Z',
      endTime: '2026-10-01T00:00:00Z',
    });
    expect(after.data.error).toMatchObject({ code: 'invalid_arguments', field: 'startTime' });
    const future = await mcp.call(admin.key, 'svc_get_analytics', { startTime: '2999-01-01T00:00:00Z' });
    expect(future.data.error).toMatchObject({ code: 'invalid_arguments', field: 'startTime' });
    const ok = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2026-10-01T00:00:00Z',
      endTime: '2026-10-01T00:00:01Z',
    });
    expect(ok.isError).toBe(false);
    expect(ok.data.period.previous_start).toBe('2026-09-30T23:59:59.000Z');
  });

  it('refuses date-times that are not ISO 8601 with a zone, naming the field', async () => {
    for (const [field, value] of [
      ['startTime', '2026-10-01'],
      ['startTime', '2026-10-01T00:00:00'],
      ['endTime', '2026-02-30T00:00:00Z'],
      ['endTime', 'yesterday'],
      ['startTime', 20261001],
    ] as const) {
      const res = await mcp.call(admin.key, 'svc_get_analytics', { [field]: value });
      expect(res.isError).toBe(true);
      expect(res.data.error.field).toBe(field);
    }
  });

  it('caps the window at 3660 days', async () => {
    const max = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2016-10-29T00:00:00Z',
      endTime: '2026-10-31T00:00:00Z',
    });
    expect(max.isError).toBe(false);
    expect(max.data.period.days).toBe(3654);
    const edge = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2016-10-23T00:00:00Z',
      endTime: '2026-10-31T00:00:00Z',
    });
    expect(edge.data.period.days).toBe(3660);
    const over = await mcp.call(admin.key, 'svc_get_analytics', {
      startTime: '2016-10-22T23:59:59Z',
      endTime: '2026-10-31T00:00:00Z',
    });
    expect(over.data.error).toMatchObject({ code: 'invalid_arguments', field: 'startTime' });
  });

  it('is listed as read-only and refuses unknown parameters', async () => {
    const c = await mcp.client(admin.key);
    const tool = (await c.listTools()).tools.find((x) => x.name === 'svc_get_analytics');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
    const res = await mcp.call(admin.key, 'svc_get_analytics', { format: 'json' });
    expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'format' });
  });
});
