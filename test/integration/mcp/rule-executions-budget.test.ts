/**
 * svc_get_rule_executions pages its groups by a token budget as well as by limit: on a large log an
 * answer stays under the budget (and under the 25,000 tokens clients accept) in every format, and
 * following next_cursor reaches every group exactly once.
 */
import { countTokens } from 'gpt-tokenizer';
import { newId } from '../../../services/core/input';
import { RULE_LOG_TOKENS } from '../../../services/core/rules';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const TOOL = 'svc_get_rule_executions';
const MEETINGS = 90;
const PER_MEETING = 14;

describe('svc_get_rule_executions token budget', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  const ids: string[] = [];
  let huge: string;

  const execution = (teamId: string, meetingId: string, k: number, error: string | null) => {
    const id = newId();
    return {
      id,
      team_id: teamId,
      rule_id: `rule-${k % 7}`,
      rule_name: `Share customer calls with the account team (${k % 7})`,
      meeting_id: meetingId,
      run_key: `run-${id}`,
      status: error ? 'partial' : 'success',
      actions: JSON.stringify([
        {
          type: 'share',
          emails: ['ana.account@example.com', 'ben.success@example.com', 'cy.support@example.com'],
          status: 'done',
        },
        { type: 'move', channel: `chan-${k}`, status: error ? 'failed' : 'done' },
      ]),
      error,
      dry_run: false,
      executed_at: new Date(Date.UTC(2026, 10, 1, 0, 0, k)),
    };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    admin = await makeUser(t.db, team, { role: 'admin' });
    const rows = [];
    for (let i = 0; i < MEETINGS; i++) {
      const id = newId();
      ids.push(id);
      await t.db('meetings').insert({
        id,
        team_id: team.id,
        organizer_id: admin.id,
        organizer_email: admin.email,
        title: `Customer call ${i} with a long descriptive title`,
        date: new Date('2026-11-01T10:00:00Z'),
        status: 'completed',
        privacy: 'teammates',
      });
      for (let k = 0; k < PER_MEETING; k++)
        rows.push(
          execution(
            team.id,
            id,
            k,
            k % 3 === 0
              ? `move failed: channel chan-${k} was archived by its owner before the rule ran; the meeting stays where it was`
              : null,
          ),
        );
    }
    // One meeting whose log alone is over the budget: 100 executions with long errors.
    huge = newId();
    await t.db('meetings').insert({
      id: huge,
      team_id: team.id,
      organizer_id: admin.id,
      organizer_email: admin.email,
      title: 'Busy meeting',
      date: new Date('2026-11-01T10:00:00Z'),
      status: 'completed',
      privacy: 'teammates',
    });
    for (let k = 0; k < 120; k++)
      rows.push(
        execution(
          team.id,
          huge,
          k,
          `webhook delivery failed: ${'the receiving endpoint answered 503 Service Unavailable; '.repeat(12)}`,
        ),
      );
    ids.push(huge);
    for (let i = 0; i < rows.length; i += 500) await t.db('rule_executions').insert(rows.slice(i, i + 500));
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it(`keeps limit 50 under ${RULE_LOG_TOKENS} tokens, and pages to every group exactly once`, async () => {
    // The tool answers TOON (it takes no format); the estimate is made on JSON, which is longer.
    for (const format of ['toon']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await mcp.call(admin.key, TOOL, { limit: 50, ...(cursor ? { cursor } : {}) });
        expect(res.isError).toBe(false);
        pages++;
        const tokens = countTokens(res.text);
        expect([format, pages, tokens <= RULE_LOG_TOKENS]).toEqual([format, pages, true]);
        // The JSON form (the answer's structuredContent, which some clients show the model) keeps it too.
        expect([format, pages, countTokens(JSON.stringify(res.data)) <= RULE_LOG_TOKENS]).toEqual([
          format,
          pages,
          true,
        ]);
        expect(res.data.meetings.length).toBeGreaterThan(0);
        expect(res.data.meetings.length).toBeLessThanOrEqual(50);
        seen.push(...res.data.meetings.map((g: { meeting_id: string }) => g.meeting_id));
        cursor = res.data.next_cursor;
        expect(res.data.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual([...ids].sort());
      // The budget, not limit, cut the pages: more than ceil(91 / 50) of them.
      expect(pages).toBeGreaterThan(Math.ceil(ids.length / 50));
    }
  });

  it('the default page stays under the budget too', async () => {
    const res = await mcp.call(admin.key, TOOL, {});
    expect(countTokens(res.text)).toBeLessThanOrEqual(RULE_LOG_TOKENS);
    expect(res.data.has_more).toBe(true);
  });

  it('a meeting whose log alone is over the budget shows its newest executions that fit, with executions_has_more', async () => {
    {
      const res = await mcp.call(admin.key, TOOL, { meetingId: huge });
      expect(res.isError).toBe(false);
      expect(countTokens(res.text)).toBeLessThanOrEqual(RULE_LOG_TOKENS);
      const [g] = res.data.meetings;
      expect(g).toMatchObject({ meeting_id: huge, execution_count: 120, executions_has_more: true });
      expect(g.executions.length).toBeGreaterThan(0);
      expect(g.executions.length).toBeLessThan(100);
      expect(res.data).toMatchObject({ has_more: false, next_cursor: null });
    }
  });
});
