import { request } from 'node:http';
import { inspect } from 'node:util';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { revokeApiKey } from '../../../services/core/people';

describe('MCP endpoint', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let alice: TestUser;
  let bob: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    const other = await makeTeam(t.db);
    alice = await makeUser(t.db, team, { role: 'admin', name: 'Alice' });
    bob = await makeUser(t.db, team, { name: 'Bob' });
    outsider = await makeUser(t.db, other, { role: 'super_admin' });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcp.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };

  it('refuses a missing key with 401 and a Bearer challenge before any tool runs', async () => {
    const res = await post(init);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses unknown and revoked keys with 401', async () => {
    expect((await post(init, { authorization: 'Bearer mi_aaaaaaaa_' + 'x'.repeat(43) })).status).toBe(401);
    const victim = await makeUser(t.db, { id: alice.teamId, tier: 'pro', feature_flags: [] });
    expect((await post(init, { authorization: `Bearer ${victim.key}` })).status).toBe(200);
    await revokeApiKey(t.db, victim.key.split('_')[1]);
    const res = await post(init, { authorization: `Bearer ${victim.key}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });

  it("builds the SDK's answers as @hono/node-server's lightweight Responses, which it writes without reading a stream", async () => {
    // The SDK's transport makes its JSON answers with the global Response; the mcp app installs hono's.
    expect(inspect(new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }))).toMatch(
      /^Response \(lightweight\)/,
    );
    const res = await post(init, { authorization: `Bearer ${alice.key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(await res.text())));
  });

  it('answers malformed JSON with a JSON-RPC parse error', async () => {
    const res = await post('{not json', { authorization: `Bearer ${alice.key}` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('refuses a foreign Host header (DNS rebinding protection)', async () => {
    // fetch() will not send a forged Host header, so this one goes through node:http.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        mcp.url,
        {
          method: 'POST',
          headers: {
            host: 'evil.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${alice.key}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(status).toBe(403);
  });

  it('hides experimental tools from teams without the flag, and refuses direct calls', async () => {
    const c = await mcp.client(alice.key);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain('svc_get_user');
    expect(names).not.toContain('svc_search');
    expect(names).not.toContain('svc_fetch');
  });

  it('serves svc_get_user for the caller and for a teammate, never for another team', async () => {
    const me = await mcp.call(bob.key, 'svc_get_user');
    expect(me.isError).toBe(false);
    expect(me.data).toMatchObject({
      user_id: bob.id,
      email: bob.email,
      name: 'Bob',
      is_admin: false,
      num_transcripts: 0,
    });

    const mate = await mcp.call(bob.key, 'svc_get_user', { userId: alice.id });
    expect(mate.data).toMatchObject({ user_id: alice.id, is_admin: true });

    const foreign = await mcp.call(bob.key, 'svc_get_user', { userId: outsider.id });
    expect(foreign.isError).toBe(true);
    expect(foreign.data.error.code).toBe('object_not_found');
  });

  it('names the field and rule of bad arguments', async () => {
    const res = await mcp.call(bob.key, 'svc_get_user', { userId: 'x'.repeat(65) });
    expect(res.isError).toBe(true);
    expect(res.data.error).toMatchObject({ code: 'invalid_arguments', field: 'userId' });
    const unknown = await mcp.call(bob.key, 'svc_get_user', { user: 'x' });
    expect(unknown.data.error).toMatchObject({ code: 'invalid_arguments', field: 'user' });
  });
});
