/**
 * Origin validation of /mcp (MCP_ALLOWED_ORIGINS): a request carrying an Origin other than the allowed
 * ones, `null` included, is refused with 403 before authentication; requests without an Origin (every
 * non-browser client) keep working. Default: the origin of PUBLIC_BASE_URL and any loopback origin.
 * Then the MCP conformance suite's dns-rebinding-protection cases, over real HTTP: valid localhost
 * Host and Origin accepted, a foreign Host or a foreign Origin refused.
 */
import { request } from 'node:http';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { testConfig } from '../../support/config';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const init = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

/** node:http, so the Origin header goes out exactly as written. */
function send(
  url: string,
  headers: Record<string, string>,
  method = 'POST',
  body: unknown = init,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(body) : undefined);
  });
}

describe('/mcp Origin validation', () => {
  let t: TestDatabase;
  let byDefault: McpHarness;
  let listed: McpHarness;
  let anyOrigin: McpHarness;
  let local: McpHarness;
  let u: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    u = await makeUser(t.db, await makeTeam(t.db));
    byDefault = await startMcp(t.db, { PUBLIC_BASE_URL: 'https://meet.example.org/' });
    listed = await startMcp(t.db, { MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' });
    anyOrigin = await startMcp(t.db, { MCP_ALLOWED_ORIGINS: '*' });
    local = await startMcp(t.db); // PUBLIC_BASE_URL's default, http://localhost:3000
  });
  afterAll(async () => {
    await Promise.all([byDefault.close(), listed.close(), anyOrigin.close(), local.close()]);
    await t.drop();
  });

  const auth = () => ({ authorization: `Bearer ${u.key}` });

  it('refuses another site and the opaque origin null with 403 and a JSON-RPC error, on every method', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'https://meet.example.org.evil.example',
      'http://meet.example.org',
      'not a url',
    ]) {
      const res = await send(byDefault.url, { ...auth(), origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(JSON.parse(res.body)).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringContaining('Origin') },
      });
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
    expect(testConfig({ PUBLIC_BASE_URL: 'https://meet.example.org/base/' }).mcpAllowedOrigins).toEqual([
      'https://meet.example.org',
    ]);
    expect(testConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example/, http://b.example:8080' }).mcpAllowedOrigins).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(testConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example,*' }).mcpAllowedOrigins).toEqual(['*']);
    expect(() => testConfig({ MCP_ALLOWED_ORIGINS: 'evil' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => testConfig({ MCP_ALLOWED_ORIGINS: 'null' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(testConfig({}).mcpLoopbackOrigins).toBe(true);
    expect(testConfig({ MCP_ALLOWED_ORIGINS: 'http://localhost:5173' }).mcpLoopbackOrigins).toBe(false);
  });

  describe("DNS-rebinding protection (the MCP conformance suite's dns-rebinding-protection cases)", () => {
    const port = () => new URL(local.url).port;
    /** The suite's probe: Host and Origin naming the same host[:port]. */
    const probe = (hostAndPort: string, extra: Record<string, string> = {}) =>
      send(local.url, { ...auth(), host: hostAndPort, origin: `http://${hostAndPort}`, ...extra });

    it("accepts valid localhost Host and Origin headers, on the server's port and any other, and the initialized notification after", async () => {
      for (const host of [
        `127.0.0.1:${port()}`,
        `localhost:${port()}`,
        `[::1]:${port()}`,
        '127.0.0.1:3000',
        'localhost:6274',
        'localhost',
      ]) {
        const res = await probe(host);
        expect([host, res.status]).toEqual([host, 200]);
        expect(JSON.parse(res.body)).toMatchObject({
          jsonrpc: '2.0',
          id: 1,
          result: { protocolVersion: '2025-06-18' },
        });
        const initialized = await send(local.url, { ...auth(), host, origin: `http://${host}` }, 'POST', {
          jsonrpc: '2.0',
          method: 'notifications/initialized',
        });
        expect([host, initialized.status]).toEqual([host, 202]);
      }
      // `make dev` prints http://127.0.0.1:3000/mcp: a page on that very origin, or another local tool's.
      for (const origin of [
        'http://127.0.0.1:3000',
        'http://localhost:6274',
        'https://localhost:8443',
        'http://[::1]:5173',
        'HTTP://LOCALHOST:3000',
      ]) {
        expect([origin, (await send(local.url, { ...auth(), origin })).status]).toEqual([origin, 200]);
      }
      // Through the SDK's own client, which sends Host but no Origin.
      expect((await local.call(u.key, 'svc_get_user')).isError).toBe(false);
    });

    it('refuses a foreign Host and Origin (the rebinding attack), a foreign Host alone, and a foreign Origin alone, with 403', async () => {
      const refusedBy = async (headers: Record<string, string>, rule: RegExp) => {
        const res = await send(local.url, { ...auth(), ...headers });
        expect([headers, res.status]).toEqual([headers, 403]);
        expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(rule) } });
      };
      await refusedBy({ host: 'evil.example.com', origin: 'http://evil.example.com' }, /Host/);
      await refusedBy({ host: `evil.example.com:${port()}`, origin: `http://evil.example.com:${port()}` }, /Host/);
      await refusedBy({ host: 'evil.example.com' }, /Host/);
      await refusedBy({ host: 'evil.example.com', origin: `http://127.0.0.1:${port()}` }, /Host/);
      for (const origin of [
        'http://evil.example.com',
        `http://evil.example.com:${port()}`,
        'http://localhost.evil.example',
        'http://127.0.0.1.nip.io:3000',
        'ftp://localhost',
        'null',
      ]) {
        await refusedBy({ host: `127.0.0.1:${port()}`, origin }, /Origin/);
      }
      // Without a key too: the guard answers before authentication.
      expect((await send(local.url, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status).toBe(403);
    });

    it('a loopback origin is one of the defaults only: a configured MCP_ALLOWED_ORIGINS is exact', async () => {
      expect((await send(byDefault.url, { ...auth(), origin: 'http://127.0.0.1:3000' })).status).toBe(200);
      expect((await send(listed.url, { ...auth(), origin: 'http://127.0.0.1:3000' })).status).toBe(403);
      expect((await send(listed.url, { ...auth(), origin: 'http://localhost:5173' })).status).toBe(200);
    });
  });
});
