/**
 * The graphql role's HTTP surface: POST /graphql (Apollo Server 5 on express 5) beside /healthz,
 * /readyz and /metrics. Every operation needs an API key as `Authorization: Bearer <key>`; a missing
 * or bad key answers 401 with extensions.code auth_failed. Introspection, the landing page and field
 * suggestions exist only when GRAPHQL_INTROSPECTION is on; documents deeper than GRAPHQL_MAX_DEPTH or
 * larger than GRAPHQL_MAX_QUERY_BYTES are refused before they run.
 */
import express, { NextFunction, Request, Response } from 'express';
import type { Express } from 'express';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { ApolloServerPluginDisableSuggestions } from '@apollo/server/plugin/disableSuggestions';
import { apiKeyCall, authenticateApiKey } from '../core/people';
import { isServiceError, ServiceError } from '../platform/errors';
import { allowanceHeaders, tooManyRequests } from '../core/limits';
import { createBaseApp, ReadinessCheck, requestLog } from '../platform/http';
import { logger } from '../platform/logger';
import { depthLimitRule } from './depth-limit';
import { formatError, toGraphQLError } from './errors';
import { errorLogPlugin } from './error-log-plugin';
import { countRefused, metricsPlugin } from './metrics-plugin';
import { scopePlugin } from './scopes';
import { storableTextPlugin } from './storable-text';
import { GraphqlContext, GraphqlDeps, resolvers } from './resolvers';
import type { Client } from '@temporalio/client';
import { temporalWorkflows } from '../../workflows/client';
import { typeDefs } from './schema';
import { MODULES } from './modules';

export interface GraphqlApp {
  app: Express;
  /** Stop Apollo (after the HTTP server stopped taking requests). */
  stop(): Promise<void>;
}

/** Variables ride along with the document; this bounds the whole body, the document has its own limit. */
const BODY_LIMIT = '1mb';

function bearerToken(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  return m?.[1];
}

const graphqlErrorBody = (e: ServiceError) => ({
  errors: [{ message: e.message, extensions: { code: e.code, ...e.details } }],
});

/** Refuse an oversized document before Apollo parses it. */
function documentSizeLimit(maxBytes: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    const query = (req.body as { query?: unknown } | undefined)?.query;
    if (typeof query === 'string' && Buffer.byteLength(query, 'utf8') > maxBytes) {
      countRefused('invalid_arguments');
      const e = new ServiceError(
        'invalid_arguments',
        `the GraphQL document is larger than ${maxBytes} bytes; send a smaller query`,
        { field: 'query', rule: `at most ${maxBytes} bytes` },
      );
      res.status(413).json(graphqlErrorBody(e));
      return;
    }
    next();
  };
}

/** What the role runs on; the workflow port is made here, from the Temporal client, for core. */
export interface GraphqlAppDeps {
  db: GraphqlDeps['db'];
  config: GraphqlDeps['config'];
  /** Absent: uploads, live meetings and redelivery answer feature_unavailable. */
  temporal?: Client;
  /** The question embedder (search by meaning); absent: questions are answered by their words. */
  embedder?: GraphqlDeps['embedder'];
}

export async function createGraphqlApp(appDeps: GraphqlAppDeps, checks: ReadinessCheck[]): Promise<GraphqlApp> {
  const { temporal, ...rest } = appDeps;
  const deps: GraphqlDeps = {
    ...rest,
    workflows: temporal ? temporalWorkflows(temporal, rest.config.temporal.taskQueue) : undefined,
  };
  const { config } = deps;
  const introspection = config.graphql.introspection;
  const apollo = new ApolloServer<GraphqlContext>({
    typeDefs: [typeDefs, ...MODULES.map((m) => m.typeDefs)],
    resolvers: [resolvers, ...MODULES.map((m) => m.resolvers)] as never,
    introspection,
    validationRules: [depthLimitRule(config.graphql.maxDepth)],
    formatError,
    includeStacktraceInErrorResponses: false,
    // Automatic persisted queries would keep an unbounded cache of documents per pod; not needed here.
    persistedQueries: false,
    // The role owns SIGINT/SIGTERM (platform/http.ts onShutdownSignal) and stops Apollo in order.
    stopOnTerminationSignals: false,
    plugins: [
      metricsPlugin(),
      scopePlugin(),
      errorLogPlugin(),
      // Every string argument of every operation: no NUL characters or lone surrogates (400 invalid_arguments).
      storableTextPlugin(),
      introspection
        ? ApolloServerPluginLandingPageLocalDefault({ footer: false })
        : ApolloServerPluginLandingPageDisabled(),
      ...(introspection ? [] : [ApolloServerPluginDisableSuggestions()]),
    ],
    logger: {
      debug: (m) => logger.debug(m),
      info: (m) => logger.info(m),
      warn: (m) => logger.warn(m),
      error: (m) => logger.error(m),
    },
  });
  await apollo.start();

  const context = async ({ req, res }: { req: Request; res: Response }): Promise<GraphqlContext> => {
    const log = requestLog(res);
    try {
      // One operation a request, counted against the key's allowance as it is looked up (0: no limit).
      if (!config.rateLimitPerMinute)
        return { principal: await authenticateApiKey(deps.db, bearerToken(req)), deps: { ...deps, log } };
      const { principal, allowance } = await apiKeyCall(deps.db, bearerToken(req), 1, config.rateLimitPerMinute);
      res.set(allowanceHeaders(allowance));
      if (!allowance.admitted) throw tooManyRequests(allowance);
      return { principal, deps: { ...deps, log } };
    } catch (e) {
      if (isServiceError(e)) throw toGraphQLError(e);
      log.error({ err: e }, 'authentication failed');
      throw toGraphQLError(
        new ServiceError('internal_error', 'The service failed to authenticate this request; try again.'),
      );
    }
  };

  const app = createBaseApp(checks, { trustProxy: config.trustProxy });
  const handler = expressMiddleware(apollo, { context });
  app.post('/graphql', express.json({ limit: BODY_LIMIT }), documentSizeLimit(config.graphql.maxQueryBytes), handler);
  // Apollo reads req.body even on GET (the landing page); an empty parsed body satisfies it.
  if (introspection) app.get('/graphql', express.json(), handler);
  else {
    app.get('/graphql', (_req, res) => {
      res.set('Allow', 'POST');
      res.status(405).json(
        graphqlErrorBody(
          new ServiceError('invalid_arguments', 'POST GraphQL requests as JSON to /graphql', {
            field: 'method',
            rule: 'POST only',
          }),
        ),
      );
    });
  }

  // Body-parser failures (malformed JSON, too large) answer in GraphQL's error shape, not HTML.
  app.use((err: Error & { type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.parse.failed') {
      countRefused('invalid_arguments');
      return res.status(400).json(
        graphqlErrorBody(
          new ServiceError('invalid_arguments', 'the request body is not valid JSON', {
            field: 'body',
            rule: 'JSON',
          }),
        ),
      );
    }
    if (err.type === 'entity.too.large') {
      countRefused('invalid_arguments');
      return res.status(413).json(
        graphqlErrorBody(
          new ServiceError('invalid_arguments', `the request body is larger than ${BODY_LIMIT}`, {
            field: 'body',
            rule: `at most ${BODY_LIMIT}`,
          }),
        ),
      );
    }
    requestLog(res).error({ err }, 'unhandled error');
    res
      .status(500)
      .json(
        graphqlErrorBody(
          new ServiceError(
            'internal_error',
            'The service failed to complete this request; it has been logged. Try again.',
          ),
        ),
      );
  });

  return { app, stop: () => apollo.stop() };
}
