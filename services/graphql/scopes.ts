/**
 * Credential scopes over GraphQL, the same rule as the MCP tools (core/access/rules.ts requireScope, on the
 * scopes the API key carries, Principal.scopes): every root field of a query needs meetings:read,
 * every root field of a mutation meetings:write, unless OPERATION_SCOPES names another scope (admin)
 * or none (null: your own keys and sign-ins, which any valid key may manage). Checked once the
 * operation is resolved, before any resolver runs; a refusal is extensions.code insufficient_scope
 * with extensions.scope naming the missing scope, HTTP 403.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { requireScope, type CredentialScope } from '../core/access';
import { isServiceError } from '../platform/errors';
import type { GraphqlContext } from './resolvers';

/** Root fields whose scope is not their operation type's; modules add theirs. */
export const OPERATION_SCOPES = new Map<string, CredentialScope | null>([
  ['__schema', null],
  ['__type', null],
  ['__typename', null],
]);

function rootFields(set: SelectionSetNode, doc: DocumentNode, seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const s of set.selections) {
    if (s.kind === 'Field') out.push(s.name.value);
    else if (s.kind === 'InlineFragment') out.push(...rootFields(s.selectionSet, doc, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const f = doc.definitions.find((d) => d.kind === 'FragmentDefinition' && d.name.value === s.name.value);
      if (f && f.kind === 'FragmentDefinition') out.push(...rootFields(f.selectionSet, doc, seen));
    }
  }
  return out;
}

/** The scopes an operation needs, one per root field, deduplicated. */
export function operationScopes(op: OperationDefinitionNode, doc: DocumentNode): CredentialScope[] {
  const byType: CredentialScope = op.operation === 'query' ? 'meetings:read' : 'meetings:write';
  const needed = new Set<CredentialScope>();
  for (const field of rootFields(op.selectionSet, doc)) {
    const scope = OPERATION_SCOPES.has(field) ? OPERATION_SCOPES.get(field)! : byType;
    if (scope) needed.add(scope);
  }
  return [...needed];
}

export function scopePlugin(): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (!operation) return;
          try {
            for (const scope of operationScopes(operation, document)) requireScope(contextValue.principal, scope);
          } catch (e) {
            if (!isServiceError(e)) throw e;
            throw new GraphQLError(e.message, {
              originalError: e,
              extensions: { code: e.code, ...e.details, http: { status: 403 } },
            });
          }
        },
      };
    },
  };
}
