/**
 * What tools/list costs a model: every conversation with the server pays it before its first
 * question, so the whole listing (names, descriptions, input and output schemas, annotations) of a
 * caller who sees every tool stays within a budget of o200k tokens.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { FEATURE_FLAGS, type Principal } from '../../../services/core/access';
import { toolsFor } from '../../../services/mcp/server';
import { ALL_TOOLS } from '../../../services/mcp/tools';

const TOOL_LIST_TOKENS = 10_000;

const everyTool = { flags: [...FEATURE_FLAGS] } as unknown as Principal;
const listing = () => ({ tools: toolsFor(everyTool).map((t) => t.listing) });

describe('tools/list', () => {
  it('lists every tool to a caller with every feature flag', () => {
    expect(
      listing()
        .tools.map((t) => t.name)
        .sort(),
    ).toEqual(ALL_TOOLS.map((t) => t.name).sort());
  });

  it(`costs at most ${TOOL_LIST_TOKENS.toLocaleString('en-US')} tokens`, () => {
    expect(countTokens(JSON.stringify(listing()))).toBeLessThanOrEqual(TOOL_LIST_TOKENS);
  });

  it('names every top-level field of each answer with its type', () => {
    for (const { listing: tool, def } of toolsFor(everyTool)) {
      const fields = Object.keys(def.output ?? {}).sort();
      const listed = tool.outputSchema as { properties: Record<string, { type?: unknown; anyOf?: unknown }> };
      expect([tool.name, Object.keys(listed.properties).sort()]).toEqual([tool.name, fields]);
      for (const [name, field] of Object.entries(listed.properties))
        expect([tool.name, name, Boolean(field.type ?? field.anyOf)]).toEqual([tool.name, name, true]);
    }
  });
});
