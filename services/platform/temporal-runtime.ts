/**
 * The Temporal worker's process-wide Runtime, installed once before any worker exists. By default it
 * takes SIGINT/SIGTERM for itself and ends the process after draining workers, before our own
 * shutdown (HTTP servers, pools, the dev stack) could run: we own signals, so it gets none. It also
 * exports the SDK's own metrics (temporal_*) for Prometheus when TEMPORAL_METRICS_BIND_ADDRESS is set.
 *
 * Its logs (the SDK's TypeScript side, and the native core's, forwarded) go to our JSON logger at the
 * process's LOG_LEVEL rather than to stderr in the SDK's own text format: one log stream, one format.
 */
import { Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Config } from './config';
import { logger, type Logger } from './logger';

let installed = false;

export function installTemporalRuntime(config: Pick<Config, 'temporalMetricsBindAddress' | 'logLevel'>): void {
  if (installed) return;
  installed = true;
  const bindAddress = config.temporalMetricsBindAddress;
  Runtime.install({
    shutdownSignals: [],
    logger: temporalLogger(logger),
    telemetryOptions: {
      // The native core logs at the configured level (other Rust crates only their errors), and hands
      // its lines to `logger` above instead of printing them.
      logging: { filter: { core: coreLevel(config.logLevel), other: 'ERROR' }, forward: {} },
      metrics: bindAddress ? { prometheus: { bindAddress } } : undefined,
    },
  });
}

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The native core's filter for a LOG_LEVEL (it has no level above ERROR; `silent` is pino's to drop). */
export function coreLevel(logLevel: string): LogLevel {
  const levels: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' };
  return levels[logLevel] ?? 'ERROR';
}

/**
 * The SDK's Logger interface over ours. Each line is written through `log` itself (not a child made
 * now), so the level is the one `log` has when the line is written.
 */
export function temporalLogger(log: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    log[PINO_LEVEL[level]]({ component: 'temporal', ...meta }, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}
