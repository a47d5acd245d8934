import { readFileSync } from 'node:fs';
import { ALL_TOOLS } from '../../../services/mcp/tools';
import { DOC, renderDoc } from '../../../scripts/tool-reference';

describe('docs/tools.md', () => {
  it('is up to date with the tool table (regenerate: npx tsx scripts/tool-reference.ts --write)', () => {
    const current = readFileSync(DOC, 'utf8');
    expect(renderDoc(current)).toBe(current);
  });

  it('documents every tool, thirty of them', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(ALL_TOOLS).toHaveLength(30);
    for (const t of ALL_TOOLS) expect(doc).toContain(`### ${t.name}`);
  });
});
