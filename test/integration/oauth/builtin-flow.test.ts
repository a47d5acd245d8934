/**
 * The whole OAuth flow against the built-in authorization server, driven by the MCP SDK's own client:
 * 401 → protected-resource metadata → authorization server metadata → dynamic registration → PKCE →
 * sign-in and consent pages (the test plays the browser) → code → token → tool call → an expired
 * access token refreshed (rotation) → tool call again. Then signing-key rotation.
 */
import { decodeProtectedHeader } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decode } from '@toon-format/toon';
import { rotateSigningKey } from '../../../services/oauth';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import {
  callWithToken,
  MemoryOAuthProvider,
  metricValue,
  OAuthHarness,
  REDIRECT_URI,
  signInAndConsent,
  startOAuthMcp,
  TestBrowser,
} from './support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('built-in authorization server with the SDK client', () => {
  let t: TestDatabase;
  let mcp: OAuthHarness;
  /** A second server on the same database with the default (1 h) access-token lifetime. */
  let long: OAuthHarness;
  let alice: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    alice = await makeUser(t.db, team, { name: 'Alice' });
    // Short-lived access tokens and no clock skew, so the test can let one expire and watch the refresh.
    mcp = await startOAuthMcp(t.db, { OAUTH_MODE: 'builtin', OAUTH_ACCESS_TOKEN_TTL: '2s', OAUTH_CLOCK_SKEW: '0s' });
    long = await startOAuthMcp(t.db, { OAUTH_MODE: 'builtin' });
  });
  afterAll(async () => {
    await mcp.close();
    await long.close();
    await t.drop();
  });

  async function connect(provider: MemoryOAuthProvider) {
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), { authProvider: provider }));
    return client;
  }

  const getUser = async (client: Client) => {
    const res = (await client.callTool({ name: 'svc_get_user', arguments: {} })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return { isError: Boolean(res.isError), data: decode(res.content[0].text) as Record<string, unknown> };
  };

  it('signs in, calls a tool, and keeps working across an access-token refresh', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT_URI);
    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), { authProvider: provider });

    // No token yet: the SDK discovers, registers and sends the user to the authorization URL.
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^mcp_/);
    expect((provider.client as { client_secret?: string }).client_secret).toBeUndefined();
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${mcp.base}/oauth/authorize`);
    expect(Object.fromEntries(authUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.client!.client_id,
      code_challenge_method: 'S256',
      redirect_uri: REDIRECT_URI,
      resource: mcp.mcpUrl,
      // The SDK asks for every scope the server lists; a member (alice) is granted all but admin.
      scope: 'meetings:read meetings:write admin',
    });

    // The user signs in with an API key and allows access; the browser lands on the redirect URI.
    const landed = await signInAndConsent(new TestBrowser(), authUrl.toString(), alice.key);
    expect(landed.origin + landed.pathname).toBe(REDIRECT_URI);
    expect(landed.searchParams.get('iss')).toBe(mcp.base);
    const code = landed.searchParams.get('code')!;
    expect(code).toMatch(/^mic_/);

    await transport.finishAuth(code);
    const tokens = provider.tokens()!;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 2, scope: 'meetings:read meetings:write' });
    expect(tokens.refresh_token).toMatch(/^mirt_/);
    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });

    const client = await connect(provider);
    const me = await getUser(client);
    expect(me.isError).toBe(false);
    expect(me.data).toMatchObject({ user_id: alice.id, email: alice.email });

    // Let the access token expire: the next call gets 401, the SDK refreshes and retries by itself.
    const issuedBefore = await metricValue('oauth_tokens_issued_total', { grant_type: 'refresh_token' });
    await sleep(3100);
    const again = await getUser(client);
    expect(again.isError).toBe(false);
    expect(again.data).toMatchObject({ user_id: alice.id });
    expect(provider.savedTokens).toHaveLength(2);
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await metricValue('oauth_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(issuedBefore + 1);
    await client.close();

    // Every step of the sign-in left its audit row.
    const actions = (await t
      .db('audit_log')
      .where({ actor_user_id: alice.id })
      .orderBy('id')
      .pluck('action')) as string[];
    expect(actions).toEqual(['oauth.sign_in', 'oauth.consent', 'oauth.token_issue', 'oauth.token_issue']);
    const issues = await t
      .db('audit_log')
      .where({ action: 'oauth.token_issue', actor_user_id: alice.id })
      .orderBy('id')
      .pluck('details');
    expect(issues.map((d: { grant_type: string }) => d.grant_type)).toEqual(['authorization_code', 'refresh_token']);
    expect(await metricValue('oauth_sign_ins_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('rotates the signing key without breaking tokens signed by the old one', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT_URI);
    const transport = new StreamableHTTPClientTransport(new URL(long.mcpUrl), { authProvider: provider });
    await expect(new Client({ name: 'c', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const landed = await signInAndConsent(new TestBrowser(), provider.authorizationUrl!.toString(), alice.key);
    await transport.finishAuth(landed.searchParams.get('code')!);
    const oldToken = provider.tokens()!.access_token;
    const oldKid = decodeProtectedHeader(oldToken).kid;

    const rotated = await rotateSigningKey(t.db, long.config, { alg: 'RS256' });
    expect(rotated.retired).toEqual([oldKid]);

    // The old key stays published while its tokens can live; the new key signs from now on.
    const jwks = (await (await fetch(`${long.base}/oauth/jwks`)).json()) as { keys: { kid: string; alg: string }[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());
    expect(jwks.keys.find((k) => k.kid === rotated.kid)?.alg).toBe('RS256');
    const wellKnown = (await (await fetch(`${long.base}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
    expect(wellKnown.keys).toHaveLength(2);
    expect(
      await t.db('audit_log').where({ action: 'oauth.signing_key_rotate', target_id: rotated.kid }).first(),
    ).toBeDefined();

    expect((await callWithToken(long.mcpUrl, oldToken, 'svc_get_user')).isError).toBe(false);

    // A token issued after the rotation carries the new key id and works too (refresh issues one now).
    const res = await fetch(`${long.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: provider.tokens()!.refresh_token!,
        client_id: provider.client!.client_id,
      }),
    });
    expect(res.status).toBe(200);
    const fresh = ((await res.json()) as { access_token: string }).access_token;
    expect(decodeProtectedHeader(fresh)).toMatchObject({ kid: rotated.kid, alg: 'RS256' });
    expect((await callWithToken(long.mcpUrl, fresh, 'svc_get_user')).data).toMatchObject({ user_id: alice.id });
  });
});
