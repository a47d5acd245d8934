/**
 * The built-in authorization server refuses what it must: replayed codes, PKCE mismatches, plain or
 * missing PKCE, unregistered redirect URIs, reused refresh tokens (revoking the whole family), bad
 * registrations, forged forms; and its metadata, consent choices and revocation behave.
 */
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import {
  authorizationUrl,
  callWithToken,
  challengeParams,
  INIT,
  metricValue,
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
  toolCall,
} from './support';

describe('built-in authorization server: refusals and edges', () => {
  let t: TestDatabase;
  let mcp: OAuthHarness;
  let alice: TestUser;
  let clientId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    alice = await makeUser(t.db, team, { name: 'Alice' });
    mcp = await startOAuthMcp(t.db, { OAUTH_MODE: 'builtin' });
    clientId = (await registerTestClient(mcp.base)).body.client_id;
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  /** Sign in and consent for a fresh PKCE pair; returns the code and its verifier. */
  async function authorize(opts: { scopes?: string[]; state?: string } = {}) {
    const pkce = pkcePair();
    const url = authorizationUrl(mcp.base, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      scope: 'meetings:read meetings:write',
      resource: mcp.mcpUrl,
      state: opts.state ?? 'st-123',
    });
    const landed = await signInAndConsent(new TestBrowser(), url, alice.key, { scopes: opts.scopes });
    expect(landed.searchParams.get('state')).toBe(opts.state ?? 'st-123');
    return { code: landed.searchParams.get('code')!, verifier: pkce.verifier };
  }

  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    tokenRequest(mcp.base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      resource: mcp.mcpUrl,
      ...extra,
    });
  const refresh = (refreshToken: string) =>
    tokenRequest(mcp.base, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  describe('metadata', () => {
    it('publishes RFC 8414 metadata with S256 only, public clients and the endpoints under PUBLIC_BASE_URL', async () => {
      const res = await fetch(`${mcp.base}/.well-known/oauth-authorization-server`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        issuer: mcp.base,
        authorization_endpoint: `${mcp.base}/oauth/authorize`,
        token_endpoint: `${mcp.base}/oauth/token`,
        registration_endpoint: `${mcp.base}/oauth/register`,
        revocation_endpoint: `${mcp.base}/oauth/revoke`,
        revocation_endpoint_auth_methods_supported: ['none'],
        jwks_uri: `${mcp.base}/oauth/jwks`,
        scopes_supported: ['meetings:read', 'meetings:write', 'admin'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
      const prm = (await (await fetch(`${mcp.base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        authorization_servers: string[];
        resource: string;
      };
      expect(prm).toMatchObject({ resource: mcp.mcpUrl, authorization_servers: [mcp.base] });
      const preflight = await fetch(`${mcp.base}/oauth/token`, { method: 'OPTIONS' });
      expect(preflight.status).toBe(204);
    });
  });

  describe('registration', () => {
    it('registers a public client: a client id, no secret, whatever auth method was asked for', async () => {
      const { status, body } = await registerTestClient(mcp.base, {
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'meetings:read openid',
      });
      expect(status).toBe(201);
      expect(body).toMatchObject({
        client_id: expect.stringMatching(/^mcp_/),
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT_URI],
        scope: 'meetings:read',
      });
      expect(body.client_secret).toBeUndefined();
      expect(await t.db('oauth_clients').where({ id: body.client_id }).first()).toBeDefined();
    });

    it.each([
      ['no redirect URI', { redirect_uris: [] }, 'invalid_client_metadata'],
      ['plain http to a remote host', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
      ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
      ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
      ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
      [
        '11 redirect URIs',
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) },
        'invalid_client_metadata',
      ],
      ['a 201-character name', { client_name: 'n'.repeat(201) }, 'invalid_client_metadata'],
      ['the client_credentials grant', { grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    ])('refuses %s', async (_what, metadata, error) => {
      const { status, body } = await registerTestClient(mcp.base, metadata);
      expect(status).toBe(400);
      expect(body.error).toBe(error);
      expect(body.error_description).toEqual(expect.any(String));
    });

    it('accepts the limits themselves: 10 redirect URIs, a 200-character name, loopback http and a native-app scheme', async () => {
      const { status } = await registerTestClient(mcp.base, {
        client_name: 'n'.repeat(200),
        redirect_uris: [
          'http://127.0.0.1:33418/',
          'cursor://anysphere.cursor-retrieval/oauth/callback',
          ...Array.from({ length: 8 }, (_, i) => `https://app.example/cb${i}`),
        ],
      });
      expect(status).toBe(201);
    });
  });

  describe('authorization request', () => {
    const base = () => ({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's1',
    });

    it('shows an error page, and never redirects, for an unregistered redirect URI or an unknown client', async () => {
      for (const redirect_uri of [
        'http://localhost:53682/other',
        'http://127.0.0.1:53682/callback',
        `${REDIRECT_URI}/`,
        'https://evil.example/callback',
      ]) {
        const res = await fetch(authorizationUrl(mcp.base, { ...base(), redirect_uri }), { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toMatch(/did not register/);
      }
      const unknown = await fetch(authorizationUrl(mcp.base, { ...base(), client_id: 'mcp_nope' }), {
        redirect: 'manual',
      });
      expect(unknown.status).toBe(400);
      expect(unknown.headers.get('location')).toBeNull();
    });

    it.each([
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', /S256/],
      ['no PKCE method', { code_challenge_method: undefined }, 'invalid_request', /S256/],
      ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request', /code_challenge is required/],
      ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request', /43 characters/],
      ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target', /resource/],
      ['only unknown scopes', { scope: 'openid profile' }, 'invalid_scope', /meetings:read/],
      ['response_type token', { response_type: 'token' }, 'unsupported_response_type', /code/],
    ])('sends %s back to the client as an error', async (_what, override, error, description) => {
      const res = await fetch(authorizationUrl(mcp.base, { ...base(), ...override }), { redirect: 'manual' });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT_URI);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('error_description')).toMatch(description);
      expect(back.searchParams.get('state')).toBe('s1');
      expect(back.searchParams.get('iss')).toBe(mcp.base);
    });

    it('serves the sign-in page without framing, caching or referrers, and binds it to the browser', async () => {
      const res = await fetch(authorizationUrl(mcp.base, base()), { redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('set-cookie')).toMatch(/^mi_oauth_browser=[^;]+; Path=\/oauth; HttpOnly; SameSite=Lax$/);
      expect(await res.text()).toContain('Test Client');
    });

    it('escapes the client name (registered by anyone)', async () => {
      const evil = (await registerTestClient(mcp.base, { client_name: '<script>alert(1)</script>' })).body.client_id;
      const page = await (await fetch(authorizationUrl(mcp.base, { ...base(), client_id: evil }))).text();
      expect(page).not.toContain('<script>');
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  });

  describe('sign-in and consent pages', () => {
    const start = async (browser: TestBrowser) => {
      const page = await browser.get(
        authorizationUrl(mcp.base, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        }),
      );
      return parseForm(await page.text());
    };

    it('refuses a sign-in form posted from another browser or with a forged CSRF token', async () => {
      const browser = new TestBrowser();
      const form = await start(browser);
      const otherBrowser = new TestBrowser();
      const noCookie = await otherBrowser.post(form.action, { ...form.fields, api_key: alice.key });
      expect(noCookie.status).toBe(400);
      expect(await noCookie.text()).toMatch(/not opened in this browser/);
      const forged = await browser.post(form.action, { ...form.fields, csrf: 'x'.repeat(32), api_key: alice.key });
      expect(forged.status).toBe(400);
      // The genuine form still works afterwards.
      expect((await browser.post(form.action, { ...form.fields, api_key: alice.key })).status).toBe(303);
    });

    it('says a wrong API key is wrong, and spends the request after five', async () => {
      const browser = new TestBrowser();
      let form = await start(browser);
      for (let i = 1; i <= 4; i++) {
        const res = await browser.post(form.action, { ...form.fields, api_key: 'mi_aaaaaaaa_' + 'x'.repeat(43) });
        expect(res.status).toBe(401);
        const html = await res.text();
        expect(html).toMatch(/unknown or revoked/);
        form = parseForm(html);
      }
      const fifth = await browser.post(form.action, { ...form.fields, api_key: 'wrong' });
      expect(await fifth.text()).toMatch(/Too many wrong API keys/);
      const after = await browser.post(form.action, { ...form.fields, api_key: alice.key });
      expect(after.status).toBe(400);
      expect(await metricValue('oauth_sign_ins_total', { outcome: 'bad_credentials' })).toBeGreaterThanOrEqual(5);
    });

    it('sends a denial back as access_denied, with the state, and audits it', async () => {
      const url = authorizationUrl(mcp.base, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'deny-me',
      });
      const landed = await signInAndConsent(new TestBrowser(), url, alice.key, { decision: 'deny' });
      expect(Object.fromEntries(landed.searchParams)).toMatchObject({
        error: 'access_denied',
        state: 'deny-me',
        iss: mcp.base,
      });
      expect(landed.searchParams.get('code')).toBeNull();
      const row = await t
        .db('audit_log')
        .where({ action: 'oauth.consent', actor_user_id: alice.id })
        .orderBy('id', 'desc')
        .first();
      expect(row.details).toMatchObject({ decision: 'deny' });
    });

    it('treats allowing with every scope unticked as a denial', async () => {
      const url = authorizationUrl(mcp.base, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      });
      const landed = await signInAndConsent(new TestBrowser(), url, alice.key, { scopes: [] });
      expect(landed.searchParams.get('error')).toBe('access_denied');
      expect(landed.searchParams.get('error_description')).toMatch(/no scope/);
    });

    it('lets the user grant read only: the token cannot call a write tool (403) but reads', async () => {
      const { code, verifier } = await authorize({ scopes: ['meetings:read'] });
      const tokens = await exchange(code, verifier);
      expect(tokens.body.scope).toBe('meetings:read');
      const res = await postMcp(
        mcp.mcpUrl,
        toolCall('svc_update_meeting_title', { meetingId: 'x', title: 'Renamed title' }),
        tokens.body.access_token,
      );
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers.get('www-authenticate'))).toMatchObject({
        error: 'insufficient_scope',
        scope: 'meetings:write',
      });
      expect((await callWithToken(mcp.mcpUrl, tokens.body.access_token, 'svc_get_user')).data).toMatchObject({
        user_id: alice.id,
      });
    });
  });

  describe('token endpoint', () => {
    it('issues tokens once for a code; a replayed code is refused and revokes what the first use obtained', async () => {
      const { code, verifier } = await authorize();
      const first = await exchange(code, verifier);
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.body).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'meetings:read meetings:write',
      });
      expect((await postMcp(mcp.mcpUrl, INIT, first.body.access_token)).status).toBe(200);

      const replay = await exchange(code, verifier);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/already used/),
      });
      // The first exchange's tokens are revoked with it.
      expect((await refresh(first.body.refresh_token)).body.error).toBe('invalid_grant');
      const res = await postMcp(mcp.mcpUrl, INIT, first.body.access_token);
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers.get('www-authenticate')).error_description).toMatch(/revoked/);
      const audit = await t.db('audit_log').where({ action: 'oauth.family_revoke' }).orderBy('id', 'desc').first();
      expect(audit.details).toMatchObject({ reason: 'code_replay' });
    });

    it('refuses a PKCE verifier that does not match, and the code is spent by the attempt', async () => {
      const { code, verifier } = await authorize();
      const wrong = await exchange(code, pkcePair().verifier);
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/code_verifier does not match/),
      });
      expect((await exchange(code, verifier)).body.error).toBe('invalid_grant');
    });

    it('refuses a code without a verifier, with another redirect URI, for another client, or expired', async () => {
      const a = await authorize();
      expect(
        (await tokenRequest(mcp.base, { grant_type: 'authorization_code', code: a.code, client_id: clientId })).body,
      ).toMatchObject({ error: 'invalid_request' });
      const b = await authorize();
      expect((await exchange(b.code, b.verifier, { redirect_uri: 'http://localhost:53682/other' })).body).toMatchObject(
        { error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri/) },
      );
      const c = await authorize();
      const otherClient = (await registerTestClient(mcp.base)).body.client_id;
      expect((await exchange(c.code, c.verifier, { client_id: otherClient })).body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/another client/),
      });
      const d = await authorize();
      await t
        .db('oauth_codes')
        .whereNull('used_at')
        .update({ expires_at: new Date(Date.now() - 1000) });
      expect((await exchange(d.code, d.verifier)).body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/expired/),
      });
      expect((await exchange('mic_' + 'x'.repeat(43), d.verifier)).body.error).toBe('invalid_grant');
    });

    it('refuses an unknown client (401 invalid_client) and other grant types', async () => {
      const unknown = await tokenRequest(mcp.base, {
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'y',
        client_id: 'mcp_unknown',
      });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toBe('invalid_client');
      const cc = await tokenRequest(mcp.base, { grant_type: 'client_credentials', client_id: clientId });
      expect(cc.status).toBe(400);
      expect(cc.body.error).toBe('unsupported_grant_type');
    });

    it('rotates refresh tokens; reusing a spent one revokes the whole family, newer tokens included', async () => {
      const { code, verifier } = await authorize();
      const first = (await exchange(code, verifier)).body;
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect((await postMcp(mcp.mcpUrl, INIT, second.body.access_token)).status).toBe(200);

      const before = await metricValue('oauth_refusals_total', { reason: 'refresh_reuse' });
      const reuse = await refresh(first.refresh_token);
      expect(reuse.status).toBe(400);
      expect(reuse.body).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/already used/),
      });
      expect(await metricValue('oauth_refusals_total', { reason: 'refresh_reuse' })).toBe(before + 1);

      // The newer refresh token and its access token stop working too.
      expect((await refresh(second.body.refresh_token)).body.error).toBe('invalid_grant');
      expect((await postMcp(mcp.mcpUrl, INIT, second.body.access_token)).status).toBe(401);
      const audit = await t.db('audit_log').where({ action: 'oauth.family_revoke' }).orderBy('id', 'desc').first();
      expect(audit.details).toMatchObject({ reason: 'refresh_token_reuse', user_id: alice.id });
      expect(audit.team_id).toBe(alice.teamId);
    });

    it('lets a refresh narrow the scopes but never widen them', async () => {
      const { code, verifier } = await authorize({ scopes: ['meetings:read'] });
      const first = (await exchange(code, verifier)).body;
      const widen = await tokenRequest(mcp.base, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
        scope: 'meetings:read meetings:write',
      });
      expect(widen.body.error).toBe('invalid_scope');
      // The refused request did not spend the token.
      const same = await tokenRequest(mcp.base, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
        scope: 'meetings:read',
      });
      expect(same.status).toBe(200);
      expect(same.body.scope).toBe('meetings:read');
    });
  });

  describe('revocation', () => {
    it('revokes the grant of a refresh token, or of an access token, for the client that holds it', async () => {
      const a = await authorize();
      const ta = (await exchange(a.code, a.verifier)).body;
      const revoke = (token: string, client = clientId) =>
        fetch(`${mcp.base}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, client_id: client }),
        });

      // Another client cannot revoke it (and learns nothing: 200 either way).
      const other = (await registerTestClient(mcp.base)).body.client_id;
      expect((await revoke(ta.refresh_token, other)).status).toBe(200);
      expect((await postMcp(mcp.mcpUrl, INIT, ta.access_token)).status).toBe(200);

      expect((await revoke(ta.refresh_token)).status).toBe(200);
      expect((await postMcp(mcp.mcpUrl, INIT, ta.access_token)).status).toBe(401);

      const b = await authorize();
      const tb = (await exchange(b.code, b.verifier)).body;
      expect((await revoke(tb.access_token)).status).toBe(200);
      expect((await refresh(tb.refresh_token)).body.error).toBe('invalid_grant');
      expect((await revoke('not-a-token')).status).toBe(200);
    });
  });

  it('keeps API keys working beside OAuth, and refuses a key-shaped token that is not a key as before', async () => {
    expect((await callWithToken(mcp.mcpUrl, alice.key, 'svc_get_user')).data).toMatchObject({ user_id: alice.id });
    const res = await postMcp(mcp.mcpUrl, INIT, 'mi_aaaaaaaa_' + 'x'.repeat(43));
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate'))).toMatchObject({
      error: 'invalid_token',
      resource_metadata: `${mcp.base}/.well-known/oauth-protected-resource/mcp`,
    });
  });
});
