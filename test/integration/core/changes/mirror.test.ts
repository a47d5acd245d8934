/**
 * Changes since a cursor, as an application keeping a copy uses them: it follows svc_get_changes
 * (through the SDK's MCP client) from no cursor to the end, through a random sequence of uploads,
 * renames, speaker names, re-summaries, privacy changes, channel moves, shares, deletions and
 * retention, and across a restart of the mcp role, re-reading content only where a change says so.
 * At every check its copy is exactly what the caller can read; another team's meetings never appear;
 * a transaction held open while later ones commit is never skipped.
 */
import type { Knex } from 'knex';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { McpHarness, startMcp } from '../../../support/mcp';
import { testConfig } from '../../../support/config';
import { settled } from '../../../support/changes';
import { visibleToSql, type Principal } from '../../../../services/core/access';
import {
  correctSentence,
  deleteMeeting,
  getSummary,
  getTranscript,
  moveMeetings,
  PRIVACIES,
  renameSpeaker,
  revokeMeetingAccess,
  shareMeeting,
  updateMeetingPrivacy,
  updateMeetingTitle,
} from '../../../../services/core/meetings';
import { deleteExpiredMeetings, setTeamRetention } from '../../../../services/core/retention';

interface Copy {
  title: string;
  status: string;
  privacy: string;
  channel_id: string | null;
  organizer_email: string;
  speakers: string;
  /** The transcript's words, in order. */
  words: string;
  summary: string | null;
}

/** A small deterministic generator, so a failing sequence can be run again. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const config = testConfig();

/** The application: a cursor, a copy, and every meeting id it was ever told about. */
class Mirror {
  cursor: string | undefined;
  readonly copy = new Map<string, Copy>();
  readonly seen = new Set<string>();
  pages = 0;

  constructor(
    private readonly db: Knex,
    private readonly reader: TestUser,
  ) {}

  /** Follow the cursor to the end, `limit` changes a page. */
  async sync(mcp: McpHarness, limit: number): Promise<void> {
    for (;;) {
      const res = await mcp.call(this.reader.key, 'svc_get_changes', {
        format: 'json',
        limit,
        ...(this.cursor ? { cursor: this.cursor } : {}),
      });
      expect(res.isError).toBe(false);
      this.pages++;
      for (const c of res.data.changes) await this.apply(c);
      this.cursor = res.data.next_cursor;
      if (!res.data.has_more) return;
    }
  }

  private async apply(c: Record<string, any>): Promise<void> {
    this.seen.add(c.meeting_id);
    if (c.removed) {
      expect(c).toMatchObject({ title: null, status: null, privacy: null, organizer_email: null });
      this.copy.delete(c.meeting_id);
      return;
    }
    const kinds: string[] = c.changed.split(',');
    const had = this.copy.get(c.meeting_id);
    const content = !had || kinds.some((k) => ['created', 'transcript', 'speakers', 'summary'].includes(k));
    this.copy.set(c.meeting_id, {
      title: c.title,
      status: c.status,
      privacy: c.privacy,
      channel_id: c.channel_id,
      organizer_email: c.organizer_email,
      speakers: content ? await speakersOf(this.db, this.reader.principal, c.meeting_id) : had!.speakers,
      words: content ? await wordsOf(this.db, this.reader.principal, c.meeting_id) : had!.words,
      summary: content ? await summaryOf(this.db, this.reader.principal, c.meeting_id) : had!.summary,
    });
  }
}

async function speakersOf(db: Knex, p: Principal, id: string): Promise<string> {
  const t = await getTranscript(db, config, p, id);
  return [...new Set(t.sentences.map((s) => s.speaker_name))].sort().join('|');
}

async function wordsOf(db: Knex, p: Principal, id: string): Promise<string> {
  return (await getTranscript(db, config, p, id)).sentences.map((s) => s.text).join('|');
}

async function summaryOf(db: Knex, p: Principal, id: string): Promise<string | null> {
  const s = await getSummary(db, config, p, id);
  return s.summary_status === 'processed' ? s.short_summary : null;
}

/** What the caller can read now, by the meeting list's own rule. */
async function truth(db: Knex, p: Principal): Promise<Map<string, Copy>> {
  const vis = visibleToSql(p, 'm');
  const rows = await db('meetings as m')
    .where('m.team_id', p.teamId)
    .whereRaw(vis.sql, vis.bindings)
    .select('m.id', 'm.title', 'm.status', 'm.privacy', 'm.channel_id', 'm.organizer_email');
  const out = new Map<string, Copy>();
  for (const r of rows) {
    const speakers = (await db('sentences').where('meeting_id', r.id).distinct('speaker_name'))
      .map((s) => s.speaker_name)
      .sort()
      .join('|');
    const words = (await db('sentences').where('meeting_id', r.id).orderBy('idx').pluck('text')).join('|');
    const s = await db('summaries').where('meeting_id', r.id).first('short_summary');
    const { id, ...rest } = r;
    out.set(id, { ...rest, speakers, words, summary: s?.short_summary ?? null });
  }
  return out;
}

