import { Config, loadConfig, Role } from '../../services/platform/config';

/** A validated Config for a test, from the same parser the service uses. */
export function testConfig(env: Record<string, string> = {}, role: Role = 'cli'): Config {
  return loadConfig(
    {
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      SECRETS_KEY: '0'.repeat(64),
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_LEVEL: 'silent',
      ...env,
    },
    role,
  );
}
