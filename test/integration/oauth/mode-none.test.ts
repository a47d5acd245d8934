/** OAUTH_MODE=none (the default): API keys only, no OAuth surface, nothing that points clients to one. */
import { makeTeam, makeUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { challengeParams, INIT, OAuthHarness, postMcp, startOAuthMcp } from './support';

describe('OAuth disabled', () => {
  let t: TestDatabase;
  let mcp: OAuthHarness;

  beforeAll(async () => {
    t = await createTestDatabase();
    mcp = await startOAuthMcp(t.db, {});
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it('serves no metadata and names none in its challenges', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/jwks',
    ]) {
      expect((await fetch(`${mcp.base}${path}`)).status).toBe(404);
    }
    const res = await postMcp(mcp.mcpUrl, INIT);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="meeting-intelligence"');
  });

  it('treats any bearer value as an API key', async () => {
    const jwtLike = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const res = await postMcp(mcp.mcpUrl, INIT, jwtLike);
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate'))).toEqual({
      realm: 'meeting-intelligence',
      error: 'invalid_token',
      error_description: expect.stringMatching(/API key/),
    });
    const team = await makeTeam(t.db);
    const bob = await makeUser(t.db, team);
    expect((await postMcp(mcp.mcpUrl, INIT, bob.key)).status).toBe(200);
  });
});
