/**
 * One rule for every string argument of every operation: text PostgreSQL can store (no NUL character,
 * no lone UTF-16 surrogate; core/input/validate.ts requireStorableText). Once the operation is resolved and
 * before anything runs, every field and directive it selects (through fragments too) has its argument
 * values coerced as execution will coerce them (graphql-js getArgumentValues, variables included), and
 * every string in them (nested in input objects and lists; IDs too) is checked. The first unstorable
 * one refuses the whole request with 400 invalid_arguments naming its path as the caller wrote it
 * (`input.attendees[0].email`, `sentences[2].text`): nothing of the operation has run, so nothing is
 * stored. A new operation or argument is covered without a line here.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  DocumentNode,
  FragmentDefinitionNode,
  getArgumentValues,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { requireStorableText } from '../core/input';
import { isServiceError, ServiceError } from '../platform/errors';

/** Every string in a coerced argument value, refused (ServiceError) at the first unstorable one. */
function checkValue(path: string, value: unknown): void {
  if (typeof value === 'string') requireStorableText(path, value);
  else if (Array.isArray(value)) value.forEach((v, i) => checkValue(`${path}[${i}]`, v));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) checkValue(`${path}.${k}`, v);
}

function checkArguments(values: Record<string, unknown>): void {
  for (const [name, v] of Object.entries(values)) checkValue(name, v);
}

/**
 * Refuses (throws ServiceError) the first unstorable string among the operation's arguments. Values
 * graphql-js cannot coerce are left to execution, which reports them in its own words.
 */
export function checkOperationText(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rawVariables: Record<string, unknown> | undefined,
): void {
  const vars = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (vars.errors) return;
  const variables = vars.coerced;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  const coerced = (compute: () => Record<string, unknown>) => {
    try {
      return compute();
    } catch (e) {
      if (e instanceof GraphQLError) return {}; // execution reports it
      throw e;
    }
  };

  const pending: (OperationDefinitionNode | FragmentDefinitionNode)[] = [operation];
  const queued = new Set<string>();
  while (pending.length) {
    const root = pending.pop()!;
    const typeInfo = new TypeInfo(schema);
    visit(
      root,
      visitWithTypeInfo(typeInfo, {
        Field(node) {
          const def = typeInfo.getFieldDef();
          if (def && node.arguments?.length) checkArguments(coerced(() => getArgumentValues(def, node, variables)));
        },
        Directive(node) {
          const def = typeInfo.getDirective();
          if (def && node.arguments?.length) checkArguments(coerced(() => getArgumentValues(def, node, variables)));
        },
        FragmentSpread(node) {
          const f = fragments.get(node.name.value);
          if (f && !queued.has(f.name.value)) {
            queued.add(f.name.value);
            pending.push(f);
          }
        },
      }),
    );
  }
}

/** The Apollo plugin: the check above for every operation, answered as a request error (HTTP 400). */
export function storableTextPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          try {
            checkOperationText(schema, document, operation, request.variables);
          } catch (e) {
            if (!isServiceError(e)) throw e;
            throw refusal(e);
          }
        },
      };
    },
  };
}

function refusal(e: ServiceError): GraphQLError {
  return new GraphQLError(e.message, {
    originalError: e,
    extensions: { code: e.code, ...e.details, http: { status: 400 } },
  });
}
