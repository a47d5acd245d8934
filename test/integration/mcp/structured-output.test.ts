/**
 * Structured tool output: every tool lists an outputSchema and answers structuredContent beside its
 * text. Every tool is called through the SDK's own client, which validates structuredContent against
 * the listed outputSchema (a mismatch is an McpError there), and structuredContent is the JSON form
 * of the answer: what format json answers, or what the TOON text decodes to. The listed schema names
 * the top-level fields; every answer is also checked against the tool's whole shape, nested records
 * included, so a record that drifts from it fails here.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { decode } from '@toon-format/toon';
import { countTokens } from 'gpt-tokenizer';
import { TRANSCRIPT_TOKENS } from '../../../services/core/meetings';
import { newId } from '../../../services/core/input';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { fullOutputSchema } from '../../../services/mcp/schema';
import { ALL_TOOLS } from '../../../services/mcp/tools';
import { McpHarness, startMcp } from '../../support/mcp';
import { recordingWorkflows } from '../../support/workflow-port';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { reportTiming } from '../../support/timings';

describe('structured tool output', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let member: TestUser;
  let meetingId: string;
  let emptyMeeting: string;
  let channelId: string;
  let calls: Record<string, Record<string, unknown>[]>;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', flags: ['search', 'fetch'] });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    member = await makeUser(t.db, team, { name: 'Max' });
    channelId = (await makeChannel(t.db, team.id, 'Sales', [admin, member])).id;
    meetingId = (
      await makeMeeting(t.db, {
        organizer: admin,
        title: 'Roadmap review',
        participants: [
          { email: member.email, name: 'Max' },
          { email: 'guest@ext.test', name: 'Gina' },
        ],
        summary: { keywords: ['roadmap', 'budget'], action_items: ['Ada sends the plan'] },
      })
    ).id;
    emptyMeeting = (
      await makeMeeting(t.db, { organizer: admin, title: 'Processing', status: 'processing', sentences: [] })
    ).id;
    await makeMeeting(t.db, { organizer: admin, title: 'Live standup', isLive: true, liveState: 'active' });
    const group = newId();
    await t.db('user_groups').insert({ id: group, team_id: team.id, name: 'Sales', handle: 'sales' });
    await t.db('user_group_members').insert({ group_id: group, user_id: member.id, role: 'member' });
    await t.db('soundbites').insert({
      id: newId(),
      meeting_id: meetingId,
      team_id: team.id,
      owner_id: admin.id,
      name: 'Clip',
      start_time: 0,
      end_time: 2,
      privacies: ['team'],
    });
    const exec = newId();
    await t.db('rule_executions').insert({
      id: exec,
      team_id: team.id,
      rule_id: 'r1',
      rule_name: 'Share',
      meeting_id: meetingId,
      run_key: `run-${exec}`,
      status: 'failed',
      actions: JSON.stringify([{ type: 'share', emails: ['a@x.test'], status: 'failed' }]),
      error: 'boom',
      dry_run: false,
      executed_at: new Date(),
    });
    const actionItem = newId();
    await t.db('action_items').insert({
      id: actionItem,
      team_id: team.id,
      meeting_id: meetingId,
      meeting_date: new Date('2026-11-02T15:00:00Z'),
      item_key: 'ada sends the plan',
      text: 'Ada sends the plan',
      sentence_index: 0,
      start_time: 0,
      owner_name: admin.name,
      owner_email: admin.email,
      due_phrase: 'Friday',
      due_date: '2026-11-06',
    });
    // Three speaker profiles: one merged into another, one forgotten.
    const profiles = [newId(), newId(), newId()];
    await t
      .db('speaker_profiles')
      .insert(profiles.map((id, i) => ({ id, team_id: team.id, name: `Person ${i}`, embedding: [1, i], voices: 1 })));
    calls = {
      svc_search: [{ query: 'roadmap' }, { query: 'nothing-matches-this' }],
      svc_get_transcripts: [{}, { keyword: 'roadmap', limit: 1 }],
      svc_get_transcript: [
        { transcriptId: meetingId },
        { transcriptId: emptyMeeting },
        { transcriptId: meetingId, maxTokens: 500, fromIndex: 1 },
      ],
      svc_fetch: [{ id: meetingId }, { id: emptyMeeting }],
      svc_get_summary: [{ transcriptId: meetingId }, { transcriptId: emptyMeeting }],
      svc_get_active_meetings: [{}],
      svc_get_analytics: [{}, { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z' }],
      svc_share_meeting: [
        { meetingId, emails: ['new@ext.test'], expiryDays: 7 },
        { meetingId, emails: ['new@ext.test'] },
      ],
      svc_revoke_meeting_access: [{ meetingId, email: 'new@ext.test' }],
      svc_update_meeting_title: [{ meetingId, title: 'Roadmap review (final)' }],
      svc_resummarize_meeting: [{ meetingId }],
      svc_update_meeting_privacy: [{ meetingId, privacy: 'teammates' }],
      svc_move_meeting: [{ meetingIds: [meetingId], channelId }],
      svc_rename_speaker: [{ meetingId, from: 'Guest', to: 'Gina', email: 'guest@ext.test' }],
      svc_correct_sentence: [
        { meetingId, index: 0, text: 'Welcome to the roadmap review.' },
        { meetingId, index: 0, text: 'Welcome to the roadmap review.' },
      ],
      svc_set_voiceprints: [{ enabled: true }],
      svc_list_speaker_profiles: [{}, { limit: 1 }],
      svc_merge_speaker_profiles: [{ from: profiles[0], into: profiles[1] }],
      svc_forget_speaker_profile: [{ id: profiles[2] }],
      svc_list_channels: [{}],
      svc_get_channel: [{ channelId }],
      svc_get_soundbites: [{ my_team: true }, { transcript_id: meetingId, limit: 1 }],
      svc_create_soundbite: [{ transcriptId: meetingId, startTime: 0, endTime: 3, summary: 'The start' }],
      svc_get_user: [{}, { userId: member.id }],
      svc_get_usergroups: [{}, { mine: true }],
      svc_get_user_contacts: [{}, { limit: 1 }],
      svc_get_rule_executions: [{}, { meetingId }],
      svc_get_action_items: [{}, { mine: true, status: 'open', limit: 1 }],
      svc_get_changes: [{}, { limit: 1 }],
      svc_update_action_item: [
        { id: actionItem, status: 'done' },
        { id: actionItem, dueDate: null },
      ],
    };
    mcp = await startMcp(t.db, {}, { workflows: recordingWorkflows() });
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it('every tool lists an object outputSchema', async () => {
    const { tools } = await (await mcp.client(admin.key)).listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(calls).sort());
    for (const tool of tools) {
      expect([tool.name, tool.outputSchema?.type]).toEqual([tool.name, 'object']);
    }
  });

  it('every tool answers structuredContent that the SDK client validates, equal to the JSON form of the answer, with the text as before', async () => {
    const client = await mcp.client(admin.key);
    const { tools } = await client.listTools();
    const formats = new Set(
      tools.filter((x) => (x.inputSchema.properties as Record<string, unknown> | undefined)?.format).map((x) => x.name),
    );
    const problems: string[] = [];
    const ajv = new AjvJsonSchemaValidator();
    const wholeShape = new Map(
      ALL_TOOLS.map((t) => [t.name, ajv.getValidator(fullOutputSchema(t.output ?? {}) as JsonSchemaType)]),
    );
    for (const [name, argsList] of Object.entries(calls)) {
      for (const args of argsList) {
        const label = `${name} ${JSON.stringify(args)}`;
        // callTool throws when structuredContent does not validate against the tool's outputSchema.
        const res = (await client.callTool({ name, arguments: args }).catch((e: Error) => ({ thrown: e.message }))) as {
          thrown?: string;
          isError?: boolean;
          structuredContent?: Record<string, unknown>;
          content: { type: string; text: string }[];
        };
        if (res.thrown) {
          problems.push(`${label}: ${res.thrown}`);
          continue;
        }
        if (res.isError) {
          problems.push(`${label}: error ${res.content[0].text}`);
          continue;
        }
        const text = res.content.map((c) => c.text).join('\n');
        // The text is unchanged: TOON by default, which decodes to the JSON form.
        const expected = decode(text);
        if (!res.structuredContent) problems.push(`${label}: no structuredContent`);
        else expect([label, res.structuredContent]).toEqual([label, expected]);
        const whole = wholeShape.get(name)!(res.structuredContent);
        if (!whole.valid) problems.push(`${label}: does not fit its whole shape: ${whole.errorMessage}`);
        if (formats.has(name)) {
          // Read-only listings can be asked again: the json text is the structuredContent, exactly.
          const json = (await client.callTool({ name, arguments: { ...args, format: 'json' } })) as {
            structuredContent: unknown;
            content: { text: string }[];
          };
          expect([label, JSON.parse(json.content[0].text)]).toEqual([label, json.structuredContent]);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('errors answer isError with the error in the text and no structuredContent', async () => {
    const client = await mcp.client(member.key);
    const res = (await client.callTool({ name: 'svc_get_transcript', arguments: { transcriptId: 'no-such' } })) as {
      isError: boolean;
      structuredContent?: unknown;
    };
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toBeUndefined();
  });
  it('token discipline with the data twice on the wire: on a large transcript page both the text and structuredContent alone keep the budget', async () => {
    const words = 'we should look at the pricing, the rollout plan and, after that, the budget for next quarter';
    const long = await makeMeeting(t.db, {
      organizer: admin,
      title: 'Long',
      sentences: Array.from({ length: 2000 }, (_, i) => ({
        speaker: i % 2 ? 'Ada' : 'Max',
        text: `${i}: ${words}`,
        start: i * 5,
        end: i * 5 + 4.5,
      })),
    });
    const client = await mcp.client(admin.key);
    const res = (await client.callTool({
      name: 'svc_get_transcript',
      arguments: { transcriptId: long.id, maxTokens: TRANSCRIPT_TOKENS.max },
    })) as unknown as {
      structuredContent: { has_more: boolean };
      content: { text: string }[];
    };
    const text = countTokens(res.content[0].text);
    const structured = countTokens(JSON.stringify(res.structuredContent));
    reportTiming(
      `svc_get_transcript at maxTokens ${TRANSCRIPT_TOKENS.max}: text (TOON) ${text} tokens, structuredContent (JSON) ${structured} tokens, both ${text + structured}`,
    );
    expect(res.structuredContent.has_more).toBe(true);
    expect(text).toBeLessThanOrEqual(TRANSCRIPT_TOKENS.max);
    // Pages are sized for the JSON form, which Claude Code shows the model instead of the text.
    expect(structured).toBeLessThanOrEqual(TRANSCRIPT_TOKENS.max);
    expect(structured).toBeGreaterThan(TRANSCRIPT_TOKENS.max * 0.6);
  });
});
