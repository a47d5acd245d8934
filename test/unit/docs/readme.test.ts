import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../../services/platform/config';

const ROOT = join(__dirname, '..', '..', '..');
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');
const lineCount = (text: string) => text.replace(/\n$/, '').split('\n').length;

describe('README', () => {
  const readme = read('README.md');

  it('gives the two commands', () => {
    expect(readme).toContain('make dev');
    expect(readme).toContain('make test');
  });

  it('stays a short way in: at most 150 lines, the reference in docs/', () => {
    expect(lineCount(readme)).toBeLessThanOrEqual(150);
    expect(readme).toContain('docs/architecture.md');
    expect(readme).toContain('docs/development.md');
  });
});

describe('docs/configuration.md', () => {
  const configuration = read('docs', 'configuration.md');

  it('documents every configuration variable with its default', () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      const row = configuration.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(row).toBeDefined();
      if ('default' in s && s.default) expect(row).toContain(`\`${s.default}\``);
    }
  });
});

describe('test/bench/README.md', () => {
  it('stays a reference of at most 200 lines, the dated runs in test/bench/JOURNAL.md', () => {
    expect(lineCount(read('test', 'bench', 'README.md'))).toBeLessThanOrEqual(200);
    expect(read('test', 'bench', 'README.md')).toContain('JOURNAL.md');
  });
});
