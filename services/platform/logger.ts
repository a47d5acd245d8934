import pino from 'pino';

export type Logger = pino.Logger;

export const logger: Logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'meeting-intelligence', role: process.env.MI_ROLE },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: ['authorization', 'req.headers.authorization', '*.secret', '*.apiKey'], censor: '[redacted]' },
});

/**
 * The logger of one request: every line it writes carries the request's id. Transports hand it down
 * explicitly (`deps.log`) rather than through AsyncLocalStorage, because on Node 20 an active
 * AsyncLocalStorage installs promise hooks that cost every request a noticeable share of an MCP
 * call's CPU (services/platform/README.md, "Request logger"), for the sake of rare error lines.
 */
export function requestLogger(requestId: string): Logger {
  return logger.child({ requestId });
}
