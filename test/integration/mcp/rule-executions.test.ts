import { newId } from '../../../services/core/input';
import { EXECUTIONS_PER_GROUP } from '../../../services/core/rules/executions';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const TOOL = 'svc_get_rule_executions';

describe('svc_get_rule_executions', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let member: TestUser;
  let foreignAdmin: TestUser;
  let proUser: TestUser;
  /** The 120 meetings of the main team, oldest first (ULIDs ascend with creation). */
  const meetings: { id: string; title: string; privacy: string }[] = [];

  async function addMeeting(organizer: TestUser, title: string, privacy = 'teammates') {
    const id = newId();
    await t.db('meetings').insert({
      id,
      team_id: organizer.teamId,
      organizer_id: organizer.id,
      organizer_email: organizer.email,
      title,
      date: new Date('2026-11-01T10:00:00Z'),
      status: 'completed',
      privacy,
    });
    return id;
  }

  async function addExecution(
    teamId: string,
    meetingId: string,
    e: { rule?: string; status?: string; actions?: unknown; error?: string | null; dryRun?: boolean; at?: string } = {},
  ) {
    const id = newId();
    const rule = e.rule ?? 'rule-1';
    await t.db('rule_executions').insert({
      id,
      team_id: teamId,
      rule_id: rule,
      rule_name: `Rule ${rule}`,
      meeting_id: meetingId,
      run_key: `run-${id}`,
      status: e.status ?? 'success',
      actions: JSON.stringify(e.actions ?? [{ type: 'share', emails: ['x@ext.test'], status: 'done' }]),
      error: e.error ?? null,
      dry_run: e.dryRun ?? false,
      executed_at: new Date(e.at ?? '2026-11-01T12:00:00Z'),
    });
    return id;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    const other = await makeTeam(t.db, { tier: 'enterprise' });
    const pro = await makeTeam(t.db, { tier: 'pro' });
    admin = await makeUser(t.db, team, { role: 'admin', email: 'admin@e.test' });
    member = await makeUser(t.db, team, { email: 'member@e.test' });
    foreignAdmin = await makeUser(t.db, other, { role: 'super_admin', email: 'admin@f.test' });
    proUser = await makeUser(t.db, pro, { role: 'super_admin', email: 'admin@p.test' });
    for (let i = 0; i < 120; i++) {
      // Every twelfth meeting is the admin's own (privacy owner): members never see its log.
      const privacy = i % 12 === 0 ? 'owner' : 'teammates';
      const title = `Meeting ${i}`;
      const id = await addMeeting(admin, title, privacy);
      meetings.push({ id, title, privacy });
      for (let k = 1; k <= (i % 3) + 1; k++) {
        await addExecution(team.id, id, {
          rule: `rule-${k}`,
          at: new Date(Date.UTC(2026, 10, 1, 0, i, k)).toISOString(),
        });
      }
    }
    for (let i = 0; i < 3; i++) await addExecution(other.id, await addMeeting(foreignAdmin, `Foreign ${i}`));
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  /** Every page from the first to next_cursor null; checks the page invariants on the way. */
  async function walk(
    key: string,
    args: Record<string, unknown>,
    between?: (page: number, ids: string[]) => Promise<void>,
    harness = mcp,
  ) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await harness.call(key, TOOL, cursor ? { ...args, cursor } : args);
      expect(res.isError).toBe(false);
      pages++;
      const ids = res.data.meetings.map((g: { meeting_id: string }) => g.meeting_id);
      seen.push(...ids);
      if (res.data.has_more) expect(typeof res.data.next_cursor).toBe('string');
      else expect(res.data.next_cursor).toBeNull();
      cursor = res.data.next_cursor;
      if (between) await between(pages, ids);
    } while (cursor);
    return { seen, pages };
  }

  const newestFirst = (ids: string[]) => [...ids].sort().reverse();

  it.each([
    [1, 120],
    [10, 12],
    [50, 3],
  ])(
    'pages through 120 meeting groups at limit %i: each group exactly once, newest first (%i pages)',
    async (limit, pages) => {
      const result = await walk(admin.key, { limit });
      expect(result.pages).toBe(pages);
      expect(result.seen).toEqual(newestFirst(meetings.map((m) => m.id)));
    },
  );

  it('defaults to 10 groups a page', async () => {
    const res = await mcp.call(admin.key, TOOL);
    expect(res.data.meetings).toHaveLength(10);
    expect(res.data.has_more).toBe(true);
  });

  it('neither skips nor repeats a group while executions are inserted between pages', async () => {
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    const boss = await makeUser(t.db, team, { role: 'admin' });
    const quiet = await addMeeting(boss, 'No runs yet'); // oldest id, no executions so far
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(await addMeeting(boss, `M${i}`));
      await addExecution(team.id, ids[i]);
    }
    let newer = '';
    const { seen } = await walk(boss.key, { limit: 10 }, async (page, pageIds) => {
      if (page === 1) {
        newer = await addMeeting(boss, 'Brand new');
        await addExecution(team.id, newer); // ahead of the cursor: belongs to a fresh walk
        await addExecution(team.id, quiet); // behind it: must still come up once
        await addExecution(team.id, pageIds[0], { rule: 'rule-2' }); // already shown: must not come back
      }
      if (page === 2) await addExecution(team.id, ids[0], { rule: 'rule-3' }); // not reached yet: still once
    });
    expect(seen).toEqual(newestFirst([...ids, quiet]));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain(newer);
  });

  it('returns groups of flat execution rows, newest execution first, with actions as one line', async () => {
    const target = meetings[5];
    await addExecution(admin.teamId, target.id, {
      rule: 'rule-9',
      status: 'partial',
      actions: [
        { type: 'share', emails: ['a@x.test', 'b@y.test'], status: 'done' },
        { type: 'move_to_channel', channel_id: 'C1' },
        'set_privacy:teammates',
      ],
      error: 'channel C2 not found',
      dryRun: true,
      at: '2026-11-10T08:00:00Z',
    });
    const res = await mcp.call(admin.key, TOOL, { meetingId: target.id });
    expect(res.isError).toBe(false);
    expect(res.text).toContain('executions[4]{id,rule_id,rule_name,status,actions,error,dry_run,executed_at}:');
    const rows = await t
      .db('rule_executions')
      .where({ meeting_id: target.id })
      .orderBy([
        { column: 'executed_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]);
    expect(res.data).toEqual({
      meetings: [
        {
          meeting_id: target.id,
          meeting: target.title,
          execution_count: 4,
          executions_has_more: false,
          executions: rows.map((r) => ({
            id: r.id,
            rule_id: r.rule_id,
            rule_name: r.rule_name,
            status: r.status,
            actions:
              r.rule_id === 'rule-9'
                ? 'share(emails=a@x.test b@y.test) -> done; move_to_channel(channel_id=C1); set_privacy:teammates'
                : 'share(emails=x@ext.test) -> done',
            error: r.error,
            dry_run: r.dry_run,
            executed_at: new Date(r.executed_at).toISOString(),
          })),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    expect(res.data.meetings[0].executions[0]).toMatchObject({
      rule_id: 'rule-9',
      status: 'partial',
      error: 'channel C2 not found',
      dry_run: true,
    });
  });

  it(`shows at most ${EXECUTIONS_PER_GROUP} executions of one meeting and says so`, async () => {
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    const boss = await makeUser(t.db, team, { role: 'admin' });
    const busy = await addMeeting(boss, 'Busy');
    for (let i = 0; i < EXECUTIONS_PER_GROUP; i++) await addExecution(team.id, busy, { rule: `r${i}` });
    const full = await mcp.call(boss.key, TOOL);
    expect(full.data.meetings[0]).toMatchObject({ execution_count: EXECUTIONS_PER_GROUP, executions_has_more: false });
    expect(full.data.meetings[0].executions).toHaveLength(EXECUTIONS_PER_GROUP);
    await addExecution(team.id, busy, { rule: 'last' });
    const over = await mcp.call(boss.key, TOOL);
    expect(over.data.meetings[0]).toMatchObject({
      execution_count: EXECUTIONS_PER_GROUP + 1,
      executions_has_more: true,
    });
    expect(over.data.meetings[0].executions).toHaveLength(EXECUTIONS_PER_GROUP);
  });

  it('filters by rule, meeting and execution time', async () => {
    const byRule = await walk(admin.key, { ruleId: 'rule-3', limit: 50 });
    const withRule3 = meetings.filter((_, i) => i % 3 === 2).map((m) => m.id);
    expect(byRule.seen).toEqual(newestFirst(withRule3));
    const page = await mcp.call(admin.key, TOOL, { ruleId: 'rule-3', limit: 50 });
    for (const g of page.data.meetings)
      expect(g.executions.every((e: { rule_id: string }) => e.rule_id === 'rule-3')).toBe(true);

    // Meeting i ran its rules at minute i of 2026-11-01: minutes 10..19 inclusive.
    const byTime = await walk(admin.key, {
      dateFrom: '2026-11-01T00:10:00Z',
      dateTo: '2026-11-01T00:19:59Z',
      limit: 50,
    });
    expect(byTime.seen).toEqual(newestFirst(meetings.slice(10, 20).map((m) => m.id)));
    const instant = await mcp.call(admin.key, TOOL, {
      dateFrom: '2026-11-01T00:10:01Z',
      dateTo: '2026-11-01T00:10:01Z',
    });
    expect(instant.data.meetings.map((g: { meeting_id: string }) => g.meeting_id)).toEqual([meetings[10].id]);

    const none = await mcp.call(admin.key, TOOL, { meetingId: 'no-such-meeting' });
    expect(none.isError).toBe(true);
    expect(none.data.error.code).toBe('object_not_found');
  });

  it('shows a member only the groups of meetings visible to them; another team only its own', async () => {
    const mine = await walk(member.key, { limit: 50 });
    expect(mine.seen).toEqual(newestFirst(meetings.filter((m) => m.privacy !== 'owner').map((m) => m.id)));
    expect(mine.seen).toHaveLength(110);
    const hidden = meetings.find((m) => m.privacy === 'owner')!;
    expect((await mcp.call(member.key, TOOL, { meetingId: hidden.id })).data.error.code).toBe('object_not_found');
    const foreign = await mcp.call(foreignAdmin.key, TOOL, { limit: 50 });
    expect(foreign.data.meetings.map((g: { meeting: string }) => g.meeting)).toEqual([
      'Foreign 2',
      'Foreign 1',
      'Foreign 0',
    ]);
    expect((await mcp.call(foreignAdmin.key, TOOL, { meetingId: meetings[1].id })).data.error.code).toBe(
      'object_not_found',
    );
  });

  describe('cursor', () => {
    const refused = (res: { isError: boolean; data: { error: { code: string; field: string } } }) => {
      expect(res.isError).toBe(true);
      expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'cursor' });
    };
    const firstCursor = async (key: string, args: Record<string, unknown> = {}) =>
      (await mcp.call(key, TOOL, { limit: 1, ...args })).data.next_cursor as string;

    it('is opaque base64url with a tag, and refuses any edit', async () => {
      const cursor = await firstCursor(admin.key);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      const [body, sig] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      // Point it at another key without a valid tag.
      const forgedBody = Buffer.from(JSON.stringify({ ...payload, k: meetings[3].id })).toString('base64url');
      refused(await mcp.call(admin.key, TOOL, { limit: 1, cursor: `${forgedBody}.${sig}` }));
      const flipped = sig.slice(0, -2) + (sig.at(-2) === 'A' ? 'B' : 'A') + sig.at(-1);
      refused(await mcp.call(admin.key, TOOL, { limit: 1, cursor: `${body}.${flipped}` }));
      for (const junk of ['abc', `${body}.`, `${body}.${sig}.x`, 'e30.e30'])
        refused(await mcp.call(admin.key, TOOL, { cursor: junk }));
      // Untouched, it works.
      expect((await mcp.call(admin.key, TOOL, { limit: 1, cursor })).isError).toBe(false);
    });

    it('refuses a cursor of another team', async () => {
      const theirs = await firstCursor(foreignAdmin.key);
      const res = await mcp.call(admin.key, TOOL, { cursor: theirs });
      refused(res);
      expect(res.data.error.message).toMatch(/another team/);
      // And the other way round.
      refused(await mcp.call(foreignAdmin.key, TOOL, { cursor: await firstCursor(admin.key) }));
    });

    it('refuses a cursor with different filters, but allows another limit', async () => {
      const cursor = await firstCursor(admin.key);
      for (const args of [
        { ruleId: 'rule-1' },
        { meetingId: meetings[0].id },
        { dateFrom: '2026-01-01T00:00:00Z' },
        { dateTo: '2027-01-01T00:00:00Z' },
      ]) {
        refused(await mcp.call(admin.key, TOOL, { ...args, cursor }));
      }
      const next = await mcp.call(admin.key, TOOL, { limit: 5, cursor });
      expect(next.data.meetings.map((g: { meeting_id: string }) => g.meeting_id)).toEqual(
        newestFirst(meetings.map((m) => m.id)).slice(1, 6),
      );
      // The same instant written another way is the same filter.
      const zoned = await firstCursor(admin.key, { dateFrom: '2026-11-01T01:00:00+01:00' });
      expect((await mcp.call(admin.key, TOOL, { dateFrom: '2026-11-01T00:00:00Z', cursor: zoned })).isError).toBe(
        false,
      );
    });

    it('is bound to the server key: without SECRETS_KEY it still pages, and keys do not mix', async () => {
      const keyless = await startMcp(t.db, { SECRETS_KEY: '' });
      try {
        expect(keyless.config.secretsKey).toBeUndefined();
        const { seen } = await walk(admin.key, { limit: 50 }, undefined, keyless);
        expect(seen).toEqual(newestFirst(meetings.map((m) => m.id)));
        const res = await keyless.call(admin.key, TOOL, { cursor: await firstCursor(admin.key) });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'cursor' });
      } finally {
        await keyless.close();
      }
    });
  });

  describe('limits', () => {
    it('takes limit 1 to 50 meeting groups', async () => {
      expect((await mcp.call(admin.key, TOOL, { limit: 50 })).data.meetings).toHaveLength(50);
      for (const limit of [51, 0, -1]) {
        const res = await mcp.call(admin.key, TOOL, { limit });
        expect(res.isError).toBe(true);
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
      }
      // A fraction is refused naming the field (its code is server.ts's mapping of zod's invalid_type).
      const fraction = await mcp.call(admin.key, TOOL, { limit: 1.5 });
      expect(fraction.isError).toBe(true);
      expect(fraction.data.error.field).toBe('limit');
      expect((await mcp.call(admin.key, TOOL, { limit: 51 })).data.error.rule).toBe('at most 50 meeting groups');
    });

    it('takes ISO 8601 date-times with a zone, dateFrom not after dateTo', async () => {
      for (const [field, value] of [
        ['dateFrom', '2026-11-01'],
        ['dateTo', '2026-13-01T00:00:00Z'],
        ['dateFrom', '2026-11-01T00:00:00'],
      ]) {
        const res = await mcp.call(admin.key, TOOL, { [field]: value });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field });
      }
      const reversed = await mcp.call(admin.key, TOOL, {
        dateFrom: '2026-11-02T00:00:00Z',
        dateTo: '2026-11-01T23:59:59Z',
      });
      expect(reversed.data.error).toMatchObject({
        code: 'invalid_arguments',
        field: 'dateFrom',
        rule: 'must not be after dateTo',
      });
    });

    it('checks ids and cursor are non-empty, bounded strings, and refuses unknown parameters', async () => {
      for (const [field, value] of [
        ['ruleId', ''],
        ['meetingId', 'x'.repeat(65)],
        ['cursor', ''],
        ['cursor', 'x'.repeat(1001)],
        ['mine', true],
      ] as const) {
        const res = await mcp.call(admin.key, TOOL, { [field]: value });
        expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field });
      }
    });
  });

  it('requires the Enterprise tier: paid_required, whatever the role', async () => {
    const res = await mcp.call(proUser.key, TOOL);
    expect(res.isError).toBe(true);
    expect(res.data.error.code).toBe('paid_required');
    expect(res.data.error.message).toMatch(/Enterprise/);
    expect((await mcp.call(proUser.key, TOOL, { cursor: 'anything' })).data.error.code).toBe('paid_required');
  });

  it('is listed as read-only', async () => {
    const c = await mcp.client(member.key);
    const tool = (await c.listTools()).tools.find((x) => x.name === TOOL);
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
  });
});
