/**
 * Access governance on the built-in authorization server: the two RFC corrections (redirect_uri at
 * the token endpoint, loopback redirect URIs on any port) and revocation lineage (a revoked key ends
 * the OAuth sign-ins and page sessions made with it; a deactivated or deleted user ends everything).
 */
import {
  apiKeyCredential,
  createApiKey,
  deactivateUser,
  revokeApiKey,
  startSession,
} from '../../../services/core/people';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import {
  authorizationUrl,
  OAuthHarness,
  parseForm,
  pkcePair,
  postMcp,
  REDIRECT_URI,
  registerTestClient,
  signInAndConsent,
  startOAuthMcp,
  TestBrowser,
  tokenRequest,
  INIT,
} from './support';

describe('built-in authorization server: redirect URIs and revocation lineage', () => {
  let t: TestDatabase;
  let mcp: OAuthHarness;
  let team: Awaited<ReturnType<typeof makeTeam>>;
  let alice: TestUser;
  let clientId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    alice = await makeUser(t.db, team, { name: 'Alice' });
    mcp = await startOAuthMcp(t.db, { OAUTH_MODE: 'builtin' });
    clientId = (await registerTestClient(mcp.base)).body.client_id;
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  async function authorize(key: string, o: { client?: string; redirectUri?: string | null; scope?: string } = {}) {
    const pkce = pkcePair();
    const url = authorizationUrl(mcp.base, {
      response_type: 'code',
      client_id: o.client ?? clientId,
      redirect_uri: o.redirectUri === null ? undefined : (o.redirectUri ?? REDIRECT_URI),
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      scope: o.scope ?? 'meetings:read meetings:write',
      resource: mcp.mcpUrl,
      state: 'st',
    });
    const landed = await signInAndConsent(new TestBrowser(), url, key);
    return { code: landed.searchParams.get('code')!, verifier: pkce.verifier, landed };
  }
  const exchange = (code: string, verifier: string, extra: Record<string, string | undefined> = {}) => {
    const params: Record<string, string> = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      resource: mcp.mcpUrl,
    };
    for (const [k, v] of Object.entries({ redirect_uri: REDIRECT_URI, ...extra })) if (v !== undefined) params[k] = v;
    return tokenRequest(mcp.base, params);
  };
  const refresh = (refreshToken: string, client = clientId) =>
    tokenRequest(mcp.base, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client });
  const mcpStatus = async (token: string) => (await postMcp(mcp.mcpUrl, INIT, token)).status;
  const pageStatus = async (cookie: string) =>
    (await fetch(`${mcp.base}/meetings`, { headers: { cookie: `mi_session=${cookie}` }, redirect: 'manual' })).status;

  /** An OAuth sign-in with this key (tokens) and a page session with it (cookie). */
  async function signInsWith(key: string) {
    const { code, verifier } = await authorize(key);
    const tokens = (await exchange(code, verifier)).body;
    expect(tokens.access_token).toBeDefined();
    const cred = await apiKeyCredential(t.db, key);
    const { token: cookie } = await startSession(t.db, cred.principal, {
      method: 'api_key',
      apiKeyId: cred.keyId,
      ttlMs: 3_600_000,
    });
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    expect(await pageStatus(cookie)).toBe(200);
    return { access: tokens.access_token as string, refresh: tokens.refresh_token as string, cookie };
  }

  describe('redirect_uri at the token endpoint (RFC 6749 §4.1.3)', () => {
    it('refuses a code exchange without redirect_uri when the authorization request carried one, and spends the code', async () => {
      const { code, verifier } = await authorize(alice.key);
      const absent = await exchange(code, verifier, { redirect_uri: undefined });
      expect(absent.status).toBe(400);
      expect(absent.body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/redirect_uri is required/),
      });
      expect((await exchange(code, verifier)).body.error).toBe('invalid_grant');
    });

    it('accepts the same redirect_uri and refuses a different one', async () => {
      const a = await authorize(alice.key);
      expect((await exchange(a.code, a.verifier)).status).toBe(200);
      const b = await authorize(alice.key);
      const other = await exchange(b.code, b.verifier, { redirect_uri: 'http://localhost:53682/other' });
      expect(other.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/differs/) });
    });

    it('accepts an exchange without redirect_uri when the authorization request had none (the only registered URI was used)', async () => {
      const { code, verifier } = await authorize(alice.key, { redirectUri: null });
      expect((await exchange(code, verifier, { redirect_uri: undefined })).status).toBe(200);
    });
  });

  describe('loopback redirect URIs on any port (RFC 8252 §7.3)', () => {
    let loopbackClient: string;
    beforeAll(async () => {
      loopbackClient = (
        await registerTestClient(mcp.base, {
          redirect_uris: [
            'http://127.0.0.1/callback',
            'http://localhost:1234/cb',
            'http://[::1]/cb',
            'https://app.example/cb',
            'https://127.0.0.1/secure',
          ],
        })
      ).body.client_id;
    });
    const open = (redirect_uri: string) =>
      fetch(
        authorizationUrl(mcp.base, {
          response_type: 'code',
          client_id: loopbackClient,
          redirect_uri,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        }),
        { redirect: 'manual' },
      );

    it.each([
      'http://127.0.0.1:53682/callback',
      'http://127.0.0.1/callback',
      'http://localhost:5555/cb',
      'http://localhost:1234/cb',
      'http://[::1]:4444/cb',
    ])('accepts %s', async (uri) => {
      expect((await open(uri)).status).toBe(200);
    });

    it.each([
      ['a changed path', 'http://127.0.0.1:53682/other'],
      ['a changed loopback host', 'http://localhost:53682/callback'],
      ['a changed query', 'http://127.0.0.1:53682/callback?x=1'],
      ['a port on a non-loopback https host', 'https://app.example:8443/cb'],
      ['a port on an https loopback URI', 'https://127.0.0.1:8443/secure'],
      ['http instead of https', 'http://app.example/cb'],
    ])('refuses %s', async (_what, uri) => {
      const res = await open(uri);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('completes a sign-in on the port the app chose; the token request must name that exact URI', async () => {
      const redirectUri = 'http://127.0.0.1:61234/callback';
      const signIn = async () => {
        const pkce = pkcePair();
        const url = authorizationUrl(mcp.base, {
          response_type: 'code',
          client_id: loopbackClient,
          redirect_uri: redirectUri,
          code_challenge: pkce.challenge,
          code_challenge_method: 'S256',
        });
        const landed = await signInAndConsent(new TestBrowser(), url, alice.key);
        expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
        return {
          grant_type: 'authorization_code',
          code: landed.searchParams.get('code')!,
          code_verifier: pkce.verifier,
          client_id: loopbackClient,
        };
      };
      expect(
        (await tokenRequest(mcp.base, { ...(await signIn()), redirect_uri: 'http://127.0.0.1/callback' })).body.error,
      ).toBe('invalid_grant');
      expect((await tokenRequest(mcp.base, { ...(await signIn()), redirect_uri: redirectUri })).status).toBe(200);
    });
  });

  describe('revocation lineage', () => {
    it('revoking a key ends its OAuth access token, its refresh token and its page sessions at once; other sign-ins live on', async () => {
      const leaked = await createApiKey(t.db, { email: alice.email, name: 'leaked' });
      const fromLeaked = await signInsWith(leaked.key);
      const fromOther = await signInsWith(alice.key);
      const r = await revokeApiKey(t.db, leaked.prefix);
      expect(r).toMatchObject({ revoked: true, grants_ended: 1, sessions_ended: 1 });
      expect(await mcpStatus(fromLeaked.access)).toBe(401);
      expect((await refresh(fromLeaked.refresh)).body).toMatchObject({ error: 'invalid_grant' });
      expect(await pageStatus(fromLeaked.cookie)).toBe(303);
      expect(await mcpStatus(fromOther.access)).toBe(200);
      expect((await refresh(fromOther.refresh)).status).toBe(200);
      expect(await pageStatus(fromOther.cookie)).toBe(200);
    });

    it('a key revoked by hand in the database (no grant row touched) still stops its tokens: the grant check follows the key', async () => {
      const k = await createApiKey(t.db, { email: alice.email });
      const s = await signInsWith(k.key);
      await t.db('api_keys').where({ id: k.id }).update({ revoked_at: t.db.fn.now() });
      expect(await mcpStatus(s.access)).toBe(401);
      expect((await refresh(s.refresh)).body.error).toBe('invalid_grant');
      expect(await pageStatus(s.cookie)).toBe(303);
    });

    it('an expired key ends what it signed in', async () => {
      const k = await createApiKey(t.db, { email: alice.email, expires: '1h' });
      const s = await signInsWith(k.key);
      await t
        .db('api_keys')
        .where({ id: k.id })
        .update({ expires_at: t.db.raw("now() - interval '1 second'") });
      expect(await mcpStatus(s.access)).toBe(401);
      expect((await refresh(s.refresh)).body.error).toBe('invalid_grant');
      expect(await pageStatus(s.cookie)).toBe(303);
    });

    it('a sign-in obtains at most the scopes of the key it used', async () => {
      const readOnly = await createApiKey(t.db, { email: alice.email, scopes: ['meetings:read'] });
      const { code, verifier } = await authorize(readOnly.key);
      const tokens = (await exchange(code, verifier)).body;
      expect(tokens.scope).toBe('meetings:read');
      const adminOnly = await createApiKey(t.db, { email: alice.email, scopes: ['meetings:write'] });
      const w = await authorize(adminOnly.key, { scope: 'meetings:read meetings:write' });
      expect((await exchange(w.code, w.verifier)).body.scope).toBe('meetings:write');
      // A key carrying none of the asked scopes cannot sign in for them.
      const browser = new TestBrowser();
      const page = await browser.get(
        authorizationUrl(mcp.base, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
          scope: 'meetings:read',
        }),
      );
      const form = parseForm(await page.text());
      const refused = await browser.post(form.action, { ...form.fields, api_key: adminOnly.key });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toMatch(/does not carry meetings:read/);
    });

    it('admin is granted to team admins only, and team administration over a token needs it', async () => {
      const boss = await makeUser(t.db, team, { role: 'admin', name: 'Boss' });
      const asked = 'meetings:read meetings:write admin';
      // A member asking for admin gets what they may have; a team admin gets admin too (the key carries every scope of its user).
      const member = await authorize(alice.key, { scope: asked });
      expect((await exchange(member.code, member.verifier)).body.scope).toBe('meetings:read meetings:write');
      const withAdmin = await authorize(boss.key, { scope: asked });
      const adminTokens = (await exchange(withAdmin.code, withAdmin.verifier)).body;
      expect(adminTokens.scope).toBe('meetings:read meetings:write admin');
      const withoutAdmin = await authorize(boss.key, { scope: 'meetings:read meetings:write' });
      const plainTokens = (await exchange(withoutAdmin.code, withoutAdmin.verifier)).body;
      // Another teammate's live meetings are team administration: the token without admin is refused, naming the scope.
      const call = {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'svc_get_active_meetings', arguments: { email: alice.email } },
      };
      const allowed = await (await postMcp(mcp.mcpUrl, call, adminTokens.access_token)).text();
      expect(allowed).not.toContain('"isError":true');
      const refused = await (await postMcp(mcp.mcpUrl, call, plainTokens.access_token)).text();
      expect(refused).toContain('"isError":true');
      expect(refused).toMatch(/insufficient_scope.*lacks the admin scope/);
    });

    it('deactivating a user ends every key, OAuth sign-in and page session of theirs', async () => {
      const bob = await makeUser(t.db, team, { name: 'Bob' });
      const s = await signInsWith(bob.key);
      const r = await deactivateUser(t.db, null, { email: bob.email });
      expect(r).toMatchObject({ keys_revoked: 1, grants_ended: 1, sessions_ended: 1 });
      expect(await mcpStatus(s.access)).toBe(401);
      expect((await refresh(s.refresh)).body.error).toBe('invalid_grant');
      expect(await pageStatus(s.cookie)).toBe(303);
      expect(await mcpStatus(bob.key)).toBe(401);
    });

    it('a user deactivated by hand (only the column set) is refused everywhere too', async () => {
      const dan = await makeUser(t.db, team, { name: 'Dan' });
      const s = await signInsWith(dan.key);
      await t.db('users').where({ id: dan.id }).update({ deactivated_at: t.db.fn.now() });
      expect(await mcpStatus(s.access)).toBe(401);
      expect((await refresh(s.refresh)).body.error).toBe('invalid_grant');
      expect(await pageStatus(s.cookie)).toBe(303);
      expect(await mcpStatus(dan.key)).toBe(401);
    });

    it('deleting a user ends every key, OAuth sign-in and page session of theirs', async () => {
      const carol = await makeUser(t.db, team, { name: 'Carol' });
      const s = await signInsWith(carol.key);
      await t.db('users').where({ id: carol.id }).delete();
      expect(await mcpStatus(s.access)).toBe(401);
      expect((await refresh(s.refresh)).body.error).toBe('invalid_grant');
      expect(await pageStatus(s.cookie)).toBe(303);
      expect(await mcpStatus(carol.key)).toBe(401);
    });
  });
});
