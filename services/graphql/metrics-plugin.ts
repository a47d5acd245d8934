/**
 * graphql_operations_total{operation,outcome} and graphql_operation_duration_seconds{operation}.
 * The operation label is the root field of the operation when it is one of ours (client-chosen
 * operation names would make the label set unbounded), else "other"; outcome is ok or the error code.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, OperationDefinitionNode } from 'graphql';
import { graphqlDuration, graphqlOperations } from '../platform/metrics';
import { outcomeOf } from './errors';

export const OPERATION_ALLOWLIST = new Set(['uploadAudio', 'transcript', 'transcripts', 'me', '__schema', '__type']);

export function operationLabel(op: OperationDefinitionNode | null | undefined): string {
  const first = op?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  const name = first && first.kind === Kind.FIELD ? first.name.value : undefined;
  if (!name) return 'other';
  if (name === '__schema' || name === '__type') return 'introspection';
  return OPERATION_ALLOWLIST.has(name) ? name : 'other';
}

/** Counts a request refused before it reached Apollo's pipeline (authentication, document size). */
export function countRefused(outcome: string): void {
  graphqlOperations.inc({ operation: 'other', outcome });
}

export function metricsPlugin(): ApolloServerPlugin {
  return {
    async contextCreationDidFail({ error }) {
      countRefused(String((error as { extensions?: { code?: unknown } }).extensions?.code ?? 'internal_error'));
    },
    async requestDidStart() {
      const started = process.hrtime.bigint();
      let operation = 'other';
      return {
        async didResolveOperation({ operation: op }) {
          operation = operationLabel(op);
        },
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          graphqlOperations.inc({ operation, outcome: outcomeOf(errors) });
          graphqlDuration.observe({ operation }, Number(process.hrtime.bigint() - started) / 1e9);
        },
      };
    },
  };
}
