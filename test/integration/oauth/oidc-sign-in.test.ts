/**
 * Built-in server with sign-in delegated to an OpenID Connect provider (OIDC_ISSUER): a provider
 * stood up in the test (discovery, JWKS, token endpoint checking PKCE and the client secret; ID tokens
 * minted with jose), the test playing the browser through both servers.
 */
import { FakeOidcProvider } from '../../support/oidc-provider';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import {
  authorizationUrl,
  callWithToken,
  metricValue,
  OAuthHarness,
  parseForm,
  pkcePair,
  REDIRECT_URI,
  registerTestClient,
  startOAuthMcp,
  TestBrowser,
  tokenRequest,
} from './support';

describe('built-in server with sign-in at an OpenID Connect provider', () => {
  let t: TestDatabase;
  let idp: FakeOidcProvider;
  let mcp: OAuthHarness;
  let alice: TestUser;
  let clientId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'pro', flags: [] });
    alice = await makeUser(t.db, team, { name: 'Alice' });
    idp = new FakeOidcProvider('meeting-intel', 'idp-secret');
    await idp.start();
    mcp = await startOAuthMcp(t.db, {
      OAUTH_MODE: 'builtin',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: 'meeting-intel',
      OIDC_CLIENT_SECRET: 'idp-secret',
    });
    clientId = (await registerTestClient(mcp.base)).body.client_id;
  });
  afterAll(async () => {
    await mcp.close();
    await idp.close();
    await t.drop();
  });

  /** Start an authorization; the browser is sent to the provider. Returns the provider's request. */
  async function startAtProvider(browser: TestBrowser, challenge: string) {
    const res = await browser.get(
      authorizationUrl(mcp.base, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'app-state',
      }),
    );
    expect(res.status).toBe(303);
    const atIdp = new URL(res.headers.get('location')!);
    expect(atIdp.origin + atIdp.pathname).toBe(`${idp.issuer}/auth`);
    return Object.fromEntries(atIdp.searchParams);
  }

  const callback = (params: Record<string, string>) => `${mcp.base}/oauth/callback?${new URLSearchParams(params)}`;

  it('signs the user in at the provider (PKCE, nonce, client secret), then asks for consent and issues tokens', async () => {
    const browser = new TestBrowser();
    const app = pkcePair();
    const req = await startAtProvider(browser, app.challenge);
    expect(req).toMatchObject({
      response_type: 'code',
      client_id: 'meeting-intel',
      redirect_uri: `${mcp.base}/oauth/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(req.nonce).toEqual(expect.any(String));

    idp.codes.set('idp-code-1', {
      challenge: req.code_challenge,
      nonce: req.nonce,
      claims: { email: alice.email.toUpperCase() },
    });
    const back = await browser.get(callback({ code: 'idp-code-1', state: req.state }));
    expect(back.status).toBe(303);
    expect(idp.tokenRequests.at(-1)?.get('redirect_uri')).toBe(`${mcp.base}/oauth/callback`);

    const consentPage = await browser.get(back.headers.get('location')!);
    const html = await consentPage.text();
    expect(html).toContain(alice.email);
    const consent = parseForm(html);
    const decided = await browser.post(consent.action, {
      ...consent.fields,
      decision: 'approve',
      scope: ['meetings:read', 'meetings:write'],
    });
    const landed = new URL(decided.headers.get('location')!);
    expect(landed.searchParams.get('state')).toBe('app-state');

    const tokens = await tokenRequest(mcp.base, {
      grant_type: 'authorization_code',
      code: landed.searchParams.get('code')!,
      code_verifier: app.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
    });
    expect(tokens.status).toBe(200);
    expect((await callWithToken(mcp.mcpUrl, tokens.body.access_token, 'svc_get_user')).data).toMatchObject({
      user_id: alice.id,
    });
    const signIn = await t.db('audit_log').where({ action: 'oauth.sign_in', actor_user_id: alice.id }).first();
    expect(signIn.details).toMatchObject({ method: 'oidc' });
  });

  it('refuses a person the service does not know', async () => {
    const browser = new TestBrowser();
    const req = await startAtProvider(browser, pkcePair().challenge);
    idp.codes.set('idp-code-2', {
      challenge: req.code_challenge,
      nonce: req.nonce,
      claims: { email: 'stranger@example.test' },
    });
    const before = await metricValue('oauth_sign_ins_total', { outcome: 'unknown_user' });
    const res = await browser.get(callback({ code: 'idp-code-2', state: req.state }));
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/stranger@example\.test is not a user of this service/);
    expect(await metricValue('oauth_sign_ins_total', { outcome: 'unknown_user' })).toBe(before + 1);
  });

  it('refuses an ID token for another sign-in (nonce) or an unverified email', async () => {
    const browser = new TestBrowser();
    const req = await startAtProvider(browser, pkcePair().challenge);
    idp.codes.set('idp-code-3', {
      challenge: req.code_challenge,
      nonce: 'someone-elses-nonce',
      claims: { email: alice.email },
    });
    const res = await browser.get(callback({ code: 'idp-code-3', state: req.state }));
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/does not belong to this sign-in/);

    const b2 = new TestBrowser();
    const req2 = await startAtProvider(b2, pkcePair().challenge);
    idp.codes.set('idp-code-4', {
      challenge: req2.code_challenge,
      nonce: req2.nonce,
      claims: { email: alice.email, email_verified: false },
    });
    expect((await b2.get(callback({ code: 'idp-code-4', state: req2.state }))).status).toBe(401);
  });

  it('refuses a callback in another browser, and an unknown state', async () => {
    const req = await startAtProvider(new TestBrowser(), pkcePair().challenge);
    idp.codes.set('idp-code-5', { challenge: req.code_challenge, nonce: req.nonce, claims: { email: alice.email } });
    const elsewhere = await new TestBrowser().get(callback({ code: 'idp-code-5', state: req.state }));
    expect(elsewhere.status).toBe(400);
    expect(idp.codes.has('idp-code-5')).toBe(true); // never exchanged
    expect((await new TestBrowser().get(callback({ code: 'x', state: 'unknown' }))).status).toBe(400);
  });

  it('sends a sign-in the provider refused back to the app as access_denied', async () => {
    const browser = new TestBrowser();
    const req = await startAtProvider(browser, pkcePair().challenge);
    const res = await browser.get(callback({ error: 'access_denied', state: req.state }));
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'app-state' });
  });
});
