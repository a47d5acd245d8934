/**
 * Origin validation of /mcp (MCP_ALLOWED_ORIGINS): a request carrying an Origin other than the allowed
 * ones, `null` included, is refused with 403 before authentication; requests without an Origin (every
 * non-browser client) keep working. Default: the origin of PUBLIC_BASE_URL.
 */
import { request } from 'node:http';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { testConfig } from '../../support/config';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } };

/** node:http, so the Origin header goes out exactly as written. */
function send(url: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(init) : undefined);
  });
}

describe('/mcp Origin validation', () => {
  let t: TestDatabase;
  let byDefault: McpHarness;
  let listed: McpHarness;
  let anyOrigin: McpHarness;
  let u: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    u = await makeUser(t.db, await makeTeam(t.db));
    byDefault = await startMcp(t.db, { PUBLIC_BASE_URL: 'https://meet.example.org/' });
    listed = await startMcp(t.db, { MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' });
    anyOrigin = await startMcp(t.db, { MCP_ALLOWED_ORIGINS: '*' });
  });
  afterAll(async () => {
    await Promise.all([byDefault.close(), listed.close(), anyOrigin.close()]);
    await t.drop();
  });

  const auth = () => ({ authorization: `Bearer ${u.key}` });

  it('refuses another site and the opaque origin null with 403 and a JSON-RPC error, on every method', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://meet.example.org.evil.example', 'http://meet.example.org', 'not a url']) {
      const res = await send(byDefault.url, { ...auth(), origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Origin') } });
    }
    expect((await send(byDefault.url, { ...auth(), origin: 'https://evil.example' }, 'GET')).status).toBe(403);
    // Refused before authentication: no key needed to be told no.
    expect((await send(byDefault.url, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('accepts the origin of PUBLIC_BASE_URL by default, and requests without an Origin', async () => {
    expect((await send(byDefault.url, { ...auth(), origin: 'https://meet.example.org' })).status).toBe(200);
    expect((await send(byDefault.url, { ...auth(), origin: 'HTTPS://MEET.example.org:443' })).status).toBe(200);
    expect((await send(byDefault.url, auth())).status).toBe(200);
    const viaSdk = await byDefault.call(u.key, 'svc_get_user');
    expect(viaSdk.isError).toBe(false);
  });

  it('accepts exactly the listed origins when MCP_ALLOWED_ORIGINS is set, and any with *', async () => {
    expect((await send(listed.url, { ...auth(), origin: 'https://app.example.com' })).status).toBe(200);
    expect((await send(listed.url, { ...auth(), origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await send(listed.url, { ...auth(), origin: 'http://localhost:3000' })).status).toBe(403);
    expect((await send(listed.url, { ...auth(), origin: 'https://evil.example' })).status).toBe(403);
    expect((await send(anyOrigin.url, { ...auth(), origin: 'https://evil.example' })).status).toBe(200);
    expect((await send(anyOrigin.url, { ...auth(), origin: 'null' })).status).toBe(200);
  });

  it('config: the default is the origin of PUBLIC_BASE_URL; malformed entries stop the process naming the variable', () => {
    expect(testConfig({ PUBLIC_BASE_URL: 'https://meet.example.org/base/' }).mcpAllowedOrigins).toEqual(['https://meet.example.org']);
    expect(testConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example/, http://b.example:8080' }).mcpAllowedOrigins).toEqual(['https://a.example', 'http://b.example:8080']);
    expect(testConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example,*' }).mcpAllowedOrigins).toEqual(['*']);
    expect(() => testConfig({ MCP_ALLOWED_ORIGINS: 'evil' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => testConfig({ MCP_ALLOWED_ORIGINS: 'null' })).toThrow(/MCP_ALLOWED_ORIGINS/);
  });
});
