/**
 * The read audit: every read of a meeting's content, from every surface (MCP tools, GraphQL, the
 * meeting and soundbite pages), is one row of read_audit; a refused read is none. Team admins page
 * through it over GraphQL (every row exactly once), operators with `meeting-intel audit reads`.
 */
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { McpHarness, startMcp } from '../../../support/mcp';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { runCli } from '../../../support/cli';
import { createSoundbite } from '../../../../services/core/soundbites';
import { startSession } from '../../../../services/core/people';
import { flushReads, readContext, readingAs, recordRead, startReadAudit } from '../../../../services/core/audit';
import { registry } from '../../../../services/platform/metrics';
import { whileCapturing } from '../../../support/logs';

interface Row {
  team_id: string;
  user_id: string | null;
  meeting_id: string;
  surface: string;
}

describe('read audit', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let base: string;
  let admin: TestUser;
  let ana: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let open: { id: string };
  let secret: { id: string };
  let clips: { public: string; team: string };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    ana = await makeUser(t.db, team);
    bob = await makeUser(t.db, team);
    outsider = await makeUser(t.db, other);
    open = await makeMeeting(t.db, {
      organizer: ana,
      title: 'Budget planning',
      summary: { overview: 'Budget agreed.', keywords: ['budget'] },
    });
    secret = await makeMeeting(t.db, { organizer: ana, title: 'Salary review', privacy: 'owner' });
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
    base = mcp.url.replace(/\/mcp$/, '');
    clips = {
      public: (
        await createSoundbite(t.db, mcp.config, ana.principal, {
          transcriptId: open.id,
          startTime: 0,
          endTime: 4,
          name: 'Welcome',
          privacies: ['public'],
        })
      ).id,
      team: (
        await createSoundbite(t.db, mcp.config, ana.principal, {
          transcriptId: open.id,
          startTime: 4,
          endTime: 7,
          name: 'Budget question',
          privacies: ['team'],
        })
      ).id,
    };
  });

  afterAll(async () => {
    await mcp?.close();
    await gql?.close();
    await t?.drop();
  });

  beforeEach(async () => {
    await flushReads(t.db);
    await t.db('read_audit').delete();
  });

  async function rows(): Promise<Row[]> {
    await flushReads(t.db);
    return t.db('read_audit').orderBy('id').select('team_id', 'user_id', 'meeting_id', 'surface');
  }

  const row = (user: TestUser | null, meetingId: string, surface: string): Row => ({
    team_id: ana.teamId,
    user_id: user?.id ?? null,
    meeting_id: meetingId,
    surface,
  });

  it('MCP: svc_get_transcript, svc_get_summary, svc_fetch and svc_get_soundbites each record one row per meeting read', async () => {
    for (const [tool, args] of [
      ['svc_get_transcript', { transcriptId: open.id }],
      ['svc_get_summary', { transcriptId: open.id }],
      ['svc_fetch', { id: open.id }],
      ['svc_get_soundbites', { transcript_id: open.id }],
    ] as const) {
      const r = await mcp.call(bob.key, tool, args);
      expect(r.isError).toBe(false);
    }
    expect(await rows()).toEqual([
      row(bob, open.id, 'mcp:svc_get_transcript'),
      row(bob, open.id, 'mcp:svc_get_summary'),
      row(bob, open.id, 'mcp:svc_fetch'),
      row(bob, open.id, 'mcp:svc_get_soundbites'),
    ]);
  });

  it("MCP: a refused read (object_not_found: another's owner-only meeting, another team, no such id) records nothing", async () => {
    for (const [key, tool, args] of [
      [bob.key, 'svc_get_transcript', { transcriptId: secret.id }],
      [bob.key, 'svc_get_summary', { transcriptId: secret.id }],
      [bob.key, 'svc_fetch', { id: secret.id }],
      [outsider.key, 'svc_get_transcript', { transcriptId: open.id }],
      [outsider.key, 'svc_get_soundbites', { transcript_id: open.id }],
      [bob.key, 'svc_get_transcript', { transcriptId: 'nope' }],
    ] as const) {
      const r = await mcp.call(key, tool, args);
      expect(r.isError).toBe(true);
      expect(r.text).toContain('object_not_found');
    }
    // A list without a keyword answers no content, and records nothing.
    expect((await mcp.call(bob.key, 'svc_get_transcripts', {})).isError).toBe(false);
    expect(await rows()).toEqual([]);
  });

  it('search moments: a keyword list records one row per meeting whose moments it answers (MCP, pages); a list without moments none', async () => {
    const other = await makeMeeting(t.db, {
      organizer: ana,
      title: 'Quarterly numbers',
      sentences: [{ speaker: 'Ana', text: 'The budget grows by a tenth.', start: 0, end: 3 }],
    });
    const list = await mcp.call(bob.key, 'svc_get_transcripts', { format: 'json', keyword: 'budget' });
    const withMoments = [...new Set(list.data.moments.map((m: { meeting_id: string }) => m.meeting_id))].sort();
    expect(withMoments).toEqual([open.id, other.id].sort());
    // Title scope and moments: 0 answer no sentences.
    expect((await mcp.call(bob.key, 'svc_get_transcripts', { keyword: 'budget', scope: 'title' })).isError).toBe(false);
    expect((await mcp.call(bob.key, 'svc_get_transcripts', { keyword: 'budget', moments: 0 })).isError).toBe(false);
    // The matches of one meeting are one read of it.
    expect((await mcp.call(bob.key, 'svc_get_transcript', { transcriptId: other.id, keyword: 'budget' })).isError).toBe(
      false,
    );
    const { token } = await startSession(t.db, bob.principal, { method: 'api_key', apiKeyId: null, ttlMs: 60_000 });
    expect(
      (
        await fetch(`${base}/meetings?q=${encodeURIComponent('budget scope:sentences')}`, {
          headers: { cookie: `mi_session=${token}` },
        })
      ).status,
    ).toBe(200);
    const got = await rows();
    expect(
      got
        .filter((r) => r.surface === 'mcp:svc_get_transcripts')
        .map((r) => r.meeting_id)
        .sort(),
    ).toEqual(withMoments);
    expect(got.filter((r) => r.surface === 'mcp:svc_get_transcript')).toEqual([
      row(bob, other.id, 'mcp:svc_get_transcript'),
    ]);
    expect(
      got
        .filter((r) => r.surface === 'page:/meetings')
        .map((r) => r.meeting_id)
        .sort(),
    ).toEqual(withMoments);
    expect(got).toHaveLength(5);
    await t.db('meetings').where({ id: other.id }).delete();
  });

  it('GraphQL: transcript with its summary is one read; a refused one is none', async () => {
    const q = 'query T($id: ID!) { transcript(id: $id) { id sentences { text } summary { summary_status overview } } }';
    const ok = await gql.request(bob.key, q, { id: open.id });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.transcript.summary.overview).toBe('Budget agreed.');
    const refused = await gql.request(bob.key, q, { id: secret.id });
    expect(refused.body.errors?.[0].extensions?.code).toBe('object_not_found');
    expect(await rows()).toEqual([row(bob, open.id, 'graphql:transcript')]);
  });

  it('pages: a meeting page view and its sentence parts are one row each; the soundbite page too, anonymous for a public link; refused views none', async () => {
    const { token } = await startSession(t.db, bob.principal, { method: 'api_key', apiKeyId: null, ttlMs: 60_000 });
    const cookie = { cookie: `mi_session=${token}` };
    expect((await fetch(`${base}/meetings/${open.id}`, { headers: cookie })).status).toBe(200);
    expect((await fetch(`${base}/meetings/${open.id}/sentences?from=1`, { headers: cookie })).status).toBe(200);
    expect((await fetch(`${base}/meetings/${secret.id}`, { headers: cookie })).status).toBe(404);
    expect((await fetch(`${base}/meetings/${secret.id}/sentences`, { headers: cookie })).status).toBe(404);
    expect((await fetch(`${base}/soundbites/${clips.public}`)).status).toBe(200);
    expect((await fetch(`${base}/soundbites/${clips.team}`)).status).toBe(404);
    expect((await fetch(`${base}/soundbites/${clips.team}`, { headers: cookie })).status).toBe(200);
    // The meeting list without a keyword shows no content.
    expect((await fetch(`${base}/meetings`, { headers: cookie })).status).toBe(200);
    expect(await rows()).toEqual([
      row(bob, open.id, 'page:/meetings/:id'),
      row(bob, open.id, 'page:/meetings/:id/sentences'),
      row(null, open.id, 'page:/soundbites/:id'),
      row(bob, open.id, 'page:/soundbites/:id'),
    ]);
  });

  it('admins page through the reads over GraphQL: every row exactly once, newest first, with filters; members are refused', async () => {
    // 53 reads: 40 of ana's meeting by bob, 13 by admin, spread over two surfaces.
    for (let i = 0; i < 40; i++)
      recordRead(t.db, readingAs(bob.principal, `mcp:test-${i % 2}`), { id: open.id, teamId: ana.teamId });
    for (let i = 0; i < 13; i++)
      recordRead(t.db, readingAs(admin.principal, 'graphql:test'), { id: secret.id, teamId: ana.teamId });
    await flushReads(t.db);
    // A read of another team's meeting is that team's.
    recordRead(t.db, readingAs(outsider.principal, 'mcp:other'), { id: 'elsewhere', teamId: outsider.teamId });
    await flushReads(t.db);
    const all: number[] = (
      await t.db('read_audit').where({ team_id: ana.teamId }).orderBy('id', 'desc').pluck('id')
    ).map(Number);
    expect(all).toHaveLength(53);

    const Q = `query R($limit: Int, $cursor: String, $userId: ID, $meetingId: ID, $since: String) {
      readAudit(limit: $limit, cursor: $cursor, userId: $userId, meetingId: $meetingId, since: $since) {
        reads { id user_id user_email meeting_id surface read_at } has_more next_cursor } }`;
    const walk = async (vars: Record<string, unknown>) => {
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const res = await gql.request(admin.key, Q, { ...vars, limit: 7, cursor });
        expect(res.body.errors).toBeUndefined();
        const page = res.body.data.readAudit;
        seen.push(...page.reads.map((r: { id: string }) => Number(r.id)));
        // Reads written while paging are newer than the walk: never in the pages still to come.
        recordRead(t.db, readingAs(bob.principal, 'mcp:during'), { id: open.id, teamId: ana.teamId });
        await flushReads(t.db);
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull();
          return seen;
        }
        cursor = page.next_cursor;
      }
      throw new Error('paging did not end');
    };
    expect(await walk({})).toEqual(all);
    const byAdmin = await walk({ userId: admin.id });
    expect(byAdmin).toHaveLength(13);
    const secretReads = await walk({ meetingId: secret.id });
    expect(secretReads).toEqual(byAdmin);
    expect(await walk({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);

    const first = await gql.request(admin.key, Q, { limit: 1 });
    expect(first.body.data.readAudit.reads[0]).toMatchObject({
      user_id: bob.id,
      user_email: bob.email,
      meeting_id: open.id,
      surface: 'mcp:during',
    });

    const member = await gql.request(bob.key, Q, {});
    expect(member.body.errors?.[0].extensions?.code).toBe('require_elevated_privilege');
    const badCursor = await gql.request(admin.key, Q, { cursor: 'garbage' });
    expect(badCursor.body.errors?.[0].extensions?.code).toBe('invalid_arguments');
  });

  it("the CLI pages through a team's reads with filters", async () => {
    for (let i = 0; i < 5; i++)
      recordRead(t.db, readingAs(bob.principal, 'mcp:svc_get_transcript'), { id: open.id, teamId: ana.teamId });
    recordRead(t.db, readingAs(admin.principal, 'mcp:svc_get_summary'), { id: secret.id, teamId: ana.teamId });
    await flushReads(t.db);
    const env = { DATABASE_URL: t.url };
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const r = await runCli(
        ['audit', 'reads', '--team', ana.teamId, '--limit', '2', ...(cursor ? ['--cursor', cursor] : []), '--json'],
        env,
      );
      expect(r.code).toBe(0);
      ids.push(...r.json.reads.map((x: { id: string }) => x.id));
      if (!r.json.has_more) break;
      cursor = r.json.next_cursor;
    }
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    const byEmail = await runCli(
      ['audit', 'reads', '--team', ana.teamId, '--user', admin.email, '--since', '1h', '--json'],
      env,
    );
    expect(byEmail.json.reads.map((x: { meeting_id: string; surface: string }) => [x.meeting_id, x.surface])).toEqual([
      [secret.id, 'mcp:svc_get_summary'],
    ]);
    const human = await runCli(['audit', 'reads', '--team', ana.teamId, '--meeting', secret.id], env);
    expect(human.stdout).toContain(`${admin.email}  ${secret.id}  mcp:svc_get_summary`);
  });

  const flushFailures = async () =>
    (await registry.getSingleMetric('read_audit_flush_failures_total')!.get()).values[0]?.value ?? 0;

  /** `during` runs while the read_audit table is missing, so every write of the audit fails. */
  async function withoutAuditTable(during: () => Promise<void>): Promise<void> {
    await t.db.raw('alter table read_audit rename to read_audit_away');
    try {
      await during();
    } finally {
      await t.db.raw('alter table read_audit_away rename to read_audit');
    }
  }

  it('a failed flush never fails a read: it is logged, counted, and the rows are written by a later flush', async () => {
    const before = await flushFailures();
    const reads = startReadAudit(t.db, { enabled: true, flushIntervalMs: 50, batchRows: 500 });
    const { logs } = await whileCapturing('error', () =>
      withoutAuditTable(async () => {
        const r = await mcp.call(bob.key, 'svc_get_transcript', { transcriptId: open.id });
        expect(r.isError).toBe(false);
        await flushReads(t.db);
        expect(await flushFailures()).toBeGreaterThan(before);
      }),
    );
    const failed = logs.find('error', /^read audit flush failed$/);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({
      rows: 1,
      kept: 1,
      dropped: 0,
      err: { message: expect.stringMatching(/relation "read_audit" does not exist/) },
    });
    await reads.stop();
    expect(await rows()).toEqual([row(bob, open.id, 'mcp:svc_get_transcript')]);
  });

  it('reads past the batch size are written in full batches: one INSERT of batchRows rows each, however the reads arrive', async () => {
    // Each INSERT statement's row count, seen by a statement-level trigger.
    await t.db.raw('create table read_audit_statements (n int not null)');
    await t.db.raw(`create function count_read_audit_statement() returns trigger language plpgsql as $$
      begin insert into read_audit_statements select count(*) from inserted; return null; end $$`);
    await t.db.raw(`create trigger read_audit_statements after insert on read_audit referencing new table as inserted
      for each statement execute function count_read_audit_statement()`);
    // A long interval: only the batch size makes a write until the flush at the end.
    const reads = startReadAudit(t.db, { enabled: true, flushIntervalMs: 60_000, batchRows: 25 });
    try {
      // Ten lists of ten meetings, as a keyword list with moments records them, a few milliseconds
      // apart, so reads arrive while a batch is being written and after it was.
      for (let list = 0; list < 10; list++) {
        const ctx = readContext('mcp:svc_get_transcripts');
        for (let m = 0; m < 10; m++)
          recordRead(t.db, bob.principal, { id: `meeting-${list}-${m}`, teamId: ana.teamId }, ctx);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const written = async () => (await t.db('read_audit_statements').select('n')).map((r: { n: number }) => r.n);
      for (let i = 0; i < 100 && (await written()).reduce((a, n) => a + n, 0) < 100; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await written()).toEqual([25, 25, 25, 25]);
      // A remainder waits for the interval, or for a flush: one more INSERT of what is left.
      recordRead(
        t.db,
        bob.principal,
        { id: 'meeting-last', teamId: ana.teamId },
        readContext('mcp:svc_get_transcripts'),
      );
      await flushReads(t.db);
      expect(await written()).toEqual([25, 25, 25, 25, 1]);
      expect(Number((await t.db('read_audit').count({ n: '*' }))[0].n)).toBe(101);
    } finally {
      await reads.stop();
      await t.db.raw('drop trigger read_audit_statements on read_audit');
      await t.db.raw('drop function count_read_audit_statement()');
      await t.db.raw('drop table read_audit_statements');
    }
  });

  it('while the database refuses the reads, a write is tried again on the interval, not on every read past the batch size', async () => {
    const before = await flushFailures();
    const reads = startReadAudit(t.db, { enabled: true, flushIntervalMs: 60_000, batchRows: 5 });
    const { logs } = await whileCapturing('error', () =>
      withoutAuditTable(async () => {
        for (let list = 0; list < 4; list++) {
          const ctx = readContext('mcp:svc_get_transcripts');
          for (let m = 0; m < 5; m++)
            recordRead(t.db, bob.principal, { id: `meeting-${list}-${m}`, teamId: ana.teamId }, ctx);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // The first full batch failed; the three that followed waited for the (long) interval.
        expect((await flushFailures()) - before).toBe(1);
      }),
    );
    // One failed write, one line saying so.
    expect(logs.find('error', /^read audit flush failed$/)).toEqual([expect.objectContaining({ rows: 5, dropped: 0 })]);
    await reads.stop();
    expect(Number((await t.db('read_audit').count({ n: '*' }))[0].n)).toBe(20);
  });

  it('READ_AUDIT=false records nothing', async () => {
    const reads = startReadAudit(t.db, { enabled: false, flushIntervalMs: 1000, batchRows: 500 });
    try {
      expect((await mcp.call(bob.key, 'svc_get_transcript', { transcriptId: open.id })).isError).toBe(false);
    } finally {
      await reads.stop();
    }
    expect(await rows()).toEqual([]);
  });
});
