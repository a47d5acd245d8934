/**
 * Tool annotations are true to what each tool does (clients decide from them what needs the user's
 * confirmation). Every listed tool is in the table below, so a new tool must state its hints here.
 */
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const READ = { readOnlyHint: true, openWorldHint: false };
/** Write tools: readOnly false and all three hints stated. */
const WRITE: Record<string, { destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }> = {
  // Sharing again replaces an existing share's expiry: an open-ended share can be made to end.
  svc_share_meeting: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  svc_revoke_meeting_access: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  svc_update_meeting_title: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  svc_update_meeting_privacy: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  svc_move_meeting: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Writes the notes again; what a person changed stays, and asking while one runs joins it.
  svc_resummarize_meeting: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // Replaces a speaker's name; the same call again finds the old name gone and is refused.
  svc_rename_speaker: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // Replaces a sentence's text; the same text again changes nothing.
  svc_correct_sentence: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Only adds a soundbite; each call adds another.
  svc_create_soundbite: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // Reopening, reassigning or clearing a due date changes what exists; the same call again changes nothing more.
  svc_update_action_item: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Turning voiceprints off deletes every profile; setting the state the team has changes nothing.
  svc_set_voiceprints: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // A merge deletes the profile merged away; the same call again finds it gone.
  svc_merge_speaker_profiles: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // Deletes a profile and its voices; the same call again finds it gone.
  svc_forget_speaker_profile: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
};
const READ_TOOLS = [
  'svc_search',
  'svc_get_transcripts',
  'svc_get_transcript',
  'svc_fetch',
  'svc_get_summary',
  'svc_get_active_meetings',
  'svc_get_analytics',
  'svc_list_channels',
  'svc_get_channel',
  'svc_get_soundbites',
  'svc_get_user',
  'svc_get_usergroups',
  'svc_get_user_contacts',
  'svc_get_rule_executions',
  'svc_get_action_items',
  'svc_get_changes',
  'svc_list_speaker_profiles',
];

describe('tool annotations', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', flags: ['search', 'fetch'] });
    admin = await makeUser(t.db, team, { role: 'admin' });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it('every listed tool is classified, and its annotations are exactly those of the table', async () => {
    const { tools } = await (await mcp.client(admin.key)).listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...READ_TOOLS, ...Object.keys(WRITE)].sort());
    for (const tool of tools) {
      const { title, ...hints } = tool.annotations ?? {};
      expect(title).toBe(tool.title);
      const expected = WRITE[tool.name] ? { readOnlyHint: false, ...WRITE[tool.name] } : READ;
      expect([tool.name, hints]).toEqual([tool.name, expected]);
    }
  });

  it('svc_share_meeting is destructive: sharing again with expiryDays makes an open-ended share end', async () => {
    const m = await makeMeeting(t.db, { organizer: admin, title: 'Shared' });
    const first = await mcp.call(admin.key, 'svc_share_meeting', { meetingId: m.id, emails: ['guest@ext.test'] });
    expect(first.data.shares).toEqual([
      expect.objectContaining({ email: 'guest@ext.test', expires_at: null, change: 'added' }),
    ]);
    const again = await mcp.call(admin.key, 'svc_share_meeting', {
      meetingId: m.id,
      emails: ['guest@ext.test'],
      expiryDays: 7,
    });
    expect(again.data.shares[0]).toMatchObject({ email: 'guest@ext.test', change: 'updated' });
    expect(again.data.shares[0].expires_at).not.toBeNull();
    const [row] = await t.db('meeting_shares').where({ meeting_id: m.id, email: 'guest@ext.test' });
    expect(row.expires_at).not.toBeNull();
  });
});
