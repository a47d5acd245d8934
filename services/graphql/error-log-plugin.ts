/**
 * Logs the operations that failed on the service's side, once per error, with the request's id
 * (contextValue.deps.log). Refusals of the request (bad arguments, not found, auth) are answers, not
 * failures, and are not logged.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { logger } from '../platform/logger';
import { isUnexpected } from './errors';
import type { GraphqlContext } from './resolvers';

export function errorLogPlugin(): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          const log = contextValue?.deps?.log ?? logger;
          for (const e of errors)
            if (isUnexpected(e)) log.error({ err: unwrapResolverError(e) }, 'graphql operation failed');
        },
      };
    },
  };
}
