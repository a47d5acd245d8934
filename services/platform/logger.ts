import pino from 'pino';
import type { Config } from './config';

export type Logger = pino.Logger;

/**
 * The process's logger. Its level and role come from Config, applied by configureLogger once the
 * entry point has parsed it (configOrExit, the dev stack, the test harness): nothing is read from the
 * environment at import, so a process logs at the level its own Config says.
 */
export const logger: Logger = pino({
  level: 'info',
  base: { service: 'meeting-intelligence' },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: ['authorization', 'req.headers.authorization', '*.secret', '*.apiKey'], censor: '[redacted]' },
});

/** Apply Config's LOG_LEVEL and name the process's role (`mcp`, `worker`, ...) on every line. */
export function configureLogger(config: Pick<Config, 'logLevel'>, role?: string): void {
  logger.level = config.logLevel;
  if (role) logger.setBindings({ role });
}

/**
 * The logger of one request: every line it writes carries the request's id. Transports hand it down
 * explicitly (`deps.log`) rather than through AsyncLocalStorage, because on Node 20 an active
 * AsyncLocalStorage installs promise hooks that cost every request a noticeable share of an MCP
 * call's CPU (services/platform/README.md, "Request logger"), for the sake of rare error lines.
 */
export function requestLogger(requestId: string): Logger {
  return logger.child({ requestId });
}
