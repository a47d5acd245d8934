import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import {
  moveMeetings,
  shareMeeting as shareCore,
  updateMeetingPrivacy,
  updateMeetingTitle,
} from '../../../services/core/meetings';

const DAY = 86_400_000;

describe('meeting management tools: share, revoke, rename, privacy, move', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  let admin: TestUser;
  let olivia: TestUser;
  let pat: TestUser;
  let tom: TestUser;
  let outsiderAdmin: TestUser;
  let guest: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    tom = await makeUser(t.db, team, { name: 'Tom' });
    outsiderAdmin = await makeUser(t.db, other, { role: 'admin' });
    guest = await makeUser(t.db, other, { name: 'Guest' });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  /** A meeting organized by Olivia with Pat as a participant; Tom is a teammate who can see it. */
  const meeting = (extra: Record<string, unknown> = {}) =>
    makeMeeting(t.db, { organizer: olivia, participants: [{ email: pat.email }], ...extra });
  const auditRows = (targetId: string, action: string) =>
    t.db('audit_log').where({ target_id: targetId, action }).orderBy('id');
  const canRead = async (u: TestUser, id: string) =>
    !(await mcp.call(u.key, 'svc_get_transcript', { transcriptId: id })).isError;
  const emails = (n: number) => Array.from({ length: n }, (_, i) => `person${i}@example.org`);

  describe('svc_share_meeting', () => {
    it('shares with deduplicated emails and answers a confirmation table; the shared user can read it', async () => {
      const m = await meeting();
      expect(await canRead(guest, m.id)).toBe(false);
      const before = Date.now();
      const res = await mcp.call(olivia.key, 'svc_share_meeting', {
        meetingId: m.id,
        emails: [guest.email, guest.email.toUpperCase(), 'new.person@example.org'],
        expiryDays: 7,
      });
      expect(res.isError).toBe(false);
      expect(res.text).toMatch(/^shares\[2\]\{email,expires_at,change\}:$/m);
      expect(res.data).toMatchObject({ success: true, meetingId: m.id });
      expect(res.data.shares.map((s: { email: string; change: string }) => [s.email, s.change])).toEqual([
        [guest.email, 'added'],
        ['new.person@example.org', 'added'],
      ]);
      const expires = Date.parse(res.data.shares[0].expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 7 * DAY - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 7 * DAY + 1000);
      expect(await t.db('meeting_shares').where({ meeting_id: m.id })).toHaveLength(2);
      expect(await canRead(guest, m.id)).toBe(true);

      const [row] = await auditRows(m.id, 'meeting.share');
      expect(row).toMatchObject({ actor_user_id: olivia.id, target_type: 'meeting', team_id: team.id });
      expect(row.details.emails).toEqual([guest.email, 'new.person@example.org']);
    });

    it('re-sharing updates the expiry instead of adding a row (idempotent for retried rules)', async () => {
      const m = await meeting();
      await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: [guest.email], expiryDays: 7 });
      const again = await mcp.call(olivia.key, 'svc_share_meeting', {
        meetingId: m.id,
        emails: [guest.email.toUpperCase()],
        expiryDays: 30,
      });
      expect(again.data.shares).toEqual([{ email: guest.email, expires_at: expect.any(String), change: 'updated' }]);
      let rows = await t.db('meeting_shares').where({ meeting_id: m.id });
      expect(rows).toHaveLength(1);
      expect(new Date(rows[0].expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * DAY);

      const forever = await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: [guest.email] });
      expect(forever.data.shares[0]).toMatchObject({ change: 'updated', expires_at: null });
      rows = await t.db('meeting_shares').where({ meeting_id: m.id });
      expect(rows).toHaveLength(1);
      expect(rows[0].expires_at).toBeNull();
    });

    it('does not let an expired or revoked share open the meeting; sharing again after expiry renews it', async () => {
      const expired = await meeting();
      await shareMeeting(t.db, expired.id, guest.email, { expiresAt: new Date(Date.now() - 1000) });
      expect(await canRead(guest, expired.id)).toBe(false);
      const renewed = await mcp.call(olivia.key, 'svc_share_meeting', {
        meetingId: expired.id,
        emails: [guest.email],
        expiryDays: 14,
      });
      expect(renewed.data.shares[0].change).toBe('updated');
      expect(await canRead(guest, expired.id)).toBe(true);

      const revoked = await meeting();
      await shareMeeting(t.db, revoked.id, guest.email, { revoked: true });
      expect(await canRead(guest, revoked.id)).toBe(false);
    });

    it('accepts 100 emails and refuses 101 or none', async () => {
      const m = await meeting();
      const ok = await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: emails(100) });
      expect(ok.isError).toBe(false);
      expect(ok.data.shares).toHaveLength(100);
      const tooMany = await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: emails(101) });
      expect(tooMany.data.error).toMatchObject({ code: 'invalid_arguments', field: 'emails' });
      expect(tooMany.data.error.message).toMatch(/100/);
      const none = await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: [] });
      expect(none.data.error).toMatchObject({ code: 'invalid_arguments', field: 'emails' });
      expect(await t.db('meeting_shares').where({ meeting_id: m.id })).toHaveLength(100);
    });

    it('names a malformed email by its position', async () => {
      const m = await meeting();
      const res = await mcp.call(olivia.key, 'svc_share_meeting', {
        meetingId: m.id,
        emails: ['a@example.org', 'not-an-email'],
      });
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'emails.1' });
      expect(await t.db('meeting_shares').where({ meeting_id: m.id })).toHaveLength(0);
    });

    it('accepts expiryDays 7, 14 and 30, refuses 10', async () => {
      const m = await meeting();
      for (const days of [7, 14, 30]) {
        const res = await mcp.call(olivia.key, 'svc_share_meeting', {
          meetingId: m.id,
          emails: [`d${days}@example.org`],
          expiryDays: days,
        });
        expect(res.isError).toBe(false);
        const expires = Date.parse(res.data.shares[0].expires_at);
        expect(Math.round((expires - Date.now()) / DAY)).toBe(days);
      }
      const bad = await mcp.call(olivia.key, 'svc_share_meeting', {
        meetingId: m.id,
        emails: ['d10@example.org'],
        expiryDays: 10,
      });
      expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'expiryDays' });
      expect(bad.data.error.message).toMatch(/7, 14, 30/);
    });
  });

  describe('svc_revoke_meeting_access', () => {
    it('revokes the active share of one email so it can no longer read; revoking again changes nothing and says so', async () => {
      const m = await meeting();
      await mcp.call(olivia.key, 'svc_share_meeting', { meetingId: m.id, emails: [guest.email, 'keep@example.org'] });
      expect(await canRead(guest, m.id)).toBe(true);
      const res = await mcp.call(olivia.key, 'svc_revoke_meeting_access', {
        meetingId: m.id,
        email: guest.email.toUpperCase(),
      });
      expect(res.isError).toBe(false);
      expect(res.data).toMatchObject({ success: true, meetingId: m.id, email: guest.email, revoked: 1 });
      expect(await canRead(guest, m.id)).toBe(false);
      const kept = await t.db('meeting_shares').where({ meeting_id: m.id, email: 'keep@example.org' }).first();
      expect(kept.revoked_at).toBeNull();
      expect(await auditRows(m.id, 'meeting.revoke_access')).toHaveLength(1);

      const again = await mcp.call(olivia.key, 'svc_revoke_meeting_access', { meetingId: m.id, email: guest.email });
      expect(again.isError).toBe(false);
      expect(again.data).toMatchObject({ revoked: 0 });
      expect(again.data.message).toMatch(/had no active share/);
      expect(await auditRows(m.id, 'meeting.revoke_access')).toHaveLength(1);
    });

    it('refuses a malformed email', async () => {
      const m = await meeting();
      const res = await mcp.call(olivia.key, 'svc_revoke_meeting_access', { meetingId: m.id, email: 'nope' });
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'email' });
    });
  });

  describe('svc_update_meeting_title', () => {
    it('renames and confirms the old and new title', async () => {
      const m = await meeting({ title: 'Old title' });
      const res = await mcp.call(olivia.key, 'svc_update_meeting_title', {
        meetingId: m.id,
        title: '  Q3 roadmap review  ',
      });
      expect(res.data).toEqual({
        success: true,
        meetingId: m.id,
        title: 'Q3 roadmap review',
        previous_title: 'Old title',
      });
      expect((await t.db('meetings').where({ id: m.id }).first()).title).toBe('Q3 roadmap review');
      const [row] = await auditRows(m.id, 'meeting.update_title');
      expect(row.details).toEqual({ from: 'Old title', to: 'Q3 roadmap review' });
    });

    it('accepts 5 and 256 characters, refuses 4 (also after trimming) and 257', async () => {
      const m = await meeting();
      for (const title of ['abcde', 'x'.repeat(256)]) {
        const res = await mcp.call(olivia.key, 'svc_update_meeting_title', { meetingId: m.id, title });
        expect(res.isError).toBe(false);
        expect(res.data.title).toBe(title);
      }
      for (const title of ['abcd', '   abcd   ', 'x'.repeat(257)]) {
        const res = await mcp.call(olivia.key, 'svc_update_meeting_title', { meetingId: m.id, title });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'title' });
      }
      expect((await t.db('meetings').where({ id: m.id }).first()).title).toBe('x'.repeat(256));
    });
  });

  describe('svc_update_meeting_privacy', () => {
    it('sets the privacy, which changes who can read the meeting', async () => {
      const m = await meeting();
      expect(await canRead(tom, m.id)).toBe(true);
      const res = await mcp.call(olivia.key, 'svc_update_meeting_privacy', { meetingId: m.id, privacy: 'owner' });
      expect(res.data).toEqual({
        success: true,
        meetingId: m.id,
        privacy: 'owner',
        previous_privacy: 'teammatesandparticipants',
      });
      expect(await canRead(tom, m.id)).toBe(false);
      expect(await canRead(pat, m.id)).toBe(false);
      expect(await canRead(admin, m.id)).toBe(true);
      const [row] = await auditRows(m.id, 'meeting.update_privacy');
      expect(row.details).toEqual({ from: 'teammatesandparticipants', to: 'owner' });
    });

    it('refuses a value outside link, owner, participants, teammatesandparticipants, teammates', async () => {
      const m = await meeting();
      const res = await mcp.call(olivia.key, 'svc_update_meeting_privacy', { meetingId: m.id, privacy: 'public' });
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'privacy' });
      expect(res.data.error.message).toMatch(/teammatesandparticipants/);
    });
  });

  describe('svc_move_meeting', () => {
    it('moves up to 5 meetings into a channel and confirms each', async () => {
      const channel = await makeChannel(t.db, team.id, 'Planning', []);
      const ms = await Promise.all(Array.from({ length: 5 }, () => meeting()));
      const res = await mcp.call(olivia.key, 'svc_move_meeting', {
        meetingIds: ms.map((m) => m.id),
        channelId: channel.id,
      });
      expect(res.isError).toBe(false);
      expect(res.text).toMatch(/^moved\[5\]\{meetingId,title,previous_channel_id\}:$/m);
      expect(res.data).toMatchObject({ success: true, channelId: channel.id, channel_title: 'Planning' });
      expect(res.data.moved.map((r: { meetingId: string }) => r.meetingId)).toEqual(ms.map((m) => m.id));
      const rows = await t.db('meetings').whereIn(
        'id',
        ms.map((m) => m.id),
      );
      expect(rows.every((r) => r.channel_id === channel.id)).toBe(true);
      for (const m of ms) expect(await auditRows(m.id, 'meeting.move')).toHaveLength(1);
    });

    it('refuses 6 meeting ids, none, and a repeated id', async () => {
      const channel = await makeChannel(t.db, team.id, 'Six', []);
      const ms = await Promise.all(Array.from({ length: 6 }, () => meeting()));
      const six = await mcp.call(olivia.key, 'svc_move_meeting', {
        meetingIds: ms.map((m) => m.id),
        channelId: channel.id,
      });
      expect(six.data.error).toMatchObject({ code: 'invalid_arguments', field: 'meetingIds' });
      const none = await mcp.call(olivia.key, 'svc_move_meeting', { meetingIds: [], channelId: channel.id });
      expect(none.data.error).toMatchObject({ code: 'invalid_arguments', field: 'meetingIds' });
      const twice = await mcp.call(olivia.key, 'svc_move_meeting', {
        meetingIds: [ms[0].id, ms[0].id],
        channelId: channel.id,
      });
      expect(twice.data.error).toMatchObject({ code: 'invalid_arguments', field: 'meetingIds' });
      expect(await t.db('meetings').where({ channel_id: channel.id })).toHaveLength(0);
    });

    it("moves nothing when one meeting is not the caller's to manage", async () => {
      const channel = await makeChannel(t.db, team.id, 'All or nothing', []);
      const mine = await meeting();
      const tomsOwn = await makeMeeting(t.db, { organizer: tom });
      const res = await mcp.call(olivia.key, 'svc_move_meeting', {
        meetingIds: [mine.id, tomsOwn.id],
        channelId: channel.id,
      });
      expect(res.data.error.code).toBe('forbidden');
      expect(res.data.error.message).toContain(tomsOwn.id);
      expect((await t.db('meetings').where({ id: mine.id }).first()).channel_id).toBeNull();
      expect(await auditRows(mine.id, 'meeting.move')).toHaveLength(0);
    });

    it('refuses a channel of another team and a private channel the caller is not in', async () => {
      const m = await meeting();
      const foreign = await makeChannel(t.db, outsiderAdmin.teamId, 'Theirs', [outsiderAdmin]);
      const res = await mcp.call(olivia.key, 'svc_move_meeting', { meetingIds: [m.id], channelId: foreign.id });
      expect(res.data.error.code).toBe('object_not_found');
      const privateOne = await makeChannel(t.db, team.id, 'Board', [tom], true);
      const hidden = await mcp.call(olivia.key, 'svc_move_meeting', { meetingIds: [m.id], channelId: privateOne.id });
      expect(hidden.data.error.code).toBe('object_not_found');
      // An admin sees every channel of the team, private ones included.
      const byAdmin = await mcp.call(admin.key, 'svc_move_meeting', { meetingIds: [m.id], channelId: privateOne.id });
      expect(byAdmin.data.success).toBe(true);
    });
  });

  describe('permissions', () => {
    const channelFor = async () => (await makeChannel(t.db, team.id, `Target ${Math.random()}`, [])).id;
    const calls: [string, (id: string) => Promise<Record<string, unknown>>][] = [
      ['svc_share_meeting', async (id) => ({ meetingId: id, emails: ['someone@example.org'] })],
      ['svc_revoke_meeting_access', async (id) => ({ meetingId: id, email: 'someone@example.org' })],
      ['svc_update_meeting_title', async (id) => ({ meetingId: id, title: 'A renamed meeting' })],
      ['svc_update_meeting_privacy', async (id) => ({ meetingId: id, privacy: 'teammates' })],
      ['svc_move_meeting', async (id) => ({ meetingIds: [id], channelId: await channelFor() })],
    ];

    it.each(calls)('%s: the organizer and a team admin may', async (tool, args) => {
      for (const u of [olivia, admin]) {
        const m = await meeting();
        await shareMeeting(t.db, m.id, 'someone@example.org');
        const res = await mcp.call(u.key, tool, await args(m.id));
        expect(res.isError).toBe(false);
        expect(res.data.success).toBe(true);
        const [row] = await t.db('audit_log').where({ target_id: m.id });
        expect(row.actor_user_id).toBe(u.id);
      }
    });

    it.each(calls)(
      "%s: a participant or a teammate is forbidden and told who may; another team's admin gets object_not_found",
      async (tool, args) => {
        const m = await meeting({ title: 'Untouched title' });
        await shareMeeting(t.db, m.id, 'someone@example.org');
        for (const u of [pat, tom]) {
          const res = await mcp.call(u.key, tool, await args(m.id));
          expect(res.isError).toBe(true);
          expect(res.data.error.code).toBe('forbidden');
          expect(res.data.error.message).toMatch(/organizer or an admin of its team/);
        }
        const foreign = await mcp.call(outsiderAdmin.key, tool, await args(m.id));
        expect(foreign.data.error.code).toBe('object_not_found');
        const after = await t.db('meetings').where({ id: m.id }).first();
        expect(after).toMatchObject({
          title: 'Untouched title',
          privacy: 'teammatesandparticipants',
          channel_id: null,
        });
        expect((await t.db('meeting_shares').where({ meeting_id: m.id }).first()).revoked_at).toBeNull();
        expect(await t.db('audit_log').where({ target_id: m.id })).toHaveLength(0);
      },
    );

    it('a user from another team with an active share can read but not manage: forbidden', async () => {
      const m = await meeting();
      await shareMeeting(t.db, m.id, guest.email);
      const res = await mcp.call(guest.key, 'svc_update_meeting_title', { meetingId: m.id, title: 'Hijacked title' });
      expect(res.data.error.code).toBe('forbidden');
    });

    it('core re-validates every limit for callers that bypass the tool schema (GraphQL, automation rules)', async () => {
      const m = await meeting();
      const p = olivia.principal;
      const cases: [Promise<unknown>, string][] = [
        [shareCore(t.db, p, { meetingId: m.id, emails: emails(101) }), 'emails'],
        [shareCore(t.db, p, { meetingId: m.id, emails: ['x@example.org'], expiryDays: 10 }), 'expiryDays'],
        [shareCore(t.db, p, { meetingId: m.id, emails: ['bad'] }), 'emails.0'],
        [updateMeetingTitle(t.db, p, { meetingId: m.id, title: '  abcd ' }), 'title'],
        [updateMeetingPrivacy(t.db, p, { meetingId: m.id, privacy: 'everyone' }), 'privacy'],
        [
          moveMeetings(t.db, p, {
            meetingIds: Array(6)
              .fill(m.id)
              .map((id, i) => `${id}${i}`),
            channelId: 'c',
          }),
          'meetingIds',
        ],
      ];
      for (const [call, field] of cases)
        await expect(call).rejects.toMatchObject({ code: 'invalid_arguments', details: { field } });
    });

    it('an unknown meeting id is object_not_found', async () => {
      const res = await mcp.call(admin.key, 'svc_update_meeting_title', {
        meetingId: 'NO_SUCH_MEETING',
        title: 'Whatever title',
      });
      expect(res.data.error.code).toBe('object_not_found');
    });
  });
});
