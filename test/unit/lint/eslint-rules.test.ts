/**
 * Temporal's workflow rules as lint rules (eslint.config.mjs): the deterministic workflow files may not
 * import Node built-ins or call timers; the activities and workflows/client.ts may. ESLint's Node API
 * (new ESLint + lintText) runs in a child node process: it loads the .mjs config with import(), which
 * jest's module sandbox does not allow without --experimental-vm-modules.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../../..');

const LINT_SNIPPETS = `
const { ESLint } = require('eslint');
const path = require('node:path');
(async () => {
  // The probes are not files of the TypeScript project: the one type-aware rule is off for them.
  const probes = { files: ['**/lint-probe.ts'], languageOptions: { parserOptions: { projectService: false } }, rules: { '@typescript-eslint/no-floating-promises': 'off' } };
  const eslint = new ESLint({ cwd: process.cwd(), overrideConfigFile: path.resolve('eslint.config.mjs'), overrideConfig: [probes] });
  const out = [];
  for (const { code, file } of JSON.parse(process.argv[1])) {
    const [result] = await eslint.lintText(code, { filePath: path.resolve(file) });
    out.push(result.messages.map((m) => m.ruleId ?? 'fatal: ' + m.message));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** The rule ids ESLint reports for each snippet, linted as if it were the file named. */
async function lint(cases: { code: string; file: string }[]): Promise<string[][]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', LINT_SNIPPETS, JSON.stringify(cases)], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

const IMPORTS_FS =
  "import { readFileSync } from 'node:fs';\nexport const read = (): string => readFileSync('/etc/hostname', 'utf8');\n";
const CALLS_SET_TIMEOUT =
  'export async function nap(): Promise<void> {\n  await new Promise((resolve) => setTimeout(resolve, 10));\n}\n';
const TYPE_ONLY =
  "import type { Knex } from 'knex';\nimport type { ServiceDeps } from '../services/core/ports';\nimport { LIVE_LIMITS } from '../services/core/live/protocol';\n" +
  'export type All = [Knex, ServiceDeps, typeof LIVE_LIMITS];\n';
const RUNTIME_CORE = "import { listRules } from '../services/core/rules';\nexport const f = listRules;\n";
const FLOATING = 'async function write(): Promise<void> {}\nexport function answer(): void {\n  write();\n}\n';
const AWAITED_OR_VOID =
  'async function write(): Promise<void> {}\nexport async function answer(): Promise<void> {\n  await write();\n  // fire and forget: write() never throws\n  void write();\n}\n';

describe('workflow lint rules', () => {
  let results: string[][];
  beforeAll(async () => {
    results = await lint([
      { code: IMPORTS_FS, file: 'workflows/lint-probe.ts' },
      { code: CALLS_SET_TIMEOUT, file: 'workflows/lint-probe.ts' },
      { code: IMPORTS_FS, file: 'workflows/activities/lint-probe.ts' },
      { code: CALLS_SET_TIMEOUT, file: 'workflows/activities/lint-probe.ts' },
      { code: CALLS_SET_TIMEOUT, file: 'workflows/client.ts' },
      { code: TYPE_ONLY, file: 'workflows/lint-probe.ts' },
      { code: RUNTIME_CORE, file: 'workflows/lint-probe.ts' },
      // Files of the project (their text replaced), so the type-aware rule runs.
      { code: FLOATING, file: 'services/core/ports/deps.ts' },
      { code: FLOATING, file: 'workflows/contracts.ts' },
      { code: AWAITED_OR_VOID, file: 'services/core/ports/deps.ts' },
      { code: FLOATING, file: 'services/platform/sql.ts' },
    ]);
  }, 60_000);

  it('reports a Node built-in import in a workflow file', () => {
    expect(results[0]).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('reports setTimeout in a workflow file', () => {
    expect(results[1]).toContain('no-restricted-globals');
  });

  it('allows both in an activity and in workflows/client.ts', () => {
    expect(results[2]).toEqual([]);
    expect(results[3]).toEqual([]);
    expect(results[4]).toEqual([]);
  });

  it('allows type-only imports and the pure live protocol in a workflow file, not a run-time import of core', () => {
    expect(results[5]).toEqual([]);
    expect(results[6]).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('reports a promise nobody awaits in services/core and workflows/, not an awaited or void one, and only there', () => {
    expect(results[7]).toEqual(['@typescript-eslint/no-floating-promises']);
    expect(results[8]).toEqual(['@typescript-eslint/no-floating-promises']);
    expect(results[9]).toEqual([]);
    expect(results[10]).toEqual([]);
  });
});

describe("a core domain's index.ts", () => {
  it('names its exports: export * is reported there, named exports pass, other files may re-export all', async () => {
    const [all, named, elsewhere] = await lint([
      { code: "export * from './channels';\n", file: 'services/core/channels/index.ts' },
      { code: "export { listChannels } from './channels';\n", file: 'services/core/channels/index.ts' },
      { code: "export * from './channels';\n", file: 'services/core/channels/lint-probe.ts' },
    ]);
    expect(all).toContain('no-restricted-syntax');
    expect(named).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 60_000);
});
