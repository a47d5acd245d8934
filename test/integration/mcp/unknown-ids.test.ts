/**
 * An id the caller cannot see answers object_not_found in every tool, the two lists filtered by a
 * meeting included: svc_get_soundbites with transcript_id, svc_get_rule_executions and svc_get_action_items with meetingId.
 * An unknown id and another team's id answer alike (nothing tells them apart).
 */
import { newId } from '../../../services/core/input';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

describe('unknown or invisible meeting ids in the meeting-filtered lists', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let member: TestUser;
  let foreign: TestUser;
  let ours: string;
  let ownerOnly: string;
  let theirs: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    const other = await makeTeam(t.db, { tier: 'enterprise' });
    admin = await makeUser(t.db, team, { role: 'admin' });
    member = await makeUser(t.db, team);
    foreign = await makeUser(t.db, other, { role: 'super_admin' });
    ours = (await makeMeeting(t.db, { organizer: admin, title: 'Ours', privacy: 'teammates' })).id;
    ownerOnly = (await makeMeeting(t.db, { organizer: admin, title: 'Owner only', privacy: 'owner' })).id;
    theirs = (await makeMeeting(t.db, { organizer: foreign, title: 'Theirs', privacy: 'teammates' })).id;
    for (const [m, u] of [
      [ours, admin],
      [theirs, foreign],
    ] as const) {
      await t.db('soundbites').insert({
        id: newId(),
        meeting_id: m,
        team_id: u.teamId,
        owner_id: u.id,
        name: 'Clip',
        start_time: 0,
        end_time: 2,
        privacies: ['team'],
      });
      const id = newId();
      await t.db('rule_executions').insert({
        id,
        team_id: u.teamId,
        rule_id: 'r1',
        rule_name: 'R1',
        meeting_id: m,
        run_key: `run-${id}`,
        status: 'success',
        actions: JSON.stringify([]),
        dry_run: false,
        executed_at: new Date(),
      });
    }
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const CASES = [
    ['svc_get_soundbites', 'transcript_id'],
    ['svc_get_rule_executions', 'meetingId'],
    ['svc_get_action_items', 'meetingId'],
  ] as const;

  it.each(CASES)("%s: an unknown %s and another team's meeting answer object_not_found", async (tool, param) => {
    for (const id of ['no-such-meeting', newId(), theirs]) {
      const res = await mcp.call(admin.key, tool, { [param]: id });
      expect([id, res.isError, res.data?.error?.code]).toEqual([id, true, 'object_not_found']);
      expect(res.data.error.message).toContain(id);
    }
  });

  it.each(CASES)(
    "%s: a meeting of the caller's team that the caller may not read is object_not_found; a visible one lists",
    async (tool, param) => {
      expect((await mcp.call(member.key, tool, { [param]: ownerOnly })).data.error.code).toBe('object_not_found');
      const ok = await mcp.call(admin.key, tool, {
        [param]: ours,
        format: tool === 'svc_get_soundbites' ? 'json' : undefined,
      });
      expect(ok.isError).toBe(false);
      // A visible meeting with nothing to list is an empty list, not an error.
      const empty = await mcp.call(admin.key, tool, { [param]: ownerOnly });
      expect(empty.isError).toBe(false);
    },
  );
});