describe('following changes keeps an exact copy', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let ana: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let channels: string[];
  const outsiderMeetings = new Set<string>();

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    ana = await makeUser(t.db, team);
    bob = await makeUser(t.db, team);
    outsider = await makeUser(t.db, other);
    channels = [
      (await makeChannel(t.db, team.id, 'Sales', [ana])).id,
      (await makeChannel(t.db, team.id, 'Board', [bob], true)).id,
    ];
    mcp = await startMcp(t.db);
  });

  afterAll(async () => {
    await mcp?.close();
    await t?.drop();
  });

  it('through a random sequence of writes and a restart of the mcp role, for a member and an admin', async () => {
    const rnd = prng(43);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const members = new Mirror(t.db, ana);
    const admins = new Mirror(t.db, admin);
    const meetings: string[] = [];
    const alive = async () =>
      (await t.db('meetings').whereIn('id', meetings).select('id', 'status')).filter((m) => m.status === 'completed');
    let n = 0;

    const ops: Record<string, () => Promise<unknown>> = {
      upload: async () => {
        const organizer = pick([admin, ana, bob]);
        const { id } = await makeMeeting(t.db, {
          organizer,
          title: `Meeting ${++n}`,
          privacy: pick(PRIVACIES),
          channelId: rnd() < 0.4 ? pick(channels) : null,
          date: rnd() < 0.2 ? '2020-01-06T10:00:00Z' : '2026-11-02T15:00:00Z',
          sentences: [
            { speaker: organizer.name, text: 'Let us start with the numbers.', start: 0, end: 3 },
            { speaker: `Guest ${n}`, text: 'The numbers look good this quarter.', start: 3, end: 6 },
          ],
          summary: { short_summary: `Summary ${n}` },
        });
        meetings.push(id);
      },
      rename: async () => {
        const m = pick(await alive());
        if (m) await updateMeetingTitle(t.db, admin.principal, { meetingId: m.id, title: `Renamed ${++n}` });
      },
      speaker: async () => {
        const m = pick(await alive());
        if (!m) return;
        const names = (await t.db('sentences').where('meeting_id', m.id).distinct('speaker_name')).map(
          (r) => r.speaker_name,
        );
        await renameSpeaker(t.db, admin.principal, { meetingId: m.id, from: pick(names), to: `Person ${++n}` });
      },
      correction: async () => {
        const m = pick(await alive());
        const fix = { meetingId: m?.id ?? '', index: 1, text: `Corrected ${++n}.` };
        if (m) await correctSentence({ db: t.db, config }, admin.principal, fix);
      },
      resummary: async () => {
        const m = pick(await alive());
        // As the summarize activity writes a summary made again.
        if (m)
          await t
            .db('summaries')
            .where('meeting_id', m.id)
            .update({ short_summary: `Resummary ${++n}` });
      },
      privacy: async () => {
        const m = pick(await alive());
        if (m) await updateMeetingPrivacy(t.db, admin.principal, { meetingId: m.id, privacy: pick(PRIVACIES) });
      },
      move: async () => {
        const m = pick(await alive());
        if (m) await moveMeetings(t.db, admin.principal, { meetingIds: [m.id], channelId: pick(channels) });
      },
      share: async () => {
        const m = pick(await alive());
        if (m) await shareMeeting(t.db, admin.principal, { meetingId: m.id, emails: [ana.email] });
      },
      unshare: async () => {
        const m = pick(await alive());
        if (m) await revokeMeetingAccess(t.db, admin.principal, { meetingId: m.id, email: ana.email });
      },
      membership: async () => {
        // Ana joins or leaves the private channel: its meetings open or close to her.
        const board = channels[1];
        const member = await t.db('channel_members').where({ channel_id: board, user_id: ana.id }).first();
        if (member) await t.db('channel_members').where({ channel_id: board, user_id: ana.id }).delete();
        else await t.db('channel_members').insert({ channel_id: board, user_id: ana.id });
      },
      delete: async () => {
        const m = pick(await alive());
        if (m) await deleteMeeting(t.db, admin.principal, m.id);
      },
      retention: async () => {
        await setTeamRetention(t.db, admin.principal, 365);
        await deleteExpiredMeetings(t.db, new Date(), 100);
        await setTeamRetention(t.db, admin.principal, null);
      },
      otherTeam: async () => {
        const { id } = await makeMeeting(t.db, { organizer: outsider, title: `Theirs ${++n}`, privacy: 'link' });
        outsiderMeetings.add(id);
        await updateMeetingTitle(t.db, outsider.principal, { meetingId: id, title: `Theirs renamed ${n}` });
      },
    };
    const names = Object.keys(ops);

    for (let i = 0; i < 6; i++) await ops.upload();
    for (let step = 0; step < 90; step++) {
      await ops[step % 4 === 0 ? 'upload' : pick(names)]();
      if (rnd() < 0.25) await members.sync(mcp, 1 + Math.floor(rnd() * 7));
      if (rnd() < 0.15) await admins.sync(mcp, 1 + Math.floor(rnd() * 7));
      if (step === 45) {
        // A restart of the role: the applications keep only their cursors.
        await mcp.close();
        mcp = await startMcp(t.db);
      }
    }
    await settled(t.db);
    await members.sync(mcp, 5);
    await admins.sync(mcp, 50);

    const expected = await truth(t.db, ana.principal);
    expect(new Map([...members.copy].sort())).toEqual(new Map([...expected].sort()));
    expect(new Map([...admins.copy].sort())).toEqual(new Map([...(await truth(t.db, admin.principal))].sort()));
    // The sequence did what it is meant to: removals and a copy neither empty nor everything.
    expect(expected.size).toBeGreaterThan(3);
    expect(admins.copy.size).toBeGreaterThan(expected.size);
    const tombstones = async (reason: string) =>
      Number((await t.db('meeting_changes').where('reason', reason).count({ n: '*' }))[0].n);
    expect(await tombstones('deleted')).toBeGreaterThan(0);
    expect(await tombstones('expired')).toBeGreaterThan(0);
    expect(members.pages).toBeGreaterThan(10);
    for (const id of outsiderMeetings) {
      expect(members.seen.has(id)).toBe(false);
      expect(admins.seen.has(id)).toBe(false);
    }
  });

  it('never skips a transaction held open while later ones commit', async () => {
    const mirror = new Mirror(t.db, admin);
    const first = (await makeMeeting(t.db, { organizer: admin, title: 'Held open' })).id;
    const second = (await makeMeeting(t.db, { organizer: admin, title: 'Committed first' })).id;
    await settled(t.db);
    await mirror.sync(mcp, 100);
    expect(mirror.copy.get(first)?.title).toBe('Held open');

    // The held transaction writes (and takes its transaction id) before the other one starts.
    const held = await t.db.transaction();
    try {
      await held('meetings').where('id', first).update({ title: 'Held, then committed' });
      await updateMeetingTitle(t.db, admin.principal, { meetingId: second, title: 'Committed while held' });
      await mirror.sync(mcp, 100);
      // The later commit waits behind the open transaction rather than passing it.
      expect(mirror.copy.get(second)?.title).toBe('Committed first');
      await held.commit();
    } finally {
      if (!held.isCompleted()) await held.rollback();
    }
    await settled(t.db);
    await mirror.sync(mcp, 100);
    expect(mirror.copy.get(first)?.title).toBe('Held, then committed');
    expect(mirror.copy.get(second)?.title).toBe('Committed while held');
  });

  it('stays exact with writes racing the reads', async () => {
    const mirror = new Mirror(t.db, admin);
    await mirror.sync(mcp, 100);
    const ids = (await t.db('meetings').where('team_id', admin.teamId).where('status', 'completed').limit(8)).map(
      (m) => m.id,
    );
    let writing = true;
    const writers = Promise.all(
      ids.map(async (id, w) => {
        for (let i = 0; i < 6; i++) {
          await t.db.transaction(async (trx) => {
            await trx('meetings')
              .where('id', id)
              .update({ title: `Race ${w}.${i}` });
            // Commits land in a different order than the transactions took their ids.
            await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20)));
          });
        }
      }),
    ).finally(() => (writing = false));
    while (writing) await mirror.sync(mcp, 3);
    await writers;
    await settled(t.db);
    await mirror.sync(mcp, 3);
    expect(new Map([...mirror.copy].sort())).toEqual(new Map([...(await truth(t.db, admin.principal))].sort()));
    for (const [w, id] of ids.entries()) expect(mirror.copy.get(id)?.title).toBe(`Race ${w}.5`);
  });
});
