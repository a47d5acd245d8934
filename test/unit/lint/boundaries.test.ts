/**
 * The import boundaries of .dependency-cruiser.cjs: the code keeps them, and the rules do bite (a tiny
 * fixture with a platform file importing a core domain's inner file, which imports it back). The CLI
 * runs with --output-type json: dependency-cruiser's API is ESM-only, which jest's CommonJS sandbox
 * cannot import.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

/** Cruises `dirs` under `cwd`; depcruise exits non-zero when it finds errors, the JSON is on stdout either way. */
async function cruise(cwd: string, dirs: string[]): Promise<{ violations: Violation[]; modules: number }> {
  const run = promisify(execFile)(process.execPath, [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', ...dirs], {
    cwd,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const { stdout } = await run.catch((e: { stdout?: string }) => {
    if (!e.stdout) throw e;
    return { stdout: e.stdout };
  });
  const out = JSON.parse(stdout);
  return { violations: out.summary.violations, modules: out.summary.totalCruised };
}

describe('import boundaries (.dependency-cruiser.cjs)', () => {
  it('services/ and workflows/ keep every boundary', async () => {
    const { violations, modules } = await cruise(ROOT, ['services', 'workflows']);
    expect(modules).toBeGreaterThan(100);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 120_000);

  describe('on a fixture', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'mi-boundaries-'));
      await mkdir(path.join(dir, 'services/platform'), { recursive: true });
      await mkdir(path.join(dir, 'services/core/meetings'), { recursive: true });
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
      );
      await writeFile(
        path.join(dir, 'services/platform/leak.ts'),
        "import { search } from '../core/meetings/search';\nexport const leak = search;\n",
      );
      await writeFile(
        path.join(dir, 'services/core/meetings/search.ts'),
        "import { leak } from '../../platform/leak';\nexport function search(): unknown {\n  return leak;\n}\n",
      );
      await writeFile(path.join(dir, 'services/core/meetings/index.ts'), "export * from './search';\n");
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('reports the upward import, the way around the index and the cycle', async () => {
      const { violations } = await cruise(dir, ['services']);
      const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
      expect(found).toEqual(
        expect.arrayContaining([
          'platform-is-the-bottom: services/platform/leak.ts → services/core/meetings/search.ts',
          'core-domain-through-its-index: services/platform/leak.ts → services/core/meetings/search.ts',
          expect.stringMatching(/^no-circular: /),
        ]),
      );
    }, 120_000);
  });
});
