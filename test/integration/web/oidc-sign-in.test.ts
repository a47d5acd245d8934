/**
 * Signing in to the pages at the organization's OpenID Connect provider (OIDC_ISSUER): the provider is
 * stood up in the test, the test plays the browser (cookies kept, redirects followed by hand).
 */
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { FakeOidcProvider } from '../../support/oidc-provider';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { OAuthHarness, startOAuthMcp, TestBrowser } from '../oauth/support';

describe('page sign-in with OpenID Connect', () => {
  let t: TestDatabase;
  let idp: FakeOidcProvider;
  let mcp: OAuthHarness;
  let alice: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    alice = await makeUser(t.db, team, { name: 'Alice' });
    await makeMeeting(t.db, { organizer: alice, title: 'Alice planning' });
    idp = new FakeOidcProvider('meeting-intel', 'idp-secret');
    await idp.start();
    mcp = await startOAuthMcp(t.db, {
      OAUTH_MODE: 'builtin',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: 'meeting-intel',
      OIDC_CLIENT_SECRET: 'idp-secret',
    });
  });
  afterAll(async () => {
    await mcp.close();
    await idp.close();
    await t.drop();
  });

  /** Open the sign-in at the provider; answers the provider's authorization request. */
  async function atProvider(browser: TestBrowser, next = '/meetings') {
    const signIn = await browser.get(`${mcp.base}/signin`);
    expect(await signIn.text()).toContain('Sign in with your organization');
    const res = await browser.get(`${mcp.base}/signin/oidc?next=${encodeURIComponent(next)}`);
    expect(res.status).toBe(303);
    const at = new URL(res.headers.get('location')!);
    expect(at.origin + at.pathname).toBe(`${idp.issuer}/auth`);
    return Object.fromEntries(at.searchParams);
  }

  it('signs a known person in and lands them on the page they asked for', async () => {
    const browser = new TestBrowser();
    const req = await atProvider(browser);
    expect(req).toMatchObject({
      client_id: 'meeting-intel',
      redirect_uri: `${mcp.base}/signin/callback`,
      code_challenge_method: 'S256',
    });
    idp.codes.set('code-1', { challenge: req.code_challenge, nonce: req.nonce, claims: { email: alice.email } });
    const back = await browser.get(
      `${mcp.base}/signin/callback?${new URLSearchParams({ code: 'code-1', state: req.state })}`,
    );
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/meetings');
    expect(browser.cookies.get('mi_session')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = await browser.get(`${mcp.base}/meetings`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('Alice planning');
    const row = await t.db('web_sessions').where({ user_id: alice.id }).first();
    expect(row).toMatchObject({ signed_in_with: 'oidc', api_key_id: null });
  });

  it('refuses a callback whose state is not the one this browser started, and a person the service does not know', async () => {
    const browser = new TestBrowser();
    const req = await atProvider(browser);
    idp.codes.set('code-2', { challenge: req.code_challenge, nonce: req.nonce, claims: { email: alice.email } });
    const forged = await browser.get(
      `${mcp.base}/signin/callback?${new URLSearchParams({ code: 'code-2', state: 'someone-elses' })}`,
    );
    expect(forged.status).toBe(400);
    expect(browser.cookies.get('mi_session')).toBeUndefined();

    const again = new TestBrowser();
    const req2 = await atProvider(again);
    idp.codes.set('code-3', {
      challenge: req2.code_challenge,
      nonce: req2.nonce,
      claims: { email: 'stranger@example.test' },
    });
    const stranger = await again.get(
      `${mcp.base}/signin/callback?${new URLSearchParams({ code: 'code-3', state: req2.state })}`,
    );
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain('is not a user of this service');
    expect(again.cookies.get('mi_session')).toBeUndefined();
  });
});
