import { newId } from '../../../services/core/input';
import { CONTACT_LIST_CAP } from '../../../services/core/people';
import { GROUP_LIST_CAP } from '../../../services/core/people/people';
import { makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('people tools', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db, { tier: 'pro' });
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@a.test', name: 'Admin' });
    alice = await makeUser(t.db, team, { email: 'alice@a.test', name: 'Alice' });
    bob = await makeUser(t.db, team, { email: 'bob@a.test', name: 'Bob' });
    carol = await makeUser(t.db, team, { email: 'carol@a.test', name: 'Carol' });
    outsider = await makeUser(t.db, other, { role: 'admin', email: 'out@b.test', name: 'Outsider' });
    await t.db('users').where({ id: bob.id }).update({ picture: 'https://img.test/bob.png' });
    await t.db('users').where({ id: outsider.id }).update({ picture: 'https://img.test/out.png' });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  describe('svc_get_usergroups', () => {
    let sales: string;
    let eng: string;

    beforeAll(async () => {
      sales = newId();
      eng = newId();
      const foreign = newId();
      await t.db('user_groups').insert([
        { id: sales, team_id: team.id, name: 'Sales', handle: 'sales' },
        { id: eng, team_id: team.id, name: 'Engineering', handle: 'eng' },
        { id: foreign, team_id: outsider.teamId, name: 'Foreign', handle: 'foreign' },
      ]);
      await t.db('user_group_members').insert([
        { group_id: sales, user_id: bob.id, role: 'admin' },
        { group_id: sales, user_id: alice.id, role: 'member' },
        { group_id: eng, user_id: carol.id, role: 'member' },
        { group_id: foreign, user_id: outsider.id, role: 'admin' },
      ]);
    });

    const salesGroup = () => ({
      id: sales,
      name: 'Sales',
      handle: 'sales',
      member_count: 2,
      members: [
        { email: 'alice@a.test', name: 'Alice', role: 'member' },
        { email: 'bob@a.test', name: 'Bob', role: 'admin' },
      ],
    });

    it('lists every group of the team by name, members with emails and roles as a table per group', async () => {
      const res = await mcp.call(alice.key, 'svc_get_usergroups');
      expect(res.isError).toBe(false);
      expect(res.text).toContain('members[2]{email,name,role}:');
      expect(res.data).toEqual({
        groups: [
          {
            id: eng,
            name: 'Engineering',
            handle: 'eng',
            member_count: 1,
            members: [{ email: 'carol@a.test', name: 'Carol', role: 'member' }],
          },
          salesGroup(),
        ],
        has_more: false,
      });
      const explicit = await mcp.call(alice.key, 'svc_get_usergroups', { mine: false });
      expect(explicit.data).toEqual(res.data);
    });

    it("mine: true lists only the caller's groups", async () => {
      expect((await mcp.call(alice.key, 'svc_get_usergroups', { mine: true })).data).toEqual({
        groups: [salesGroup()],
        has_more: false,
      });
      expect((await mcp.call(admin.key, 'svc_get_usergroups', { mine: true })).data).toEqual({
        groups: [],
        has_more: false,
      });
    });

    it("never shows another team's groups, admins included", async () => {
      const res = await mcp.call(outsider.key, 'svc_get_usergroups');
      expect(res.data.groups.map((g: { handle: string }) => g.handle)).toEqual(['foreign']);
      const mine = await mcp.call(admin.key, 'svc_get_usergroups');
      expect(mine.data.groups.map((g: { handle: string }) => g.handle)).toEqual(['eng', 'sales']);
    });

    it('checks mine is a boolean and refuses unknown parameters', async () => {
      const bad = await mcp.call(alice.key, 'svc_get_usergroups', { mine: 'yes' });
      expect(bad.isError).toBe(true);
      expect(bad.data.error.field).toBe('mine');
      const unknown = await mcp.call(alice.key, 'svc_get_usergroups', { team: true });
      expect(unknown.data.error).toMatchObject({ code: 'invalid_arguments', field: 'team' });
    });

    it(`lists at most ${GROUP_LIST_CAP} groups and says has_more beyond`, async () => {
      const big = await makeTeam(t.db);
      const user = await makeUser(t.db, big);
      const rows = Array.from({ length: GROUP_LIST_CAP }, (_, i) => ({
        id: newId(),
        team_id: big.id,
        name: `g${String(i).padStart(3, '0')}`,
        handle: `g${i}`,
      }));
      await t.db('user_groups').insert(rows);
      const full = await mcp.call(user.key, 'svc_get_usergroups');
      expect(full.data.groups).toHaveLength(GROUP_LIST_CAP);
      expect(full.data.has_more).toBe(false);
      await t.db('user_groups').insert({ id: newId(), team_id: big.id, name: 'zz', handle: 'zz' });
      const over = await mcp.call(user.key, 'svc_get_usergroups');
      expect(over.data.groups).toHaveLength(GROUP_LIST_CAP);
      expect(over.data.has_more).toBe(true);
    });
  });

  describe('svc_get_user_contacts', () => {
    beforeAll(async () => {
      // alice organizes with bob and an external guest (older), then meets carol (newer).
      await makeMeeting(t.db, {
        organizer: alice,
        date: '2026-10-01T10:00:00Z',
        participants: [{ email: 'bob@a.test' }, { email: 'Guest@Ext.test', name: 'Gina Guest' }],
      });
      await makeMeeting(t.db, {
        organizer: alice,
        date: '2026-10-05T10:00:00Z',
        participants: [{ email: 'carol@a.test', name: 'Caro' }],
      });
      // bob's teammates-visible meeting with an external: alice can see it, so its people are her contacts.
      await makeMeeting(t.db, {
        organizer: bob,
        date: '2026-10-03T10:00:00Z',
        privacy: 'teammates',
        participants: [{ email: 'vendor@ext.test', name: 'Vic Vendor' }],
      });
      // carol's owner-only meeting: alice cannot see it, so its guest is no contact of hers.
      await makeMeeting(t.db, {
        organizer: carol,
        date: '2026-10-09T10:00:00Z',
        privacy: 'owner',
        participants: [{ email: 'hidden@ext.test', name: 'Hidden' }],
      });
      // Another team's meeting shared with alice: visible, so its organizer is a contact (their picture is not exposed).
      const shared = await makeMeeting(t.db, { organizer: outsider, date: '2026-10-07T10:00:00Z', privacy: 'owner' });
      await shareMeeting(t.db, shared.id, alice.email);
      // Another team's meeting not shared: never.
      await makeMeeting(t.db, {
        organizer: outsider,
        date: '2026-10-08T10:00:00Z',
        participants: [{ email: 'secret@ext.test' }],
      });
    });

    const expected = () => ({
      contacts: [
        { email: 'out@b.test', name: 'Outsider', picture: null, last_meeting_date: '2026-10-07T10:00:00.000Z' },
        { email: 'carol@a.test', name: 'Carol', picture: null, last_meeting_date: '2026-10-05T10:00:00.000Z' },
        {
          email: 'bob@a.test',
          name: 'Bob',
          picture: 'https://img.test/bob.png',
          last_meeting_date: '2026-10-03T10:00:00.000Z',
        },
        { email: 'vendor@ext.test', name: 'Vic Vendor', picture: null, last_meeting_date: '2026-10-03T10:00:00.000Z' },
        { email: 'guest@ext.test', name: 'Gina Guest', picture: null, last_meeting_date: '2026-10-01T10:00:00.000Z' },
      ],
      has_more: false,
      next_skip: null,
    });

    it('lists the people in meetings the caller can see, most recent first, without the caller (json)', async () => {
      const res = await mcp.call(alice.key, 'svc_get_user_contacts', { format: 'json' });
      expect(res.isError).toBe(false);
      expect(res.data).toEqual(expected());
    });

    it('answers TOON by default as a table that decodes to exactly the JSON result', async () => {
      const toon = await mcp.call(alice.key, 'svc_get_user_contacts');
      const json = await mcp.call(alice.key, 'svc_get_user_contacts', { format: 'json' });
      expect(toon.text).toContain('contacts[5]{email,name,picture,last_meeting_date}:');
      expect(toon.data).toEqual(json.data);
      expect((await mcp.call(alice.key, 'svc_get_user_contacts', { format: 'toon' })).text).toBe(toon.text);
    });

    it('answers text as one readable line per contact', async () => {
      const res = await mcp.call(alice.key, 'svc_get_user_contacts', { format: 'text' });
      expect(res.text.split('\n')).toEqual([
        'Outsider <out@b.test> - last met 2026-10-07',
        'Carol <carol@a.test> - last met 2026-10-05',
        'Bob <bob@a.test> - last met 2026-10-03',
        'Vic Vendor <vendor@ext.test> - last met 2026-10-03',
        'Gina Guest <guest@ext.test> - last met 2026-10-01',
      ]);
    });

    it("follows visibility: an admin sees the owner-only meeting's guest, another team sees none of these", async () => {
      const adm = await mcp.call(admin.key, 'svc_get_user_contacts', { format: 'json' });
      expect(adm.data.contacts.map((c: { email: string }) => c.email)).toEqual(
        expect.arrayContaining(['hidden@ext.test', 'alice@a.test', 'carol@a.test']),
      );
      expect(adm.data.contacts.map((c: { email: string }) => c.email)).not.toContain('secret@ext.test');
      const out = await mcp.call(outsider.key, 'svc_get_user_contacts', { format: 'json' });
      // Sharing with alice does not make her a participant of the outsider's meeting.
      expect(out.data.contacts.map((c: { email: string }) => c.email)).toEqual(['secret@ext.test']);
    });

    it('answers an empty list for someone with no meetings, in every format', async () => {
      const loner = await makeUser(t.db, await makeTeam(t.db));
      expect((await mcp.call(loner.key, 'svc_get_user_contacts', { format: 'json' })).data).toEqual({
        contacts: [],
        has_more: false,
        next_skip: null,
      });
      expect((await mcp.call(loner.key, 'svc_get_user_contacts')).data).toEqual({
        contacts: [],
        has_more: false,
        next_skip: null,
      });
      expect((await mcp.call(loner.key, 'svc_get_user_contacts', { format: 'text' })).text).toMatch(/^No contacts yet/);
    });

    it('checks format', async () => {
      const res = await mcp.call(alice.key, 'svc_get_user_contacts', { format: 'xml' });
      expect(res.isError).toBe(true);
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'format' });
    });

    it(`lists at most ${CONTACT_LIST_CAP} contacts a page and says has_more and next_skip beyond`, async () => {
      const crowdTeam = await makeTeam(t.db);
      const host = await makeUser(t.db, crowdTeam);
      const guests = (n: number, from = 0) =>
        Array.from({ length: n }, (_, i) => ({ email: `p${from + i}@crowd.test` }));
      await makeMeeting(t.db, { organizer: host, participants: guests(CONTACT_LIST_CAP) });
      const full = await mcp.call(host.key, 'svc_get_user_contacts', { format: 'json' });
      expect(full.data.contacts).toHaveLength(CONTACT_LIST_CAP);
      expect(full.data.has_more).toBe(false);
      await makeMeeting(t.db, {
        organizer: host,
        date: '2020-01-01T00:00:00Z',
        participants: guests(1, CONTACT_LIST_CAP),
      });
      const over = await mcp.call(host.key, 'svc_get_user_contacts', { format: 'json' });
      expect(over.data.contacts).toHaveLength(CONTACT_LIST_CAP);
      expect(over.data.has_more).toBe(true);
      expect(over.data.next_skip).toBe(CONTACT_LIST_CAP);
      // The oldest contact is the one left off.
      expect(over.data.contacts.map((c: { email: string }) => c.email)).not.toContain(
        `p${CONTACT_LIST_CAP}@crowd.test`,
      );
      const text = await mcp.call(host.key, 'svc_get_user_contacts', { format: 'text' });
      expect(text.text).toMatch(/\(more contacts: call again with skip 200\)$/);
      const rest = await mcp.call(host.key, 'svc_get_user_contacts', { format: 'json', skip: over.data.next_skip });
      expect(rest.data).toMatchObject({
        contacts: [expect.objectContaining({ email: `p${CONTACT_LIST_CAP}@crowd.test` })],
        has_more: false,
        next_skip: null,
      });
    });
  });

  it('keeps svc_get_user and lists the new tools as read-only', async () => {
    const c = await mcp.client(alice.key);
    const tools = (await c.listTools()).tools.filter((x) =>
      ['svc_get_user', 'svc_get_usergroups', 'svc_get_user_contacts'].includes(x.name),
    );
    expect(tools.map((x) => x.name).sort()).toEqual(['svc_get_user', 'svc_get_user_contacts', 'svc_get_usergroups']);
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    expect((await mcp.call(alice.key, 'svc_get_user')).data).toMatchObject({
      user_id: alice.id,
      email: 'alice@a.test',
    });
  });
});
