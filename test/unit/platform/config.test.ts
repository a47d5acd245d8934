import { ConfigError, loadConfig, SETTINGS } from '../../../services/platform/config';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

function problems(env: Record<string, string>, role: 'mcp' | 'graphql' | 'worker' | 'cli' = 'mcp'): string[] {
  try {
    loadConfig(env, role);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
}

describe('configuration', () => {
  it('applies documented defaults', () => {
    const c = loadConfig(base, 'mcp');
    expect(c.mcpPort).toBe(3000);
    expect(c.temporal).toMatchObject({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'meeting-intelligence',
    });
    expect(c.webhook.retryScheduleMs).toEqual([0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(c.webhook.timeoutMs).toBe(15000);
  });

  it('takes RATE_LIMIT_PER_MINUTE 0 as the limit off, 1 as the least allowance', () => {
    expect(loadConfig(base, 'mcp').rateLimitPerMinute).toBe(600);
    expect(loadConfig({ ...base, RATE_LIMIT_PER_MINUTE: '0' }, 'mcp').rateLimitPerMinute).toBe(0);
    expect(loadConfig({ ...base, RATE_LIMIT_PER_MINUTE: '1' }, 'mcp').rateLimitPerMinute).toBe(1);
  });

  it('gives the embedding activities 1 slot unless WORKER_MAX_CONCURRENT_EMBEDDINGS says more, never 0', () => {
    expect(loadConfig(base, 'mcp').workerConcurrency.maxEmbeddings).toBe(1);
    expect(loadConfig({ ...base, WORKER_MAX_CONCURRENT_EMBEDDINGS: '2' }, 'mcp').workerConcurrency.maxEmbeddings).toBe(
      2,
    );
    expect(problems({ ...base, WORKER_MAX_CONCURRENT_EMBEDDINGS: '0' })).toEqual([
      expect.stringMatching(/^WORKER_MAX_CONCURRENT_EMBEDDINGS must be at least 1, got 0/),
    ]);
  });

  it('names a missing required variable and what it expects', () => {
    expect(problems({})).toEqual([expect.stringMatching(/^DATABASE_URL is required: PostgreSQL connection URL/)]);
  });

  it('requires SECRETS_KEY only for the roles that encrypt', () => {
    expect(problems(base, 'mcp')).toEqual([]);
    expect(problems(base, 'graphql')).toEqual([expect.stringMatching(/^SECRETS_KEY is required/)]);
    expect(problems({ ...base, SECRETS_KEY: 'short' }, 'worker')).toEqual([
      expect.stringMatching(/^SECRETS_KEY must be 32 bytes/),
    ]);
    expect(loadConfig({ ...base, SECRETS_KEY: 'ab'.repeat(32) }, 'worker').secretsKey).toHaveLength(32);
  });

  it.each([
    ['MCP_PORT', 'abc', /^MCP_PORT must be a whole number, got "abc"/],
    ['DATABASE_POOL_MAX', '0', /^DATABASE_POOL_MAX must be at least 1, got 0/],
    ['GRAPHQL_INTROSPECTION', 'maybe', /^GRAPHQL_INTROSPECTION must be true or false/],
    ['WEBHOOK_TIMEOUT', '15 parsecs', /^WEBHOOK_TIMEOUT must be a duration/],
    ['WEBHOOK_RETRY_SCHEDULE', '0s,,soon', /^WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations/],
    ['LOG_LEVEL', 'loud', /^LOG_LEVEL must be one of fatal, error/],
    ['PUBLIC_BASE_URL', 'not a url', /^PUBLIC_BASE_URL must be a URL/],
    ['RATE_LIMIT_PER_MINUTE', '-1', /^RATE_LIMIT_PER_MINUTE must be at least 0, got -1/],
  ])('names malformed %s and what it expects', (name, value, message) => {
    expect(problems({ ...base, [name]: value })).toEqual([expect.stringMatching(message)]);
  });

  it('reports every problem at once, and never prints a secret', () => {
    const found = problems({ DATABASE_URL: 'secret-password-not-a-url', MCP_PORT: 'x' });
    expect(found).toHaveLength(2);
    expect(found.join('\n')).not.toContain('secret-password');
  });

  it('wants Temporal mTLS certificate and key together', () => {
    expect(problems({ ...base, TEMPORAL_TLS_CERT_PATH: '/c.pem' })).toEqual([
      expect.stringMatching(/TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH must be set together/),
    ]);
  });

  it('documents every setting', () => {
    for (const [name, s] of Object.entries(SETTINGS)) expect(`${name}: ${s.doc}`).toMatch(/: .{10,}/);
  });

  it('exits the process with the message when a role starts with bad config', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), 'services/mcp/main.ts'], {
      env: { PATH: process.env.PATH, MCP_PORT: 'abc' },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/DATABASE_URL is required/);
    expect(r.stderr).toMatch(/MCP_PORT must be a whole number/);
  });
});
