/**
 * The permission matrix: every role × every relation to a meeting × every meeting-scoped tool, for a
 * meeting open to its participants and for an owner-only one. The expected outcome of each cell is
 * written out below, derived from the rules in services/core/access/rules.ts:
 *   - read: visible (never across teams except by an active share; admins see the whole team; the
 *     organizer always; `participants` opens to participants; channel members unless `owner`);
 *     otherwise object_not_found.
 *   - manage (share, revoke, rename, privacy, move, summarize again): organizer or team admin; visible but not
 *     manageable is forbidden, not visible is object_not_found.
 *   - clip (create a soundbite): visible and writable (manager, participant, channel member);
 *     visible but not writable is forbidden, not visible is object_not_found.
 *   - list (svc_get_transcripts): the meeting is listed exactly when it is visible.
 *   - clips (svc_get_soundbites with transcript_id): the organizer's clip, shared with
 *     `participants`, is listed to whoever can read the meeting and to its participants of the same
 *     team
 *     (access.soundbiteVisibleTo); when the caller sees neither the meeting nor a clip of it,
 *     object_not_found, as for every other tool.
 * A refused change must change nothing; an allowed one must take effect.
 */
import { newId } from '../../../services/core/input';
import { makeChannel, makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { recordingWorkflows } from '../../support/workflow-port';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

type Role = 'member' | 'admin' | 'super_admin' | 'other_admin';
type Relation = 'owner' | 'participant' | 'shared' | 'channel' | 'none';
type Column = 'read' | 'list' | 'clips' | 'manage' | 'clip';
type Outcome = 'ok' | 'object_not_found' | 'forbidden' | 'listed' | 'absent';

const CODES: Record<string, Outcome> = {
  ok: 'ok',
  NF: 'object_not_found',
  FB: 'forbidden',
  listed: 'listed',
  absent: 'absent',
};
const COLUMNS: Column[] = ['read', 'list', 'clips', 'manage', 'clip'];

interface Row {
  role: Role;
  relation: Relation;
  expected: Record<Column, Outcome>;
}

/** Whitespace-separated rows: role relation read list clips manage clip; `-` marks a cell that cannot exist. */
function table(src: string): Row[] {
  return src
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells[2] !== '-')
    .map(([role, relation, ...outcomes]) => {
      if (outcomes.length !== COLUMNS.length || outcomes.some((o) => !(o in CODES)))
        throw new Error(`bad matrix row: ${role} ${relation}`);
      return {
        role: role as Role,
        relation: relation as Relation,
        expected: Object.fromEntries(COLUMNS.map((c, i) => [c, CODES[outcomes[i]]])) as Record<Column, Outcome>,
      };
    });
}

// prettier-ignore
const MATRIX: Record<'participants' | 'owner', Row[]> = {
  /* Meeting privacy `participants`. */
  participants: table(`
    member       owner         ok   listed  listed  ok  ok
    member       participant   ok   listed  listed  FB  ok
    member       shared        ok   listed  listed  FB  FB
    member       channel       ok   listed  listed  FB  ok
    member       none          NF   absent  NF      NF  NF
    admin        owner         ok   listed  listed  ok  ok
    admin        participant   ok   listed  listed  ok  ok
    admin        shared        ok   listed  listed  ok  ok
    admin        channel       ok   listed  listed  ok  ok
    admin        none          ok   listed  listed  ok  ok
    super_admin  owner         ok   listed  listed  ok  ok
    super_admin  participant   ok   listed  listed  ok  ok
    super_admin  shared        ok   listed  listed  ok  ok
    super_admin  channel       ok   listed  listed  ok  ok
    super_admin  none          ok   listed  listed  ok  ok
    other_admin  owner         -
    other_admin  participant   NF   absent  NF      NF  NF
    other_admin  shared        ok   listed  listed  FB  FB
    other_admin  channel       NF   absent  NF      NF  NF
    other_admin  none          NF   absent  NF      NF  NF
  `),
  /* Meeting privacy `owner`: only the organizer, admins and explicit shares read it. */
  owner: table(`
    member       owner         ok   listed  listed  ok  ok
    member       participant   NF   absent  listed  NF  NF
    member       shared        ok   listed  listed  FB  FB
    member       channel       NF   absent  NF      NF  NF
    member       none          NF   absent  NF      NF  NF
    admin        owner         ok   listed  listed  ok  ok
    admin        participant   ok   listed  listed  ok  ok
    admin        shared        ok   listed  listed  ok  ok
    admin        channel       ok   listed  listed  ok  ok
    admin        none          ok   listed  listed  ok  ok
    super_admin  owner         ok   listed  listed  ok  ok
    super_admin  participant   ok   listed  listed  ok  ok
    super_admin  shared        ok   listed  listed  ok  ok
    super_admin  channel       ok   listed  listed  ok  ok
    super_admin  none          ok   listed  listed  ok  ok
    other_admin  owner         -
    other_admin  participant   NF   absent  NF      NF  NF
    other_admin  shared        ok   listed  listed  FB  FB
    other_admin  channel       NF   absent  NF      NF  NF
    other_admin  none          NF   absent  NF      NF  NF
  `),
};

