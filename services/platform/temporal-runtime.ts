/**
 * The Temporal worker's process-wide Runtime, installed once before any worker exists. By default it
 * takes SIGINT/SIGTERM for itself and ends the process after draining workers, before our own
 * shutdown (HTTP servers, pools, the dev stack) could run: we own signals, so it gets none. It also
 * exports the SDK's own metrics (temporal_*) for Prometheus when TEMPORAL_METRICS_BIND_ADDRESS is set.
 */
import { Runtime } from '@temporalio/worker';
import type { Config } from './config';

let installed = false;

export function installTemporalRuntime(config: Pick<Config, 'temporalMetricsBindAddress'>): void {
  if (installed) return;
  installed = true;
  const bindAddress = config.temporalMetricsBindAddress;
  Runtime.install({
    shutdownSignals: [],
    telemetryOptions: bindAddress ? { metrics: { prometheus: { bindAddress } } } : undefined,
  });
}
