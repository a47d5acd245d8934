import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../../services/platform/config';

describe('README', () => {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

  it('gives the two commands', () => {
    expect(readme).toContain('make dev');
    expect(readme).toContain('make test');
  });

  it('documents every configuration variable with its default', () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(row).toBeDefined();
      if ('default' in s && s.default) expect(row).toContain(`\`${s.default}\``);
    }
  });
});
