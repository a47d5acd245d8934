/**
 * What live ingest refuses, over GraphQL on real HTTP with the real worker: every limit on both sides
 * of its boundary (the error names the field and the rule, and nothing is stored), invalid state
 * transitions (invariant_violation), who may start and drive a live meeting, another team's meeting
 * (object_not_found), and who may list whose active meetings.
 */
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import {
  APPEND,
  END,
  LiveHarness,
  ok,
  PAUSE,
  refusal,
  RESUME,
  said,
  START,
  startLive,
  storedSentences,
} from './support';

describe('live ingest refusals', () => {
  let h: LiveHarness;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  /** A live meeting of alice's that the limit tests append to. */
  let target: string;

  beforeAll(async () => {
    h = await startLive('live-refusals');
    const team = await makeTeam(h.db, { tier: 'pro' });
    const other = await makeTeam(h.db);
    admin = await makeUser(h.db, team, { role: 'admin', email: 'admin@r.test' });
    alice = await makeUser(h.db, team, { email: 'alice@r.test', name: 'Alice' });
    bob = await makeUser(h.db, team, { email: 'bob@r.test', name: 'Bob' });
    outsider = await makeUser(h.db, other, { role: 'admin', email: 'out@other.test' });
    await h.startWorker();
    target = ok(await h.gql.request(alice.key, START, { input: { title: 'Limits' } }), 'startLiveMeeting');
  });
  afterAll(async () => h?.close());

  const meetingCount = async () => Number((await h.db('meetings').count({ n: '*' }))[0].n);
  const append = (key: string, id: string, sentences: unknown) => h.gql.request(key, APPEND, { id, sentences });
  const start = (key: string, input: Record<string, unknown>) => h.gql.request(key, START, { input });
  const x = (n: number) => 'x'.repeat(n);

  describe('appendLiveSentences limits (1..500 sentences, text 1..5000, 200000 a call, times ≥ 0, end ≥ start, ids 1..128)', () => {
    const cases: [string, () => unknown[], { field: string; rule: string }][] = [
      ['no sentence', () => [], { field: 'sentences', rule: '1 to 500 sentences' }],
      [
        '501 sentences',
        () => Array.from({ length: 501 }, (_, i) => said(10_000 + i, 'A', 'Hi.')),
        { field: 'sentences', rule: '1 to 500 sentences' },
      ],
      ['an empty text', () => [said(1, 'A', '')], { field: 'sentences[0].text', rule: '1 to 5000 characters' }],
      [
        'a text of spaces',
        () => [said(1, 'A', 'ok'), said(2, 'A', '   ')],
        { field: 'sentences[1].text', rule: '1 to 5000 characters' },
      ],
      [
        'a text of 5001 characters',
        () => [said(1, 'A', x(5001))],
        { field: 'sentences[0].text', rule: '1 to 5000 characters' },
      ],
      [
        '200001 characters in one call',
        () => [...Array.from({ length: 40 }, (_, i) => said(20_000 + i, 'A', x(5000))), said(20_040, 'A', 'x')],
        { field: 'sentences', rule: 'at most 200000 characters of text per call' },
      ],
      [
        'a control character',
        () => [said(1, 'A', 'bell\u0007')],
        { field: 'sentences[0].text', rule: 'no control characters' },
      ],
      [
        'a negative start_time',
        () => [{ ...said(1, 'A', 'Hi.'), start_time: -0.001 }],
        { field: 'sentences[0].start_time', rule: '0 or more' },
      ],
      [
        'a negative end_time',
        () => [{ ...said(1, 'A', 'Hi.'), start_time: 0, end_time: -1 }],
        { field: 'sentences[0].end_time', rule: '0 or more' },
      ],
      [
        'end before start',
        () => [{ ...said(1, 'A', 'Hi.'), start_time: 5, end_time: 4.999 }],
        { field: 'sentences[0].end_time', rule: 'not before start_time' },
      ],
      [
        'a chunk_id of 129 characters',
        () => [{ ...said(1, 'A', 'Hi.'), chunk_id: x(129) }],
        { field: 'sentences[0].chunk_id', rule: '1 to 128 characters' },
      ],
      [
        'a blank chunk_id',
        () => [{ ...said(1, 'A', 'Hi.'), chunk_id: '  ' }],
        { field: 'sentences[0].chunk_id', rule: 'required' },
      ],
      [
        'a speaker_name of 257 characters',
        () => [said(1, x(257), 'Hi.')],
        { field: 'sentences[0].speaker_name', rule: '1 to 256 characters' },
      ],
      ['a blank speaker_name', () => [said(1, ' ', 'Hi.')], { field: 'sentences[0].speaker_name', rule: 'required' }],
    ];
    it.each(cases)('refuses %s, naming the field and the rule, storing nothing', async (_, sentences, expected) => {
      const before = await storedSentences(h.db, target);
      const res = await append(alice.key, target, sentences());
      expect(refusal(res)).toMatchObject({
        code: expected.rule === 'required' ? 'args_required' : 'invalid_arguments',
        ...expected,
      });
      expect(await storedSentences(h.db, target)).toEqual(before);
    });

    it('refuses a field left out at the GraphQL layer, naming it', async () => {
      const { chunk_id: _, ...noChunk } = said(1, 'A', 'Hi.');
      expect(refusal(await append(alice.key, target, [noChunk]))).toMatchObject({
        code: 'args_required',
        field: 'sentences[0].chunk_id',
      });
    });

    it('takes every limit at its edge: 1 and 500 sentences, 5000-character texts up to 200000 a call, 0 seconds, end = start, 128-character ids', async () => {
      const base = (await storedSentences(h.db, target)).length;
      expect(
        ok(
          await append(alice.key, target, [{ ...said(1, 'A', 'x'), start_time: 0, end_time: 0, chunk_id: x(128) }]),
          'appendLiveSentences',
        ),
      ).toMatchObject({
        appended: 1,
        sentence_count: base + 1,
      });
      const many = Array.from({ length: 500 }, (_, i) => said(100 + i, x(256), `Sentence ${i}.`));
      expect(ok(await append(alice.key, target, many), 'appendLiveSentences')).toMatchObject({
        appended: 500,
        sentence_count: base + 501,
      });
      const heavy = Array.from({ length: 40 }, (_, i) => said(1000 + i, 'A', x(5000)));
      expect(ok(await append(alice.key, target, heavy), 'appendLiveSentences')).toMatchObject({
        appended: 40,
        sentence_count: base + 541,
      });
      const rows = await storedSentences(h.db, target);
      expect(rows.map((r) => r.idx)).toEqual(Array.from({ length: base + 541 }, (_, i) => i));
      expect(rows.find((r) => r.chunk_id === x(128))?.text).toBe('x');
    });
  });

  describe('startLiveMeeting limits', () => {
    const cases: [string, Record<string, unknown>, { code?: string; field: string; rule: string }][] = [
      ['an empty title', { title: ' ' }, { field: 'input.title', rule: '1 to 256 characters' }],
      ['a title of 257 characters', { title: x(257) }, { field: 'input.title', rule: '1 to 256 characters' }],
      [
        'a meeting_link that is not http(s)',
        { title: 'T', meeting_link: 'ftp://meet.example.com/x' },
        { field: 'input.meeting_link', rule: 'an http or https URL' },
      ],
      [
        'a meeting_link of 2049 characters',
        { title: 'T', meeting_link: `https://meet.example.com/${x(2049 - 25)}` },
        { field: 'input.meeting_link', rule: 'at most 2048 characters' },
      ],
      [
        'scheduled_end before scheduled_start',
        { title: 'T', scheduled_start: '2026-11-21T10:00:00Z', scheduled_end: '2026-11-21T09:59:59Z' },
        { field: 'input.scheduled_end', rule: 'not before scheduled_start' },
      ],
      [
        'a scheduled_start without a time zone',
        { title: 'T', scheduled_start: '2026-11-21T10:00:00' },
        { field: 'input.scheduled_start', rule: 'ISO 8601 date-time with a time zone' },
      ],
      [
        'an unknown privacy',
        { title: 'T', privacy: 'everyone' },
        { field: 'input.privacy', rule: 'one of link, owner, participants, teammatesandparticipants, teammates' },
      ],
      [
        '101 attendees',
        { title: 'T', attendees: Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@r.test` })) },
        { field: 'input.attendees', rule: 'at most 100 attendees' },
      ],
      [
        'an attendee without an email',
        { title: 'T', attendees: [{ displayName: 'Nobody' }] },
        { code: 'args_required', field: 'input.attendees[0].email', rule: 'required' },
      ],
      [
        'an organizer outside the team',
        { title: 'T', organizer_email: 'out@other.test' },
        { field: 'input.organizer_email', rule: 'a user of your team' },
      ],
      [
        'an organizer that is not an email',
        { title: 'T', organizer_email: 'alice' },
        { field: 'input.organizer_email', rule: 'must be an email address like name@example.com' },
      ],
    ];
    it.each(cases)('refuses %s, storing nothing', async (_, input, expected) => {
      const before = await meetingCount();
      expect(refusal(await start(admin.key, input))).toMatchObject({
        code: expected.code ?? 'invalid_arguments',
        field: expected.field,
        rule: expected.rule,
      });
      expect(await meetingCount()).toBe(before);
    });

    it('takes the edges: a 256-character title, a 2048-character link, end = start, 100 attendees', async () => {
      const id = ok(
        await start(alice.key, {
          title: x(256),
          meeting_link: `https://meet.example.com/${x(2048 - 25)}`,
          scheduled_start: '2026-11-21T10:00:00Z',
          scheduled_end: '2026-11-21T10:00:00+00:00',
          privacy: 'owner',
          attendees: Array.from({ length: 100 }, (_, i) => ({ email: `p${i}@r.test` })),
        }),
        'startLiveMeeting',
      );
      const m = await h
        .db('meetings')
        .where({ id })
        .first('title', 'meeting_link', 'privacy', 'status', 'is_live', 'live_state');
      expect(m).toMatchObject({ title: x(256), privacy: 'owner', status: 'live', is_live: true, live_state: 'active' });
      expect(m.meeting_link).toHaveLength(2048);
      expect(await h.db('meeting_participants').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '101' }]);
      ok(await h.gql.request(alice.key, END, { id }), 'endLiveMeeting');
    });
  });

  describe('the state machine', () => {
    it('refuses resume while active, pause while paused, and everything after the end, with invariant_violation', async () => {
      const id = ok(await start(bob.key, { title: 'Transitions' }), 'startLiveMeeting');
      const step = (q: string) => h.gql.request(bob.key, q, { id });

      expect(refusal(await step(RESUME))).toMatchObject({
        code: 'invariant_violation',
        message: expect.stringMatching(/active, not paused/),
      });
      expect(ok(await step(PAUSE), 'pauseLiveMeeting')).toMatchObject({ state: 'paused' });
      expect(refusal(await step(PAUSE))).toMatchObject({
        code: 'invariant_violation',
        message: expect.stringMatching(/already paused/),
      });
      expect(ok(await step(RESUME), 'resumeLiveMeeting')).toMatchObject({ state: 'active' });
      expect(refusal(await step(RESUME))).toMatchObject({ code: 'invariant_violation' });
      ok(await append(bob.key, id, [said(1, 'Bob', 'Only line.')]), 'appendLiveSentences');
      expect(await h.db('meetings').where({ id }).first('live_state')).toEqual({ live_state: 'active' });

      expect(ok(await step(END), 'endLiveMeeting')).toMatchObject({
        state: 'ended',
        is_live: false,
        sentence_count: 1,
      });
      for (const q of [PAUSE, RESUME, END])
        expect(refusal(await step(q))).toMatchObject({
          code: 'invariant_violation',
          message: expect.stringMatching(/is not live/),
        });
      expect(refusal(await append(bob.key, id, [said(2, 'Bob', 'Too late.')]))).toMatchObject({
        code: 'invariant_violation',
      });
      // Nothing was added after the end, however the meeting finishes.
      expect((await storedSentences(h.db, id)).map((r) => r.text)).toEqual(['Only line.']);
    });

    it('refuses to drive a meeting that never was live (an upload)', async () => {
      const m = await makeMeeting(h.db, { organizer: alice, title: 'Uploaded' });
      expect(refusal(await append(alice.key, m.id, [said(1, 'A', 'Hi.')]))).toMatchObject({
        code: 'invariant_violation',
        message: expect.stringMatching(/is not live/),
      });
      expect(refusal(await h.gql.request(alice.key, PAUSE, { id: m.id }))).toMatchObject({
        code: 'invariant_violation',
      });
      expect(await storedSentences(h.db, m.id)).toHaveLength(2);
    });
  });

  describe('who may start and drive a live meeting', () => {
    it('a member may not start one for a teammate (require_elevated_privilege, nothing stored); an admin may', async () => {
      const before = await meetingCount();
      expect(refusal(await start(bob.key, { title: 'For Alice', organizer_email: 'alice@r.test' }))).toMatchObject({
        code: 'require_elevated_privilege',
      });
      expect(await meetingCount()).toBe(before);

      // Naming oneself, in any case, is fine.
      const own = ok(await start(bob.key, { title: 'Mine', organizer_email: 'BOB@r.test' }), 'startLiveMeeting');
      expect(await h.db('meetings').where({ id: own }).first('organizer_id', 'organizer_email', 'uploader_id')).toEqual(
        { organizer_id: bob.id, organizer_email: 'bob@r.test', uploader_id: bob.id },
      );

      const forAlice = ok(
        await start(admin.key, { title: 'For Alice', organizer_email: 'Alice@R.test' }),
        'startLiveMeeting',
      );
      expect(await h.db('meetings').where({ id: forAlice }).first('organizer_id', 'uploader_id')).toEqual({
        organizer_id: alice.id,
        uploader_id: admin.id,
      });
      // The organizer drives it as their own.
      ok(await append(alice.key, forAlice, [said(1, 'Alice', 'Started for me.')]), 'appendLiveSentences');
      ok(await h.gql.request(alice.key, END, { id: forAlice }), 'endLiveMeeting');
      ok(await h.gql.request(bob.key, END, { id: own }), 'endLiveMeeting');
    });

    it('a teammate who can read it may not drive it (forbidden); one who cannot gets object_not_found; an admin may', async () => {
      const open = ok(await start(alice.key, { title: 'Open meeting' }), 'startLiveMeeting');
      const secret = ok(await start(alice.key, { title: 'Owner only', privacy: 'owner' }), 'startLiveMeeting');

      expect(refusal(await append(bob.key, open, [said(1, 'Bob', 'Mine now.')]))).toMatchObject({
        code: 'forbidden',
        message: expect.stringMatching(/only its organizer or an admin/),
      });
      expect(refusal(await h.gql.request(bob.key, PAUSE, { id: open }))).toMatchObject({ code: 'forbidden' });
      expect(refusal(await h.gql.request(bob.key, END, { id: open }))).toMatchObject({ code: 'forbidden' });
      expect(refusal(await append(bob.key, secret, [said(1, 'Bob', 'Hello?')]))).toMatchObject({
        code: 'object_not_found',
      });

      expect(ok(await h.gql.request(admin.key, PAUSE, { id: open }), 'pauseLiveMeeting')).toMatchObject({
        state: 'paused',
      });
      expect(
        ok(await append(admin.key, secret, [said(1, 'Admin', 'Admin note.')]), 'appendLiveSentences'),
      ).toMatchObject({ appended: 1 });
      expect(await storedSentences(h.db, open)).toEqual([]);
      for (const id of [open, secret]) ok(await h.gql.request(admin.key, END, { id }), 'endLiveMeeting');
    });

    it("another team's meeting is not found, even for an admin; nothing is stored or changed", async () => {
      const id = ok(await start(alice.key, { title: 'Team only' }), 'startLiveMeeting');
      ok(await append(alice.key, id, [said(1, 'Alice', 'Inside.')]), 'appendLiveSentences');
      expect(refusal(await append(outsider.key, id, [said(2, 'Out', 'Intruding.')]))).toMatchObject({
        code: 'object_not_found',
      });
      for (const q of [PAUSE, RESUME, END])
        expect(refusal(await h.gql.request(outsider.key, q, { id }))).toMatchObject({ code: 'object_not_found' });
      expect(refusal(await append(outsider.key, 'no-such-meeting', [said(2, 'Out', 'Guessing.')]))).toMatchObject({
        code: 'object_not_found',
      });
      expect((await storedSentences(h.db, id)).map((r) => r.text)).toEqual(['Inside.']);
      expect(await h.db('meetings').where({ id }).first('is_live', 'live_state')).toEqual({
        is_live: true,
        live_state: 'active',
      });
      ok(await h.gql.request(alice.key, END, { id }), 'endLiveMeeting');
    });

    it("a member may list only their own active meetings; an admin anyone's", async () => {
      const id = ok(await start(alice.key, { title: 'Listed' }), 'startLiveMeeting');
      const denied = await h.mcp.call(bob.key, 'svc_get_active_meetings', { email: 'alice@r.test' });
      expect(denied.isError).toBe(true);
      expect(denied.text).toMatch(/require_elevated_privilege/);
      expect(
        (await h.mcp.call(bob.key, 'svc_get_active_meetings')).data.meetings.map((m: { id: string }) => m.id),
      ).not.toContain(id);

      const allowed = await h.mcp.call(admin.key, 'svc_get_active_meetings', { email: 'alice@r.test' });
      expect(allowed.isError).toBe(false);
      expect(allowed.data.meetings.map((m: { id: string; state: string }) => [m.id, m.state])).toContainEqual([
        id,
        'active',
      ]);
      expect(
        allowed.data.meetings.every((m: { organizer_email: string }) => m.organizer_email === 'alice@r.test'),
      ).toBe(true);
      ok(await h.gql.request(alice.key, END, { id }), 'endLiveMeeting');
    });

    it('needs an API key like every GraphQL operation', async () => {
      const res = await h.gql.request(undefined, START, { input: { title: 'Anonymous' } });
      expect(res.status).toBe(401);
      expect(refusal(res)).toMatchObject({ code: 'auth_failed' });
    });
  });
});
