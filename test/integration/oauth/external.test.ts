/**
 * OAUTH_MODE=external: access tokens from an identity provider stood up in the test (a local HTTP
 * server publishing OpenID Connect discovery and a JWKS; tokens minted with jose). Good tokens work;
 * every kind of bad token is refused with the right status and WWW-Authenticate challenge.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import {
  callWithToken,
  challengeParams,
  INIT,
  metricValue,
  OAuthHarness,
  postMcp,
  startOAuthMcp,
  toolCall,
} from './support';

interface Idp {
  issuer: string;
  close(): Promise<void>;
}

/** The identity provider: discovery + JWKS only (tokens are minted by the test with the private keys). */
async function startIdp(jwks: () => { keys: JWK[] }): Promise<Idp> {
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/realms/test/.well-known/openid-configuration')
      return json({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` });
    if (req.url === '/realms/test/protocol/openid-connect/certs') return json(jwks());
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/test`;
  return { issuer, close: () => new Promise((r) => server.close(() => r())) };
}

interface SigningKey {
  kid: string;
  alg: 'ES256' | 'RS256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function makeKey(kid: string, alg: SigningKey['alg']): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

describe('external issuer', () => {
  let t: TestDatabase;
  let idp: Idp;
  let mcp: OAuthHarness;
  let alice: TestUser;
  let es: SigningKey;
  let rs: SigningKey;
  let ed: SigningKey;
  /** Published under es's kid, but a different key pair: its signatures do not verify. */
  let impostor: SigningKey;
  /** Never published. */
  let hidden: SigningKey;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    alice = await makeUser(t.db, team, { name: 'Alice' });
    [es, rs, ed, hidden] = await Promise.all([
      makeKey('es-1', 'ES256'),
      makeKey('rs-1', 'RS256'),
      makeKey('ed-1', 'EdDSA'),
      makeKey('hidden-1', 'ES256'),
    ]);
    impostor = { ...(await makeKey('es-1', 'ES256')) };
    idp = await startIdp(() => ({ keys: [es.publicJwk, rs.publicJwk, ed.publicJwk] }));
    // No OAUTH_JWKS_URL: the keys are found through the issuer's OpenID Connect discovery document.
    mcp = await startOAuthMcp(t.db, { OAUTH_MODE: 'external', OAUTH_ISSUER: idp.issuer, OAUTH_CLOCK_SKEW: '30s' });
  });
  afterAll(async () => {
    await mcp.close();
    await idp.close();
    await t.drop();
  });

  interface MintOptions {
    key?: SigningKey;
    claims?: Record<string, unknown>;
    iss?: string;
    aud?: string | string[];
    exp?: number;
    nbf?: number;
    noExp?: boolean;
  }

  const now = () => Math.floor(Date.now() / 1000);

  async function mint(o: MintOptions = {}): Promise<string> {
    const key = o.key ?? es;
    const jwt = new SignJWT({
      email: alice.email,
      email_verified: true,
      scope: 'openid meetings:read meetings:write',
      ...o.claims,
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(o.iss ?? idp.issuer)
      .setAudience(o.aud ?? mcp.mcpUrl)
      .setSubject('kc-user-1')
      .setIssuedAt();
    if (!o.noExp) jwt.setExpirationTime(o.exp ?? now() + 300);
    if (o.nbf !== undefined) jwt.setNotBefore(o.nbf);
    return jwt.sign(key.privateKey);
  }

  async function refused(token: string, description: RegExp) {
    const res = await postMcp(mcp.mcpUrl, INIT, token);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challengeParams(challenge)).toMatchObject({
      error: 'invalid_token',
      resource_metadata: `${mcp.base}/.well-known/oauth-protected-resource/mcp`,
    });
    expect(challengeParams(challenge).error_description).toMatch(description);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(description);
    expect(body.error.message).not.toMatch(/at .*\.ts:\d+|select |insert /i);
  }

  it('publishes protected-resource metadata naming the issuer and the scopes, at both well-known paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${mcp.base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: mcp.mcpUrl,
        authorization_servers: [idp.issuer],
        scopes_supported: ['meetings:read', 'meetings:write', 'admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'Meeting Intelligence MCP server',
      });
    }
    // This server is not an authorization server in external mode.
    expect((await fetch(`${mcp.base}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${mcp.base}/oauth/register`, { method: 'POST' })).status).toBe(404);
  });

  it('answers a request without a token with 401 and a challenge naming the metadata (and no error code)', async () => {
    const res = await postMcp(mcp.mcpUrl, INIT);
    expect(res.status).toBe(401);
    const params = challengeParams(res.headers.get('www-authenticate'));
    expect(params.resource_metadata).toBe(`${mcp.base}/.well-known/oauth-protected-resource/mcp`);
    expect(params.error).toBeUndefined();
  });

  it('accepts a good token signed with ES256, RS256 or EdDSA and acts as the user it names', async () => {
    for (const key of [es, rs, ed]) {
      const res = await callWithToken(mcp.mcpUrl, await mint({ key }), 'svc_get_user');
      expect(res.isError).toBe(false);
      expect(res.data).toMatchObject({ user_id: alice.id, email: alice.email });
    }
    // An audience list that includes this resource is fine; scopes may come as an scp array.
    const listed = await mint({ aud: ['account', mcp.mcpUrl], claims: { scope: undefined, scp: ['meetings:read'] } });
    expect((await callWithToken(mcp.mcpUrl, listed, 'svc_get_user')).isError).toBe(false);
  });

  it('keeps API keys working beside OAuth', async () => {
    const res = await callWithToken(mcp.mcpUrl, alice.key, 'svc_get_user');
    expect(res.data).toMatchObject({ user_id: alice.id });
  });

  it('refuses an expired token, and one not valid yet, beyond the clock skew (30 s) but not within it', async () => {
    const before = await metricValue('oauth_refusals_total', { reason: 'expired' });
    await refused(await mint({ exp: now() - 31 }), /expired/);
    expect(await metricValue('oauth_refusals_total', { reason: 'expired' })).toBe(before + 1);
    await refused(await mint({ nbf: now() + 60 }), /not valid yet/);
    // Inside the skew on both sides: accepted.
    expect((await postMcp(mcp.mcpUrl, INIT, await mint({ exp: now() - 20 }))).status).toBe(200);
    expect((await postMcp(mcp.mcpUrl, INIT, await mint({ nbf: now() + 20 }))).status).toBe(200);
  });

  it('refuses a token without exp', async () => {
    await refused(await mint({ noExp: true }), /exp claim/);
  });

  it('refuses a token from another issuer', async () => {
    await refused(await mint({ iss: 'https://evil.example/realms/test' }), /issuer/);
  });

  it('refuses a token minted for another resource (RFC 8707 audience)', async () => {
    await refused(await mint({ aud: 'https://other.example/mcp' }), /another resource/);
    await refused(await mint({ aud: `${mcp.base}/graphql` }), /another resource/);
  });

  it('refuses a token whose signature does not verify', async () => {
    await refused(await mint({ key: impostor }), /signature/);
    // A well-formed token with one byte of its payload changed.
    const good = await mint();
    const [h, p, s] = good.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, email: 'someone-else@example.test' })).toString('base64url')}.${s}`;
    await refused(forged, /signature/);
  });

  it('refuses alg none and shared-secret HS256 tokens', async () => {
    const unsigned = new UnsecuredJWT({ email: alice.email, scope: 'meetings:read' })
      .setIssuer(idp.issuer)
      .setAudience(mcp.mcpUrl)
      .setExpirationTime('5m')
      .encode();
    await refused(unsigned, /RS256, ES256 or EdDSA/);
    const hs = await new SignJWT({ email: alice.email })
      .setProtectedHeader({ alg: 'HS256', kid: 'es-1' })
      .setIssuer(idp.issuer)
      .setAudience(mcp.mcpUrl)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!!'));
    await refused(hs, /RS256, ES256 or EdDSA/);
  });

  it('refuses a token signed with a key id the issuer does not publish', async () => {
    await refused(await mint({ key: hidden }), /key its issuer does not publish/);
  });

  it('refuses a token for an email the service does not know, and an unverified email', async () => {
    await refused(
      await mint({ claims: { email: 'stranger@example.test' } }),
      /stranger@example\.test is not a user of this service/,
    );
    await refused(await mint({ claims: { email_verified: false } }), /not verified/);
    await refused(await mint({ claims: { email: undefined } }), /no email claim/);
    expect(await metricValue('oauth_refusals_total', { reason: 'unknown_user' })).toBeGreaterThanOrEqual(1);
  });

  it('answers a tool call whose token lacks the scope with 403 insufficient_scope, and serves the tools it has scope for', async () => {
    const readOnly = await mint({ claims: { scope: 'openid meetings:read' } });
    const res = await postMcp(
      mcp.mcpUrl,
      toolCall('svc_update_meeting_title', { meetingId: 'x', title: 'A new title' }),
      readOnly,
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challengeParams(challenge)).toMatchObject({
      error: 'insufficient_scope',
      scope: 'meetings:write',
      resource_metadata: `${mcp.base}/.well-known/oauth-protected-resource/mcp`,
    });
    const body = (await res.json()) as { id: number; error: { message: string } };
    expect(body.id).toBe(7);
    expect(body.error.message).toMatch(/meetings:write/);

    expect((await callWithToken(mcp.mcpUrl, readOnly, 'svc_get_user')).data).toMatchObject({ user_id: alice.id });

    // A token with neither scope may connect (initialize, tools/list) but call nothing.
    const none = await mint({ claims: { scope: 'openid profile' } });
    expect((await postMcp(mcp.mcpUrl, INIT, none)).status).toBe(200);
    const read = await postMcp(mcp.mcpUrl, toolCall('svc_get_user'), none);
    expect(read.status).toBe(403);
    expect(challengeParams(read.headers.get('www-authenticate')).scope).toBe('meetings:read');
    // A write-scoped token calls a write tool through (and core answers for the meeting itself).
    const writeOnly = await mint({ claims: { scope: 'meetings:write' } });
    expect(
      (
        await postMcp(
          mcp.mcpUrl,
          toolCall('svc_update_meeting_title', { meetingId: 'x', title: 'A new title' }),
          writeOnly,
        )
      ).status,
    ).toBe(200);
  });

  it('answers 503, not 401, when the issuer keys cannot be fetched', async () => {
    const down = await startOAuthMcp(t.db, {
      OAUTH_MODE: 'external',
      OAUTH_ISSUER: idp.issuer,
      OAUTH_JWKS_URL: 'http://127.0.0.1:9/certs',
    });
    try {
      const res = await postMcp(down.mcpUrl, INIT, await mint());
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /signing keys could not be loaded/,
      );
    } finally {
      await down.close();
    }
  });
});
