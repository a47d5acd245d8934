import { newId } from '../../../services/core/input';
import { CHANNEL_LIST_CAP } from '../../../services/core/channels/channels';
import { makeChannel, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('channel tools', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let general: string;
  let empty: string;
  let secret: string;
  let board: string;
  let foreign: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro' });
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@a.test', name: 'Admin' });
    alice = await makeUser(t.db, team, { email: 'alice@a.test', name: 'Alice' });
    bob = await makeUser(t.db, team, { email: 'bob@a.test', name: 'Bob' });
    outsider = await makeUser(t.db, other, { role: 'super_admin', email: 'out@b.test' });
    general = (await makeChannel(t.db, team.id, 'General', [bob, alice])).id;
    empty = (await makeChannel(t.db, team.id, 'empty room', [])).id;
    secret = (await makeChannel(t.db, team.id, 'Secret', [alice], true)).id;
    board = (await makeChannel(t.db, team.id, 'Board', [], true)).id;
    foreign = (await makeChannel(t.db, other.id, 'Foreign', [outsider])).id;
    await t.db('channel_members').where({ channel_id: secret, user_id: alice.id }).update({ role: 'owner' });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const row = (id: string, title: string, isPrivate: boolean, members: string[]) => ({
    id,
    title,
    is_private: isPrivate,
    members: members.join(', '),
    member_count: members.length,
  });

  describe('svc_list_channels', () => {
    it('shows a member the public channels and the private ones they belong to, as a flat TOON table', async () => {
      const res = await mcp.call(alice.key, 'svc_list_channels');
      expect(res.isError).toBe(false);
      expect(res.text).toContain('channels[3]{id,title,is_private,members,member_count}:');
      expect(res.data).toEqual({
        channels: [
          row(empty, 'empty room', false, []),
          row(general, 'General', false, ['alice@a.test', 'bob@a.test']),
          row(secret, 'Secret', true, ['alice@a.test']),
        ],
        has_more: false,
      });
    });

    it('hides private channels from members who are not in them', async () => {
      const res = await mcp.call(bob.key, 'svc_list_channels');
      expect(res.data.channels.map((c: { id: string }) => c.id)).toEqual([empty, general]);
    });

    it("shows an admin every channel of the team, never another team's", async () => {
      const res = await mcp.call(admin.key, 'svc_list_channels');
      expect(res.data.channels.map((c: { title: string }) => c.title)).toEqual([
        'Board',
        'empty room',
        'General',
        'Secret',
      ]);
      const out = await mcp.call(outsider.key, 'svc_list_channels');
      expect(out.data).toEqual({ channels: [row(foreign, 'Foreign', false, ['out@b.test'])], has_more: false });
    });

    it('refuses parameters it does not take', async () => {
      const res = await mcp.call(alice.key, 'svc_list_channels', { format: 'json' });
      expect(res.isError).toBe(true);
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'format' });
    });

    it(`lists at most ${CHANNEL_LIST_CAP} channels and says has_more beyond`, async () => {
      const team = await makeTeam(t.db);
      const user = await makeUser(t.db, team);
      const insert = (n: number) =>
        t.db('channels').insert(
          Array.from({ length: n }, (_, i) => ({
            id: newId(),
            team_id: team.id,
            title: `c${String(i).padStart(4, '0')}`,
          })),
        );
      await insert(CHANNEL_LIST_CAP);
      const full = await mcp.call(user.key, 'svc_list_channels');
      expect(full.data.channels).toHaveLength(CHANNEL_LIST_CAP);
      expect(full.data.has_more).toBe(false);
      await t.db('channels').insert({ id: newId(), team_id: team.id, title: 'zzz last' });
      const over = await mcp.call(user.key, 'svc_list_channels');
      expect(over.data.channels).toHaveLength(CHANNEL_LIST_CAP);
      expect(over.data.has_more).toBe(true);
      expect(over.data.channels.map((c: { title: string }) => c.title)).not.toContain('zzz last');
    });
  });

  describe('svc_get_channel', () => {
    it('returns the channel with its members as a table of user_id, email, name, role', async () => {
      const res = await mcp.call(alice.key, 'svc_get_channel', { channelId: general });
      expect(res.isError).toBe(false);
      expect(res.text).toContain('members[2]{user_id,email,name,role}:');
      expect(res.data).toEqual({
        id: general,
        title: 'General',
        is_private: false,
        members: [
          { user_id: alice.id, email: 'alice@a.test', name: 'Alice', role: 'member' },
          { user_id: bob.id, email: 'bob@a.test', name: 'Bob', role: 'member' },
        ],
      });
    });

    it('shows a private channel to its members and to admins', async () => {
      const own = await mcp.call(alice.key, 'svc_get_channel', { channelId: secret });
      expect(own.data.members).toEqual([{ user_id: alice.id, email: 'alice@a.test', name: 'Alice', role: 'owner' }]);
      const adm = await mcp.call(admin.key, 'svc_get_channel', { channelId: board });
      expect(adm.data).toEqual({ id: board, title: 'Board', is_private: true, members: [] });
    });

    it("reports a private channel the caller is not in, another team's, and an unknown id as object_not_found", async () => {
      for (const [key, id] of [
        [bob.key, secret],
        [alice.key, board],
        [admin.key, foreign],
        [outsider.key, general],
        [alice.key, 'x'.repeat(64)],
      ]) {
        const res = await mcp.call(key, 'svc_get_channel', { channelId: id });
        expect(res.isError).toBe(true);
        expect(res.data.error.code).toBe('object_not_found');
        expect(res.text).not.toMatch(/select|stack|\bat \w+ \(/i);
      }
    });

    it('checks channelId: required, 1 to 64 characters', async () => {
      const missing = await mcp.call(alice.key, 'svc_get_channel', {});
      expect(missing.data.error).toMatchObject({ code: 'args_required', field: 'channelId' });
      const emptyId = await mcp.call(alice.key, 'svc_get_channel', { channelId: '' });
      expect(emptyId.data.error).toMatchObject({ code: 'invalid_arguments', field: 'channelId' });
      const long = await mcp.call(alice.key, 'svc_get_channel', { channelId: 'x'.repeat(65) });
      expect(long.data.error).toMatchObject({
        code: 'invalid_arguments',
        field: 'channelId',
        rule: 'at most 64 characters',
      });
      // The code for a wrong type is the server's (server.ts); the field is named either way.
      const wrongType = await mcp.call(alice.key, 'svc_get_channel', { channelId: 42 });
      expect(wrongType.isError).toBe(true);
      expect(wrongType.data.error.field).toBe('channelId');
    });
  });

  it('lists both tools as read-only', async () => {
    const c = await mcp.client(alice.key);
    const tools = (await c.listTools()).tools.filter(
      (x) => x.name === 'svc_list_channels' || x.name === 'svc_get_channel',
    );
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true });
  });
});
