/**
 * The house's rules, so they cannot be outgrown unnoticed again: no source file over 450 lines (a file
 * that long holds more than one thing: split it by what its parts hold), services/core's top holds its
 * domains and rooms only (what every domain shares lives in a folder that names it), and one token
 * estimator (services/core/limits/tokens.ts) for every budgeted answer.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const MAX_LINES = 450;

/** Tracked and new (not ignored) files under the folders given. */
function sourceFiles(...dirs: string[]): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...dirs], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.split('\n').filter((f) => /\.(ts|tsx|js|cjs|mjs)$/.test(f) && fs.existsSync(path.join(ROOT, f)));
}

const lineCount = (file: string): number => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

describe('the house', () => {
  const files = sourceFiles('services', 'workflows');

  it(`has no source file over ${MAX_LINES} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    const long = files.filter((f) => lineCount(f) > MAX_LINES).map((f) => `${f}: ${lineCount(f)}`);
    expect(long).toEqual([]);
  });

  it('keeps only folders and its design notes at the top of services/core', () => {
    const top = fs.readdirSync(path.join(ROOT, 'services/core'), { withFileTypes: true });
    const loose = top.filter((e) => !e.isDirectory() && e.name !== 'README.md').map((e) => e.name);
    expect(loose).toEqual([]);
    for (const room of ['access', 'audit', 'input', 'limits', 'ports']) {
      expect(fs.existsSync(path.join(ROOT, 'services/core', room, 'index.ts'))).toBe(true);
    }
  });

  it('estimates tokens in one place', () => {
    // A rate of bytes or characters per token of an answer written anywhere else is a second estimator
    // (the embedder's tokenizer, which counts real tokens of its input, is not one).
    const rate = /BYTES_PER_TOKEN\s*=|\.length \/ [0-9.]+\)/;
    const estimators = files.filter((f) => rate.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(estimators).toEqual(['services/core/limits/tokens.ts']);
  });
});
