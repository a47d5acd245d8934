/**
 * GRAPHQL_MAX_DEPTH as a validation rule that never throws. Depth counts nesting below the root field
 * as graphql-depth-limit did (`transcript { summary { keywords } }` is 2; introspection fields are not
 * counted), but a fragment spread that names no fragment, or closes a cycle, counts 0 here: graphql's
 * own rules (KnownFragmentNames, NoFragmentCycles) report those documents, and a rule that recursed
 * into them overflowed the stack or read undefined and turned an invalid document into a 500.
 * Each fragment's depth is computed once per document, so nested spreads cannot blow up the work.
 */
import {
  FragmentDefinitionNode,
  GraphQLError,
  Kind,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';

export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext) => {
    const fragmentDepth = new Map<string, number>();
    const visiting = new Set<string>();

    const ofFragment = (fragment: FragmentDefinitionNode | undefined | null): number => {
      if (!fragment) return 0; // unknown fragment: KnownFragmentNames reports it
      const name = fragment.name.value;
      const known = fragmentDepth.get(name);
      if (known !== undefined) return known;
      if (visiting.has(name)) return 0; // a cycle: NoFragmentCycles reports it
      visiting.add(name);
      const depth = ofSelections(fragment.selectionSet);
      visiting.delete(name);
      fragmentDepth.set(name, depth);
      return depth;
    };

    const ofSelections = (set: SelectionSetNode): number => {
      let max = 0;
      for (const s of set.selections) {
        let d = 0;
        if (s.kind === Kind.FIELD)
          d = s.selectionSet && !s.name.value.startsWith('__') ? 1 + ofSelections(s.selectionSet) : 0;
        else if (s.kind === Kind.INLINE_FRAGMENT) d = ofSelections(s.selectionSet);
        else if (s.kind === Kind.FRAGMENT_SPREAD) d = ofFragment(context.getFragment(s.name.value));
        if (d > max) max = d;
      }
      return max;
    };

    return {
      OperationDefinition(node) {
        if (ofSelections(node.selectionSet) > maxDepth) {
          context.reportError(
            new GraphQLError(`'${node.name?.value ?? ''}' exceeds maximum operation depth of ${maxDepth}`, {
              nodes: [node],
            }),
          );
        }
        return false;
      },
    };
  };
}
