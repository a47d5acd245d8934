/** What the benches share: command-line options and the environment they start the roles with. */
import { randomBytes } from 'node:crypto';

/** `--<name> N`: a whole number of 1 or more, or `fallback` when the option is absent. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number of 1 or more`);
  return n;
}

/**
 * The environment the benches start the service's roles with: their database, a Temporal task queue of
 * their own (`<queue>-<random>`, so runs never pick up each other's tasks), a fresh secrets key, loopback
 * allowed (the benches' receivers and media servers listen there), warnings only. `extra` adds or
 * overrides (a pool size, a limit, a feature's setting).
 */
export function rolesEnv(
  databaseUrl: string,
  temporalAddress: string,
  queue: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `${queue}-${randomBytes(3).toString('hex')}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}
