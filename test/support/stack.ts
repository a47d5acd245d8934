/**
 * Provisioning of the real services the tests run against, in this order:
 *   1. services named in the environment (DATABASE_URL / TEST_DATABASE_URL, TEMPORAL_ADDRESS);
 *   2. local binaries this harness starts itself (initdb/pg_ctl, `temporal server start-dev`);
 *   3. testcontainers, where a Docker engine answers (a developer's laptop).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { findPostgresBin, MissingBinaryError, startLocalPostgres } from '../../services/devstack/postgres';
import { findTemporal, startLocalTemporal } from '../../services/devstack/temporal';
import { freePort } from '../../services/devstack/ports';

export interface Provisioned {
  url: string;
  source: 'environment' | 'local' | 'testcontainers';
  stop(): Promise<void>;
}

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export async function provisionPostgres(): Promise<Provisioned> {
  const fromEnv = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (fromEnv) return { url: fromEnv, source: 'environment', stop: async () => {} };
  try {
    findPostgresBin();
    const dir = mkdtempSync(join(tmpdir(), 'mi-test-pg-'));
    chmodSync(dir, 0o755); // the cluster runs as the postgres user when we are root
    const pg = startLocalPostgres({ dataDir: join(dir, 'data'), port: await freePort(), durable: false });
    return {
      url: pg.url,
      source: 'local',
      stop: async () => {
        pg.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (!(e instanceof MissingBinaryError)) throw e;
    if (!(await dockerAnswers())) throw e;
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:16-alpine')
    .withUsername('postgres')
    .withPassword('postgres')
    .start();
  const url = container.getConnectionUri().replace(/\/[^/]*$/, '/postgres');
  return { url, source: 'testcontainers', stop: async () => void (await container.stop()) };
}

export async function provisionTemporal(): Promise<Provisioned> {
  if (process.env.TEMPORAL_ADDRESS)
    return { url: process.env.TEMPORAL_ADDRESS, source: 'environment', stop: async () => {} };
  const binary = findTemporal();
  if (binary) {
    const t = await startLocalTemporal({ binary, port: await freePort() });
    return { url: t.address, source: 'local', stop: t.stop };
  }
  if (!(await dockerAnswers())) {
    throw new Error(
      'No Temporal server: set TEMPORAL_ADDRESS, or build the CLI with `make tools`, or run a Docker engine.',
    );
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('temporalio/temporal:1.5.1')
    .withCommand(['server', 'start-dev', '--ip', '0.0.0.0', '--headless'])
    .withExposedPorts(7233)
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  return {
    url: `${container.getHost()}:${container.getMappedPort(7233)}`,
    source: 'testcontainers',
    stop: async () => void (await container.stop()),
  };
}
