import { readFileSync } from 'node:fs';
import { Client, Connection, ConnectionOptions } from '@temporalio/client';
import type { Config } from './config';

export function temporalConnectionOptions(config: Config): ConnectionOptions {
  const tls = config.temporal.tls;
  return {
    address: config.temporal.address,
    tls: tls
      ? {
          clientCertPair: { crt: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) },
          serverRootCACertificate: tls.caPath ? readFileSync(tls.caPath) : undefined,
          serverNameOverride: tls.serverName,
        }
      : undefined,
  };
}

/**
 * A lazy client: the API pods start even while Temporal is unreachable (readiness says so), and
 * connect on first use.
 */
export function createTemporalClient(config: Config): { client: Client; connection: Connection } {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return { client, connection };
}

export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.healthService.check({}));
}
