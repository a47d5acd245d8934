import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { Express, NextFunction, Request, Response } from 'express';
import { Logger, logger, requestLogger } from './logger';
import { httpDuration, httpRequests, registry } from './metrics';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/**
 * An express app with what every role serves: a request id on every request and log line,
 * request metrics by route template, /healthz (alive), /readyz (dependencies reachable), /metrics.
 */
export function createBaseApp(
  checks: ReadinessCheck[],
  opts: { trustProxy?: boolean | number | string[] } = {},
): Express {
  const app = express();
  app.disable('x-powered-by');
  // Only proxies we trust may name the client's address (X-Forwarded-For); anyone else could forge it.
  app.set('trust proxy', opts.trustProxy ?? ['loopback', 'uniquelocal']);
  app.use(requestIdAndMetrics);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          await c.check();
          return { name: c.name, ok: true };
        } catch (e) {
          return { name: c.name, ok: false, error: e instanceof Error ? e.message : String(e) };
        }
      }),
    );
    const ready = results.every((r) => r.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unready', checks: results });
  });

  app.get('/metrics', async (_req, res) => {
    res.set('content-type', registry.contentType);
    res.send(await registry.metrics());
  });
  return app;
}

function requestIdAndMetrics(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.header('x-request-id');
  const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', requestId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    // The matched route template keeps label values bounded; unmatched paths share one label.
    const route = (req.route?.path as string | undefined) ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    httpRequests.inc({ route, method: req.method, status: String(res.statusCode) });
    httpDuration.observe({ route, method: req.method }, seconds);
  });
  res.locals.requestId = requestId;
  next();
}

/** The logger for this request's lines (they carry its x-request-id), made on first use: most requests log nothing. */
export function requestLog(res: Response): Logger {
  return (res.locals.log ??= requestLogger(String(res.locals.requestId ?? 'none')));
}

export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once('error', reject);
    // A slow client must not hold a connection forever; Node's defaults are generous but bounded.
    server.keepAliveTimeout = 65_000;
  });
}

export function serverUrl(server: Server, host = '127.0.0.1'): string {
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('server is not listening on a TCP port');
  return `http://${host}:${addr.port}`;
}

/**
 * Graceful stop: stop accepting connections, let in-flight requests finish (up to the grace period),
 * then run the closers (worker shutdown, pools) in order. Idle keep-alive sockets are closed at once so
 * they do not hold the process open.
 */
export async function closeServers(servers: Server[], graceMs: number): Promise<void> {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            logger.warn({ graceMs }, 'grace period over; closing remaining connections');
            server.closeAllConnections();
          }, graceMs);
          force.unref();
          // Keep-alive sockets turn idle as their last response finishes; close each as it does.
          const sweep = setInterval(() => server.closeIdleConnections(), 100);
          server.close(() => {
            clearTimeout(force);
            clearInterval(sweep);
            resolve();
          });
          server.closeIdleConnections();
        }),
    ),
  );
}

export type Closer = () => Promise<void> | void;

/**
 * Wire SIGTERM and SIGINT to one orderly shutdown; a second signal exits at once. While it runs, a
 * timer keeps the event loop alive (some closes await native work that holds no handle, and Node
 * would otherwise exit half-way), and a deadline ends a shutdown that hangs.
 */
export function onShutdownSignal(shutdown: () => Promise<void>, deadlineMs = 60_000): void {
  let stoppingSince = 0;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince) {
      // Ctrl-C reaches every process of the group, and wrappers (npx, tsx, make) relay it again:
      // a repeat within a moment is the same request. A later one means "stop now".
      if (Date.now() - stoppingSince < 3000) return;
      logger.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'shutting down');
    setInterval(() => {}, 1000);
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, deadlineMs);
    shutdown()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((e) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
