/**
 * The call allowance of an OAuth sign-in (services/core/limits/rate-limit.ts countCalls): counted per user
 * in PostgreSQL, apart from the user's API keys, with the same headers and refusal as a key.
 */
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { accessTokenFor, metricValue, OAuthHarness, postMcp, startOAuthMcp, toolCall } from './support';

const LIMIT = 3;

describe('the call allowance of an OAuth sign-in', () => {
  let t: TestDatabase;
  let mcp: OAuthHarness;
  let alice: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    alice = await makeUser(t.db, await makeTeam(t.db), { name: 'Alice' });
    mcp = await startOAuthMcp(t.db, { OAUTH_MODE: 'builtin', RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it('admits the allowance, counts down, then refuses with Retry-After; the user’s API key counts apart', async () => {
    const token = await accessTokenFor(mcp, alice.key);
    // The calls below must fall in one clock minute of the database's.
    const { s } = (await t.db.raw('select mod(extract(epoch from now()), 60)::float8 as s')).rows[0];
    if (s > 50) await new Promise((r) => setTimeout(r, (60 - s) * 1000 + 300));
    const refusedBefore = await metricValue('mcp_tool_calls_total', {
      tool: 'svc_get_user',
      outcome: 'too_many_requests',
    });

    const left = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await postMcp(mcp.mcpUrl, toolCall('svc_get_user', {}, i), token);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      left.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(left).toEqual([2, 1, 0]);

    const refused = await postMcp(mcp.mcpUrl, toolCall('svc_get_user', {}, 9), token);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({
      id: 9,
      error: { data: { code: 'too_many_requests', retry_after_seconds: retryAfter } },
    });
    expect(await metricValue('mcp_tool_calls_total', { tool: 'svc_get_user', outcome: 'too_many_requests' })).toBe(
      refusedBefore + 1,
    );

    // The API key Alice signed in with is a credential of its own, with its own allowance.
    const byKey = await postMcp(mcp.mcpUrl, toolCall('svc_get_user', {}, 10), alice.key);
    expect([byKey.status, byKey.headers.get('ratelimit-remaining')]).toEqual([200, String(LIMIT - 1)]);
  }, 60_000);
});
