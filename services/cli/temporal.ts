/** Temporal for the CLI: connected within a deadline, or a message naming TEMPORAL_ADDRESS. */
import type { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../platform/config';
import { createTemporalClient, pingTemporal } from '../platform/temporal';
import { CONNECT_DEADLINE_MS, temporalFailure, withinDeadline } from './failures';

export interface CliTemporal {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

/**
 * A client and a worker connection, both known to answer, or a CliFailure within the deadline. The
 * worker's (native) connection is made first: it fails at once on a refused port, where the client's
 * health check would wait out its whole deadline.
 */
export async function connectTemporal(config: Config, deadlineMs = CONNECT_DEADLINE_MS): Promise<CliTemporal> {
  const { connectWorker } = require('../worker/worker') as typeof import('../worker/worker');
  const deadline = Date.now() + deadlineMs;
  const { client, connection } = createTemporalClient(config);
  let nativeConnection: NativeConnection | undefined;
  try {
    nativeConnection = await withinDeadline(connectWorker(config), deadlineMs, 'connecting to Temporal');
    await pingTemporal(connection, Math.max(deadline - Date.now(), 1000));
  } catch (e) {
    await Promise.allSettled([connection.close(), nativeConnection?.close()]);
    throw temporalFailure(e, config.temporal.address);
  }
  const native = nativeConnection;
  return {
    client,
    connection,
    nativeConnection: native,
    close: async () => void (await Promise.allSettled([native.close(), connection.close()])),
  };
}
