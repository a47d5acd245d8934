/** `make help` lists every target of the Makefile, one line each, from the `## ` note after its name. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

describe('make help', () => {
  it('lists every .PHONY target with its note', () => {
    const makefile = readFileSync(join(ROOT, 'Makefile'), 'utf8');
    const phony = /^\.PHONY:(.*)$/m.exec(makefile)![1].trim().split(/\s+/).sort();
    const help = execFileSync('make', ['--no-print-directory', 'help'], { cwd: ROOT, encoding: 'utf8' });
    const listed = [...help.matchAll(/^ {2}make (\S+) +(\S.*)$/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual(phony);
    expect(help.trim().split('\n')).toHaveLength(phony.length);
    // Every target that is not a file is .PHONY (so a file named like it never stops it running).
    const targets = [...makefile.matchAll(/^([a-z][a-z0-9-]*):/gm)].map((m) => m[1]).sort();
    expect(targets).toEqual(phony);
  });
});
