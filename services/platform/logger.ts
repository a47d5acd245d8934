import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';

/** Request-scoped context: every log line written while serving a request carries its id. */
const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'meeting-intelligence', role: process.env.MI_ROLE },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  mixin: () => {
    const ctx = requestContext.getStore();
    return ctx ? { requestId: ctx.requestId } : {};
  },
  redact: { paths: ['authorization', 'req.headers.authorization', '*.secret', '*.apiKey'], censor: '[redacted]' },
});

export function withRequestContext<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
