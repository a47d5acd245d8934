/**
 * The call allowance across the cluster (services/core/limits/rate-limit.ts): three mcp processes behind a
 * round-robin proxy and a graphql app, one PostgreSQL. A key's allowance holds in total: exactly for
 * an allowance under LEASE_SHARE (counted call by call), and for a larger one never more, at most
 * (processes - 1) × (lease - 1) fewer (calls leased by one process and unspent); the RateLimit-*
 * headers count down whichever process answers; a refusal's Retry-After is when the allowance comes
 * back; MCP and GraphQL calls spend one allowance; a team admin gives a key a larger one.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setApiKeyRateLimit } from '../../../services/core/people';
import { leaseSize } from '../../../services/core/limits';
import { runCli } from '../../support/cli';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { McpCluster, startMcpCluster } from '../../support/mcp-cluster';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const N = 12;
const ME = 'query Me { me { user_id } }';
const SET_LIMIT =
  'mutation Set($prefix: String!, $perMinute: Int) { setApiKeyRateLimit(prefix: $prefix, perMinute: $perMinute) { prefix rate_limit_per_minute } }';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const prefixOf = (key: string) => key.split('_')[1];

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe('the call allowance across three mcp processes', () => {
  let t: TestDatabase;
  let cluster: McpCluster;
  let gql: GraphqlHarness;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  let admin: TestUser;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    [cluster, gql] = await Promise.all([
      startMcpCluster(t.url, 3, { RATE_LIMIT_PER_MINUTE: String(N) }),
      startGraphql(t.db, { RATE_LIMIT_PER_MINUTE: String(N) }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cluster?.close();
    await gql?.close();
    await t?.drop();
  });

  const member = () => makeUser(t.db, team);

  /** Seconds into the database's current minute (the clock the windows turn on). */
  const secondOfMinute = async () =>
    Number((await t.db.raw('select mod(extract(epoch from now()), 60)::float8 as s')).rows[0].s);

  /** Wait, if need be, for a fresh window, so the next `seconds` of calls fall in one window. */
  const oneWindowFor = async (seconds: number) => {
    const s = await secondOfMinute();
    if (s > 60 - seconds) await sleep((60 - s) * 1000 + 300);
  };

  /** One JSON-RPC message POSTed to the proxy. */
  const post = async (key: string, message: Record<string, unknown>): Promise<Answer> => {
    const res = await fetch(cluster.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const getUser = (key: string, id = 1) =>
    post(key, { id, method: 'tools/call', params: { name: 'svc_get_user', arguments: {} } });

  /** The SDK's client through the proxy, keeping the headers of every answer it was given. */
  const sdkClient = async (key: string) => {
    const seen: Headers[] = [];
    const client = new Client({ name: 'rate-limit-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(cluster.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          seen.push(res.headers);
          return res;
        },
      }),
    );
    clients.push(client);
    return { client, seen };
  };

  const remaining = (h: Headers) => Number(h.get('ratelimit-remaining'));

  it('admits exactly N calls of a key over three processes: the Nth passes, the N+1th is refused, the headers count down', async () => {
    const user = await member();
    await oneWindowFor(15);
    const forwardedBefore = [...cluster.forwarded];
    const { client, seen } = await sdkClient(user.key);
    // initialize and tools/list are not tool calls: they carry the headers and spend nothing.
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen)
      expect([h.get('ratelimit-limit'), h.get('ratelimit-remaining')]).toEqual([String(N), String(N)]);
    await client.listTools();
    expect(remaining(seen[seen.length - 1])).toBe(N);

    const counted: number[] = [];
    for (let i = 1; i <= N; i++) {
      const r = (await client.callTool({ name: 'svc_get_user', arguments: {} })) as { isError?: boolean };
      expect(r.isError).toBeFalsy();
      const h = seen[seen.length - 1];
      counted.push(remaining(h));
      expect(h.get('ratelimit-limit')).toBe(String(N));
      expect(h.get('ratelimit-policy')).toBe(`${N};w=60`);
      const reset = Number(h.get('ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    expect(counted).toEqual(Array.from({ length: N }, (_, i) => N - 1 - i));
    // The calls went round the three processes.
    const spread = cluster.forwarded.map((n, i) => n - forwardedBefore[i]);
    for (const n of spread) expect(n).toBeGreaterThanOrEqual(Math.floor(N / 3));

    // The N+1th, from the SDK's client: an error the client (and the model behind it) can act on.
    const thrown = await client.callTool({ name: 'svc_get_user', arguments: {} }).then(
      () => ({ code: 200, message: 'admitted' }),
      (e: Error & { code?: number }) => ({ code: e.code, message: e.message }),
    );
    expect(thrown.code).toBe(429);
    expect(thrown.message).toMatch(/retry after \d+ s/);
    expect(thrown.message).toMatch(/"code":"too_many_requests"/);
    expect(thrown.message).toMatch(/"retry_after_seconds":\d+/);

    // The same refusal as it is on the wire, from every process in turn.
    for (let i = 0; i < 3; i++) {
      const refused = await getUser(user.key, 40 + i);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
      expect(remaining(refused.headers)).toBe(0);
      expect(refused.body).toMatchObject({
        jsonrpc: '2.0',
        id: 40 + i,
        error: {
          code: -32000,
          message: expect.stringMatching(/^Too many requests: .*retry after \d+ s/),
          data: { code: 'too_many_requests', retry_after_seconds: retryAfter },
        },
      });
      // Retry-After is when the database's minute turns.
      const left = 60 - (await secondOfMinute());
      expect(Math.abs(retryAfter - left)).toBeLessThanOrEqual(1.5);
    }
    // Listing tools is still answered, with nothing left.
    const list = await post(user.key, { id: 9, method: 'tools/list' });
    expect(list.status).toBe(200);
    expect(remaining(list.headers)).toBe(0);
  }, 60_000);

  it('admits exactly N of 3N concurrent calls of one key spread over the processes', async () => {
    const user = await member();
    await oneWindowFor(15);
    const answers = await Promise.all(Array.from({ length: 3 * N }, (_, i) => getUser(user.key, i)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * N);
    // Each admitted call was told a different remainder: N-1 down to 0.
    const left = answers.filter((a) => a.status === 200).map((a) => remaining(a.headers));
    expect(left.sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
    const [row] = await t
      .db('rate_limit_counts as c')
      .join('api_keys as k', 'c.subject', t.db.raw("'key:' || k.id"))
      .where('k.prefix', prefixOf(user.key))
      .select('c.used', 'c.allowance');
    expect(row).toEqual({ used: N, allowance: N });
  }, 60_000);

  it('leases a larger allowance in batches: never more than it in total, at most 2 × (lease - 1) fewer', async () => {
    const user = await member();
    const allowance = 400;
    const lease = leaseSize(allowance, 1);
    expect(lease).toBe(4);
    await setApiKeyRateLimit(t.db, null, prefixOf(user.key), allowance);
    await oneWindowFor(25);
    let admitted = 0;
    let refused = 0;
    let next = 0;
    const caller = async () => {
      while (next < allowance + 60) {
        const a = await getUser(user.key, next++);
        if (a.status === 200) admitted++;
        else if (a.status === 429) refused++;
        else throw new Error(`HTTP ${a.status}`);
      }
    };
    await Promise.all(Array.from({ length: 12 }, caller));
    // The stated error of three processes: calls leased by one and unspent are refused to the others.
    expect(admitted).toBeLessThanOrEqual(allowance);
    expect(admitted).toBeGreaterThanOrEqual(allowance - 2 * (lease - 1));
    expect(admitted + refused).toBe(allowance + 60);
    const [row] = await t
      .db('rate_limit_counts as c')
      .join('api_keys as k', 'c.subject', t.db.raw("'key:' || k.id"))
      .where('k.prefix', prefixOf(user.key))
      .select('c.used');
    expect(row.used).toBeGreaterThanOrEqual(admitted);
    expect(row.used).toBeLessThanOrEqual(allowance);
  }, 90_000);

  it('counts MCP and GraphQL calls against one allowance', async () => {
    const user = await member();
    await oneWindowFor(15);
    const left: number[] = [];
    for (let i = 0; i < N; i++) {
      if (i % 2 === 0) {
        const a = await getUser(user.key, i);
        expect(a.status).toBe(200);
        left.push(remaining(a.headers));
      } else {
        const a = await gql.request(user.key, ME);
        expect(a.status).toBe(200);
        expect(a.body.data.me.user_id).toBe(user.id);
        expect(a.headers.get('ratelimit-limit')).toBe(String(N));
        left.push(remaining(a.headers));
      }
    }
    expect(left).toEqual(Array.from({ length: N }, (_, i) => N - 1 - i));
    const refused = await gql.request(user.key, ME);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors![0].extensions).toMatchObject({
      code: 'too_many_requests',
      retry_after_seconds: retryAfter,
    });
    expect((await getUser(user.key)).status).toBe(429);
  }, 60_000);

  it('gives a key the larger allowance its team admin set, and takes it back with null', async () => {
    const user = await member();
    const given = await gql.request(admin.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute: 2 * N });
    expect(given.body.data.setApiKeyRateLimit).toEqual({ prefix: prefixOf(user.key), rate_limit_per_minute: 2 * N });
    const listed = await gql.request(admin.key, 'query { teamApiKeys { prefix rate_limit_per_minute } }');
    expect(listed.body.data.teamApiKeys).toContainEqual({ prefix: prefixOf(user.key), rate_limit_per_minute: 2 * N });

    await oneWindowFor(15);
    for (let i = 1; i <= 2 * N; i++) {
      const a = await getUser(user.key, i);
      expect([a.status, a.headers.get('ratelimit-limit'), remaining(a.headers)]).toEqual([
        200,
        String(2 * N),
        2 * N - i,
      ]);
    }
    expect((await getUser(user.key)).status).toBe(429);

    const back = await gql.request(admin.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute: null });
    expect(back.body.data.setApiKeyRateLimit.rate_limit_per_minute).toBeNull();
    const after = await getUser(user.key);
    expect([after.status, after.headers.get('ratelimit-limit')]).toEqual([429, String(N)]);
  }, 60_000);

  it('the operator sets a key allowance with the CLI', async () => {
    const user = await member();
    const r = await runCli(['apikey', 'limit', '--prefix', prefixOf(user.key), '--per-minute', '3', '--json'], {
      DATABASE_URL: t.url,
    });
    expect(r.json).toEqual({ prefix: prefixOf(user.key), user_email: user.email, rate_limit_per_minute: 3 });
    await oneWindowFor(10);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await getUser(user.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const bad = await runCli(['apikey', 'limit', '--prefix', prefixOf(user.key), '--per-minute', '0', '--json'], {
      DATABASE_URL: t.url,
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toMatch(/rate_limit_per_minute/);
  }, 60_000);

  it('refuses a non-admin, another team’s admin and an allowance out of range', async () => {
    const user = await member();
    // A member may not raise their own key's allowance (the operation needs the admin scope and role).
    const own = await gql.request(user.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute: 10_000 });
    expect(own.status).toBe(403);
    expect(own.body.errors![0].extensions).toMatchObject({ code: 'insufficient_scope', scope: 'admin' });
    await expect(setApiKeyRateLimit(t.db, user.principal, prefixOf(user.key), 10_000)).rejects.toMatchObject({
      code: 'require_elevated_privilege',
    });
    // Another team's admin does not find the key.
    const other = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    const foreign = await gql.request(other.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute: 10_000 });
    expect(foreign.body.errors![0].extensions).toMatchObject({ code: 'object_not_found' });
    // The boundaries: 1 and 1,000,000 are allowances; 0 and 1,000,001 are not.
    for (const perMinute of [0, 1_000_001]) {
      const bad = await gql.request(admin.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute });
      expect(bad.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'perMinute' });
      expect(bad.body.errors![0].message).toMatch(/^perMinute: .* from 1 to 1000000/);
    }
    for (const perMinute of [1, 1_000_000]) {
      const ok = await gql.request(admin.key, SET_LIMIT, { prefix: prefixOf(user.key), perMinute });
      expect(ok.body.data.setApiKeyRateLimit.rate_limit_per_minute).toBe(perMinute);
    }
    const [row] = await t
      .db('api_keys')
      .where({ prefix: prefixOf(user.key) })
      .select('rate_limit_per_minute');
    expect(row.rate_limit_per_minute).toBe(1_000_000);
    const audited = await t.db('audit_log').where({ action: 'apikey.rate_limit' }).count({ n: '*' });
    expect(Number(audited[0].n)).toBeGreaterThanOrEqual(2);
  });

  it('counts no call made with a wrong secret behind a known prefix', async () => {
    const user = await member();
    await oneWindowFor(10);
    const forged = `mi_${prefixOf(user.key)}_${'x'.repeat(43)}`;
    for (let i = 0; i < N + 2; i++) expect((await getUser(forged)).status).toBe(401);
    const a = await getUser(user.key);
    expect([a.status, remaining(a.headers)]).toEqual([200, N - 1]);
  }, 60_000);

  it('gives the allowance back when the window turns, after the Retry-After it said', async () => {
    const user = await member();
    await setApiKeyRateLimit(t.db, null, prefixOf(user.key), 2);
    await oneWindowFor(5);
    expect((await getUser(user.key)).status).toBe(200);
    expect((await getUser(user.key)).status).toBe(200);
    const refused = await getUser(user.key);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    if (retryAfter > 2) {
      await sleep((retryAfter - 2) * 1000);
      expect((await getUser(user.key)).status).toBe(429);
      await sleep(2000);
    } else await sleep(retryAfter * 1000);
    const again = await getUser(user.key);
    expect([again.status, remaining(again.headers)]).toEqual([200, 1]);
  }, 90_000);
});
