import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createSoundbite } from '../../../services/core/soundbites';

const RECORD_KEYS = [
  'created_at',
  'end_time',
  'id',
  'media_type',
  'meeting_title',
  'name',
  'privacies',
  'share_url',
  'start_time',
  'summary',
  'transcript_id',
];

describe('soundbite tools: svc_create_soundbite, svc_get_soundbites', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let olivia: TestUser;
  let pat: TestUser;
  let tom: TestUser;
  let carl: TestUser;
  let outsider: TestUser;
  let meeting: { id: string };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    tom = await makeUser(t.db, team, { name: 'Tom' });
    carl = await makeUser(t.db, team, { name: 'Carl' });
    outsider = await makeUser(t.db, other, { role: 'admin' });
    const channel = await makeChannel(t.db, team.id, 'Sales', [carl]);
    meeting = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Pricing call',
      channelId: channel.id,
      participants: [{ email: pat.email }],
      sentences: [
        {
          speaker: 'Olivia',
          text: 'Welcome everyone, let us review the pricing proposal for the enterprise tier today.',
          start: 0,
          end: 6,
        },
        { speaker: 'Pat', text: 'Sounds good.', start: 6.5, end: 8 },
        { speaker: 'Olivia', text: 'First, the discount.', start: 30, end: 33 },
      ],
    });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const create = (u: TestUser, args: Record<string, unknown>) =>
    mcp.call(u.key, 'svc_create_soundbite', { transcriptId: meeting.id, startTime: 0, endTime: 5, ...args });

  describe('svc_create_soundbite', () => {
    it('creates a soundbite and answers it with its id and share_url; the audit log records it', async () => {
      const res = await create(olivia, {
        startTime: 1.5,
        endTime: 7,
        name: 'The pricing intro',
        summary: 'Olivia opens the pricing review.',
        mediaType: 'video',
        privacies: ['team', 'public', 'team'],
      });
      expect(res.isError).toBe(false);
      const sb = res.data;
      expect(Object.keys(sb).sort()).toEqual(RECORD_KEYS);
      expect(sb).toMatchObject({
        transcript_id: meeting.id,
        meeting_title: 'Pricing call',
        name: 'The pricing intro',
        start_time: 1.5,
        end_time: 7,
        summary: 'Olivia opens the pricing review.',
        media_type: 'video',
        privacies: 'team, public',
        share_url: `${mcp.config.publicBaseUrl}/soundbites/${sb.id}`,
      });
      expect(Date.parse(sb.created_at)).toBeGreaterThan(Date.now() - 60_000);
      const row = await t.db('soundbites').where({ id: sb.id }).first();
      expect(row).toMatchObject({ owner_id: olivia.id, meeting_id: meeting.id, privacies: ['team', 'public'] });
      const [entry] = await t.db('audit_log').where({ target_id: sb.id, action: 'soundbite.create' });
      expect(entry).toMatchObject({ actor_user_id: olivia.id, target_type: 'soundbite' });
    });

    it('defaults: name from the first words spoken in the clip, audio, team, no summary', async () => {
      const res = await create(olivia, { startTime: 2, endTime: 8 });
      expect(res.data).toMatchObject({
        name: 'Welcome everyone, let us review the pricing proposal…',
        media_type: 'audio',
        privacies: 'team',
        summary: null,
      });
      const short = await create(olivia, { startTime: 6.5, endTime: 8 });
      expect(short.data.name).toBe('Sounds good.');
      const silent = await create(olivia, { startTime: 15, endTime: 25 });
      expect(silent.data.name).toBe('Clip of Pricing call');
    });

    it('accepts a 256-character name and refuses 257', async () => {
      const ok = await create(olivia, { name: 'n'.repeat(256) });
      expect(ok.data.name).toBe('n'.repeat(256));
      const bad = await create(olivia, { name: 'n'.repeat(257) });
      expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'name' });
    });

    it('accepts a 500-character summary and refuses 501', async () => {
      const ok = await create(olivia, { summary: 's'.repeat(500) });
      expect(ok.data.summary).toBe('s'.repeat(500));
      const bad = await create(olivia, { summary: 's'.repeat(501) });
      expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'summary' });
    });

    it('accepts startTime 0, refuses startTime below 0', async () => {
      expect((await create(olivia, { startTime: 0, endTime: 1 })).isError).toBe(false);
      const bad = await create(olivia, { startTime: -0.5, endTime: 1 });
      expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'startTime' });
    });

    it('refuses endTime equal to or before startTime, and endTime 0', async () => {
      for (const [startTime, endTime] of [
        [5, 5],
        [5, 4.9],
      ]) {
        const res = await create(olivia, { startTime, endTime });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'endTime' });
        expect(res.data.error.message).toMatch(/greater than startTime/);
      }
      const zero = await create(olivia, { startTime: 0, endTime: 0 });
      expect(zero.data.error).toMatchObject({ code: 'invalid_arguments', field: 'endTime' });
      expect((await create(olivia, { startTime: 5, endTime: 5.1 })).isError).toBe(false);
    });

    it('accepts endTime at the end of the meeting and refuses beyond it', async () => {
      expect((await create(olivia, { startTime: 30, endTime: 33 })).isError).toBe(false);
      const beyond = await create(olivia, { startTime: 30, endTime: 33.5 });
      expect(beyond.data.error).toMatchObject({ code: 'invalid_arguments', field: 'endTime' });
      expect(beyond.data.error.message).toMatch(/beyond the end of the meeting \(33 seconds\)/);
    });

    it('refuses unknown media types and privacies, and an empty privacies list', async () => {
      expect((await create(olivia, { mediaType: 'gif' })).data.error).toMatchObject({
        code: 'invalid_arguments',
        field: 'mediaType',
      });
      expect((await create(olivia, { privacies: ['everyone'] })).data.error).toMatchObject({
        code: 'invalid_arguments',
        field: 'privacies.0',
      });
      expect((await create(olivia, { privacies: [] })).data.error).toMatchObject({
        code: 'invalid_arguments',
        field: 'privacies',
      });
    });

    it('needs write access: organizer, participant, channel member and admin may; a teammate is forbidden; another team gets object_not_found', async () => {
      for (const u of [olivia, pat, carl, admin]) {
        const res = await create(u, {});
        expect(res.isError).toBe(false);
      }
      const teammate = await create(tom, {});
      expect(teammate.data.error.code).toBe('forbidden');
      expect(teammate.data.error.message).toMatch(
        /organizer, its participants, members of its channel or a team admin/,
      );
      const foreign = await create(outsider, {});
      expect(foreign.data.error.code).toBe('object_not_found');
    });

    it('does not let a participant clip a meeting they cannot see (owner-only privacy)', async () => {
      const ownerOnly = await makeMeeting(t.db, {
        organizer: olivia,
        privacy: 'owner',
        participants: [{ email: pat.email }],
      });
      const res = await mcp.call(pat.key, 'svc_create_soundbite', {
        transcriptId: ownerOnly.id,
        startTime: 0,
        endTime: 2,
      });
      expect(res.data.error.code).toBe('object_not_found');
    });

    it('refuses a meeting that is still processing', async () => {
      const processing = await makeMeeting(t.db, { organizer: olivia, status: 'processing' });
      const res = await mcp.call(olivia.key, 'svc_create_soundbite', {
        transcriptId: processing.id,
        startTime: 0,
        endTime: 2,
      });
      expect(res.data.error.code).toBe('invariant_violation');
      expect(await t.db('soundbites').where({ meeting_id: processing.id })).toHaveLength(0);
    });

    it('core re-validates the limits for callers that bypass the tool schema', async () => {
      const base = { transcriptId: meeting.id, startTime: 0, endTime: 5 };
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'n'.repeat(257) }, 'name'],
        [{ summary: 's'.repeat(501) }, 'summary'],
        [{ startTime: -1 }, 'startTime'],
        [{ endTime: 0 }, 'endTime'],
        [{ mediaType: 'gif' }, 'mediaType'],
        [{ privacies: ['everyone'] }, 'privacies.0'],
      ];
      for (const [extra, field] of cases) {
        await expect(
          createSoundbite(t.db, mcp.config, olivia.principal, { ...base, ...extra } as never),
        ).rejects.toMatchObject({ code: 'invalid_arguments', details: { field } });
      }
    });
  });

  describe('svc_get_soundbites', () => {
    let m2: { id: string };
    let secret: { id: string };
    let teamClip: string;
    let participantsClip: string;
    let publicClip: string;

    beforeAll(async () => {
      m2 = await makeMeeting(t.db, { organizer: pat, title: 'Hiring sync' });
      secret = await makeMeeting(t.db, {
        organizer: olivia,
        title: 'Board prep',
        privacy: 'owner',
        participants: [{ email: pat.email }],
      });
      const sb = async (u: TestUser, meetingId: string, name: string, privacies: string[]) =>
        (
          await mcp.call(u.key, 'svc_create_soundbite', {
            transcriptId: meetingId,
            startTime: 0,
            endTime: 4,
            name,
            privacies,
          })
        ).data.id as string;
      for (let i = 0; i < 12; i++) await sb(pat, m2.id, `Hiring clip ${i}`, ['team']);
      teamClip = await sb(olivia, secret.id, 'Board team clip', ['team']);
      participantsClip = await sb(olivia, secret.id, 'Board participants clip', ['participants']);
      publicClip = await sb(olivia, secret.id, 'Board public clip', ['public']);
    });

    it('requires at least one of mine, transcript_id, my_team, naming all three', async () => {
      for (const args of [{}, { mine: false }, { my_team: false, limit: 5 }]) {
        const res = await mcp.call(olivia.key, 'svc_get_soundbites', args);
        expect(res.isError).toBe(true);
        expect(res.data.error.code).toBe('args_required');
        for (const name of ['mine', 'transcript_id', 'my_team']) expect(res.data.error.field).toContain(name);
      }
    });

    it("lists one meeting's soundbites newest first; TOON decodes to the JSON result, rows as a table", async () => {
      const json = await mcp.call(olivia.key, 'svc_get_soundbites', { transcript_id: m2.id, format: 'json' });
      const toon = await mcp.call(olivia.key, 'svc_get_soundbites', { transcript_id: m2.id });
      expect(json.isError).toBe(false);
      expect(toon.data).toEqual(json.data);
      expect(toon.text).toMatch(
        /^soundbites\[10\]\{id,transcript_id,meeting_title,name,start_time,end_time,summary,media_type,privacies,created_at,share_url\}:$/m,
      );
      expect(json.data).toMatchObject({ has_more: true, next_skip: 10 });
      expect(json.data.soundbites.map((s: { name: string }) => s.name)).toEqual(
        Array.from({ length: 10 }, (_, i) => `Hiring clip ${11 - i}`),
      );
      for (const s of json.data.soundbites) expect(Object.keys(s).sort()).toEqual(RECORD_KEYS);
    });

    it('renders text with one line per soundbite and the skip to read on', async () => {
      const res = await mcp.call(olivia.key, 'svc_get_soundbites', { transcript_id: m2.id, format: 'text', limit: 2 });
      const lines = res.text.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^Hiring clip 11 \[00:00 - 00:04\] of "Hiring sync" \(audio; team\) id \S+ http/);
      expect(lines[2]).toBe('(more: call again with skip 2)');
    });

    it('pages with skip and next_skip with no gap or overlap', async () => {
      const names: string[] = [];
      let skip = 0;
      for (;;) {
        const res = await mcp.call(tom.key, 'svc_get_soundbites', {
          transcript_id: m2.id,
          limit: 5,
          skip,
          format: 'json',
        });
        names.push(...res.data.soundbites.map((s: { name: string }) => s.name));
        if (!res.data.has_more) {
          expect(res.data.next_skip).toBeNull();
          break;
        }
        skip = res.data.next_skip;
      }
      expect(names).toEqual(Array.from({ length: 12 }, (_, i) => `Hiring clip ${11 - i}`));
    });

    it('accepts limit 1 and 50, refuses 0 and 51', async () => {
      expect(
        (await mcp.call(olivia.key, 'svc_get_soundbites', { my_team: true, limit: 1 })).data.soundbites,
      ).toHaveLength(1);
      const fifty = await mcp.call(olivia.key, 'svc_get_soundbites', { my_team: true, limit: 50 });
      expect(fifty.isError).toBe(false);
      expect(fifty.data.soundbites.length).toBeGreaterThan(12);
      for (const limit of [0, 51]) {
        const res = await mcp.call(olivia.key, 'svc_get_soundbites', { my_team: true, limit });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
      }
      const neg = await mcp.call(olivia.key, 'svc_get_soundbites', { my_team: true, skip: -1 });
      expect(neg.data.error).toMatchObject({ code: 'invalid_arguments', field: 'skip' });
    });

    it("mine: true lists only the caller's own", async () => {
      const res = await mcp.call(pat.key, 'svc_get_soundbites', { mine: true, limit: 50, format: 'json' });
      const owned = await t.db('soundbites').where({ owner_id: pat.id }).pluck('id');
      // Pat's 12 hiring clips plus the one made in the write-access test; none of Olivia's.
      expect(owned).toHaveLength(13);
      expect(res.data.soundbites.map((s: { id: string }) => s.id).sort()).toEqual([...owned].sort());
      const mineOfMeeting = await mcp.call(pat.key, 'svc_get_soundbites', {
        mine: true,
        transcript_id: meeting.id,
        format: 'json',
      });
      expect(mineOfMeeting.data.soundbites).toHaveLength(1);
    });

    it('shows a soundbite of an unreadable meeting only as its privacies allow', async () => {
      const ids = async (u: TestUser) =>
        (await mcp.call(u.key, 'svc_get_soundbites', { transcript_id: secret.id, format: 'json' })).data.soundbites
          .map((s: { id: string }) => s.id)
          .sort();
      // Olivia owns all three; the admin reads the meeting; Pat is a participant; Tom is a teammate; the outsider is of another team.
      expect(await ids(olivia)).toEqual([teamClip, participantsClip, publicClip].sort());
      expect(await ids(admin)).toEqual([teamClip, participantsClip, publicClip].sort());
      expect(await ids(pat)).toEqual([teamClip, participantsClip, publicClip].sort());
      expect(await ids(tom)).toEqual([teamClip, publicClip].sort());
      // One team never sees another's data: not even a public clip is listed across teams, and the
      // meeting itself is object_not_found to them, as in every other tool.
      const outside = await mcp.call(outsider.key, 'svc_get_soundbites', { transcript_id: secret.id, format: 'json' });
      expect(outside.data.error.code).toBe('object_not_found');
      const mineOnly = await mcp.call(outsider.key, 'svc_get_soundbites', { transcript_id: secret.id, my_team: true });
      expect(mineOnly.data.error.code).toBe('object_not_found');
    });
  });
});