const GUEST = 'guest@ext.test';
const NEW_TITLE = 'Renamed by the matrix';

interface Cell {
  meetingId: string;
  date: string;
  caller: TestUser;
}

describe('permission matrix of the meeting-scoped tools', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  const workflows = recordingWorkflows();
  let users: Record<Role, TestUser>;
  let organizer: TestUser;
  let room: string;
  let target: string;
  let theirTarget: string;
  let day = 0;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', flags: ['search', 'fetch'] });
    const other = await makeTeam(t.db, { tier: 'enterprise', flags: ['search', 'fetch'] });
    organizer = await makeUser(t.db, team, { email: 'organizer@a.test' });
    users = {
      member: await makeUser(t.db, team, { email: 'member@a.test' }),
      admin: await makeUser(t.db, team, { role: 'admin', email: 'admin@a.test' }),
      super_admin: await makeUser(t.db, team, { role: 'super_admin', email: 'super@a.test' }),
      other_admin: await makeUser(t.db, other, { role: 'admin', email: 'admin@b.test' }),
    };
    // Every caller is in the room; a channel of one team never opens its meetings to another team.
    room = (await makeChannel(t.db, team.id, 'Room', Object.values(users))).id;
    target = (await makeChannel(t.db, team.id, 'Target', [])).id;
    theirTarget = (await makeChannel(t.db, other.id, 'Their target', [])).id;
    mcp = await startMcp(t.db, {}, { workflows });
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  /** A fresh meeting in the given relation to the caller, on a day of its own, with the organizer's clip. */
  async function cell(role: Role, relation: Relation, privacy: string): Promise<Cell> {
    const caller = users[role];
    const date = new Date(Date.UTC(2020, 0, 1 + day++)).toISOString().slice(0, 10);
    const owner = relation === 'owner' ? caller : organizer;
    const m = await makeMeeting(t.db, {
      organizer: owner,
      title: 'Matrix meeting',
      date: `${date}T10:00:00Z`,
      privacy,
      channelId: relation === 'channel' ? room : null,
      participants: relation === 'participant' ? [{ email: caller.email }] : [],
      summary: {},
    });
    if (relation === 'shared') await shareMeeting(t.db, m.id, caller.email);
    await shareMeeting(t.db, m.id, GUEST); // something for revoke to take back
    await t.db('soundbites').insert({
      id: newId(),
      meeting_id: m.id,
      team_id: owner.teamId,
      owner_id: owner.id,
      name: 'Clip',
      start_time: 0,
      end_time: 2,
      privacies: ['participants'],
    });
    return { meetingId: m.id, date, caller };
  }

  const snapshot = async (id: string) => ({
    meeting: await t.db('meetings').where({ id }).first('title', 'privacy', 'channel_id'),
    shares: await t.db('meeting_shares').where({ meeting_id: id }).orderBy('id').select('email', 'revoked_at'),
    soundbites: Number((await t.db('soundbites').where({ meeting_id: id }).count({ n: '*' }))[0].n),
    speakers: (await t.db('sentences').where({ meeting_id: id }).distinct('speaker_name')).map(
      (r) => r.speaker_name as string,
    ),
    firstSentence: (await t.db('sentences').where({ meeting_id: id, idx: 0 }).first('text'))?.text as string,
  });

  interface ToolCase {
    column: Column;
    args(c: Cell): Record<string, unknown>;
    /** For listings: whether the meeting's item is in the answer. */
    listed?(data: any, c: Cell): boolean;
    /** For changes: whether the change took effect, from the before and after snapshots. */
    applied?(
      before: Awaited<ReturnType<typeof snapshot>>,
      after: Awaited<ReturnType<typeof snapshot>>,
      c: Cell,
    ): boolean;
  }

  const TOOLS: Record<string, ToolCase> = {
    svc_get_transcript: { column: 'read', args: (c) => ({ transcriptId: c.meetingId }) },
    svc_get_summary: { column: 'read', args: (c) => ({ transcriptId: c.meetingId }) },
    svc_fetch: { column: 'read', args: (c) => ({ id: c.meetingId }) },
    svc_get_transcripts: {
      column: 'list',
      args: (c) => ({ fromDate: c.date, toDate: c.date, limit: 50, format: 'json' }),
      listed: (d, c) => d.meetings.some((m: { id: string }) => m.id === c.meetingId),
    },
    svc_get_soundbites: {
      column: 'clips',
      args: (c) => ({ transcript_id: c.meetingId, format: 'json' }),
      listed: (d, c) => d.soundbites.some((s: { transcript_id: string }) => s.transcript_id === c.meetingId),
    },
    svc_share_meeting: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, emails: ['new.guest@ext.test'] }),
      applied: (b, a) => a.shares.length === b.shares.length + 1,
    },
    svc_revoke_meeting_access: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, email: GUEST }),
      applied: (b, a) =>
        a.shares.some((s: { email: string; revoked_at: Date | null }) => s.email === GUEST && s.revoked_at !== null),
    },
    svc_update_meeting_title: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, title: NEW_TITLE }),
      applied: (_b, a) => a.meeting.title === NEW_TITLE,
    },
    svc_rename_speaker: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, from: 'Guest', to: 'Priya Shah' }),
      applied: (_b, a) => a.speakers.includes('Priya Shah'),
    },
    svc_correct_sentence: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, index: 0, text: 'Corrected by the caller.' }),
      applied: (_b, a) => a.firstSentence === 'Corrected by the caller.',
    },
    svc_update_meeting_privacy: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId, privacy: 'link' }),
      applied: (_b, a) => a.meeting.privacy === 'link',
    },
    svc_move_meeting: {
      column: 'manage',
      // Each caller moves into a channel of their own team, so only the meeting rule can refuse.
      args: (c) => ({
        meetingIds: [c.meetingId],
        channelId: c.caller.teamId === users.other_admin.teamId ? theirTarget : target,
      }),
      applied: (b, a) => a.meeting.channel_id !== b.meeting.channel_id,
    },
    svc_resummarize_meeting: {
      column: 'manage',
      args: (c) => ({ meetingId: c.meetingId }),
      applied: (_b, _a, c) => workflows.resummaries.some((r) => r.meetingId === c.meetingId),
    },
    svc_create_soundbite: {
      column: 'clip',
      args: (c) => ({ transcriptId: c.meetingId, startTime: 0, endTime: 2, name: 'Matrix clip' }),
      applied: (b, a) => a.soundbites === b.soundbites + 1,
    },
  };

  for (const [privacy, rows] of Object.entries(MATRIX)) {
    describe(`privacy ${privacy}`, () => {
      it.each(rows.map((r) => [r.role, r.relation, r] as const))('%s, %s', async (_role, _relation, row) => {
        const expected: Record<string, Outcome> = {};
        const actual: Record<string, Outcome | string> = {};
        const effects: string[] = [];
        for (const [tool, tc] of Object.entries(TOOLS)) {
          // A fresh meeting per tool, so one change never colours the next tool's cell.
          const c = await cell(row.role, row.relation, privacy);
          const before = await snapshot(c.meetingId);
          const res = await mcp.call(c.caller.key, tool, tc.args(c));
          expected[tool] = row.expected[tc.column];
          if (res.isError) actual[tool] = res.data?.error?.code ?? `unreadable error: ${res.text}`;
          else actual[tool] = tc.listed ? (tc.listed(res.data, c) ? 'listed' : 'absent') : 'ok';
          if (tc.applied) {
            const applied = tc.applied(before, await snapshot(c.meetingId), c);
            if (applied !== (actual[tool] === 'ok'))
              effects.push(`${tool}: answered ${actual[tool]} but the change ${applied ? 'was' : 'was not'} applied`);
          }
          expect(res.text).not.toMatch(/\bselect\b.*\bfrom\b|\n\s+at .+:\d+:\d+/i);
        }
        expect(actual).toEqual(expected);
        expect(effects).toEqual([]);
      });
    });
  }

  it('covers every meeting-scoped tool, each listed under the same name by the server', async () => {
    const c = await mcp.client(users.admin.key);
    const names = (await c.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(Object.keys(TOOLS)));
    expect(Object.values(MATRIX).flat()).toHaveLength(38);
  });
});
