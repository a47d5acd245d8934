/** The OAUTH_* and OIDC_* settings: defaults, and every combination that cannot work refused by name. */
import { ConfigError, loadConfig, Role } from '../../../services/platform/config';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db', PUBLIC_BASE_URL: 'https://mi.example.com/' };
const KEY = { SECRETS_KEY: 'ab'.repeat(32) };

function problems(env: Record<string, string>, role: Role = 'mcp'): string[] {
  try {
    loadConfig({ ...base, ...env }, role);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
}

describe('OAuth settings', () => {
  it('default to API keys only, with the documented values', () => {
    expect(loadConfig(base, 'mcp').oauth).toEqual({
      mode: 'none',
      issuer: undefined,
      jwksUrl: undefined,
      audience: 'https://mi.example.com/mcp',
      userClaim: 'email',
      clockSkewMs: 60_000,
      accessTokenTtlMs: 3_600_000,
      refreshTokenTtlMs: 30 * 86_400_000,
      signingAlg: 'ES256',
      oidc: undefined,
    });
  });

  it('take the issuer from OAUTH_ISSUER (external) or PUBLIC_BASE_URL (builtin)', () => {
    const ext = loadConfig(
      {
        ...base,
        OAUTH_MODE: 'external',
        OAUTH_ISSUER: 'https://kc.example.com/realms/acme',
        OAUTH_AUDIENCE: 'meeting-intel',
      },
      'mcp',
    ).oauth;
    expect(ext).toMatchObject({
      mode: 'external',
      issuer: 'https://kc.example.com/realms/acme',
      audience: 'meeting-intel',
    });
    const own = loadConfig(
      { ...base, ...KEY, OAUTH_MODE: 'builtin', OIDC_ISSUER: 'https://dex.example.com', OIDC_CLIENT_ID: 'mi' },
      'mcp',
    ).oauth;
    expect(own).toMatchObject({
      mode: 'builtin',
      issuer: 'https://mi.example.com',
      oidc: { issuer: 'https://dex.example.com', clientId: 'mi', clientSecret: '' },
    });
  });

  it.each([
    [{ OAUTH_MODE: 'external' }, /^OAUTH_ISSUER is required with OAUTH_MODE=external/],
    [
      { OAUTH_MODE: 'builtin', ...KEY, OAUTH_ISSUER: 'https://kc.example.com' },
      /^OAUTH_ISSUER applies to OAUTH_MODE=external only/,
    ],
    [
      {
        OAUTH_MODE: 'external',
        OAUTH_ISSUER: 'https://kc.example.com',
        OIDC_ISSUER: 'https://dex.example.com',
        OIDC_CLIENT_ID: 'x',
      },
      /^OIDC_ISSUER applies to OAUTH_MODE=builtin only/,
    ],
    [
      { OAUTH_MODE: 'builtin', ...KEY, OIDC_ISSUER: 'https://dex.example.com' },
      /^OIDC_CLIENT_ID is required with OIDC_ISSUER/,
    ],
    [{ OAUTH_MODE: 'builtin' }, /^SECRETS_KEY is required with OAUTH_MODE=builtin/],
    [{ OAUTH_MODE: 'sometimes' }, /^OAUTH_MODE must be one of none, external, builtin/],
    [{ OAUTH_ISSUER: 'not a url', OAUTH_MODE: 'external' }, /^OAUTH_ISSUER must be a URL/],
    [{ OAUTH_ACCESS_TOKEN_TTL: '0s' }, /^OAUTH_ACCESS_TOKEN_TTL must be at least 1s/],
    [{ OAUTH_REFRESH_TOKEN_TTL: '999ms' }, /^OAUTH_REFRESH_TOKEN_TTL must be at least 1s/],
    [{ OAUTH_CLOCK_SKEW: 'a minute' }, /^OAUTH_CLOCK_SKEW must be a duration/],
    [{ OAUTH_SIGNING_ALG: 'HS256' }, /^OAUTH_SIGNING_ALG must be one of ES256, RS256/],
  ])('refuse %j', (env, message) => {
    expect(problems(env as Record<string, string>)).toEqual([expect.stringMatching(message)]);
  });

  it('accept the boundaries: a 1 s token lifetime, and builtin without SECRETS_KEY for roles that sign nothing', () => {
    expect(problems({ OAUTH_ACCESS_TOKEN_TTL: '1s', OAUTH_REFRESH_TOKEN_TTL: '1s' })).toEqual([]);
    expect(problems({ OAUTH_MODE: 'builtin' }, 'cli')).toEqual([]);
  });
});
