/**
 * scripts/dist-assets.ts, the build's copy step: it lists every file of services/ and workflows/ that
 * tsc does not emit and a module reads, copies them beside the compiled modules, and runs in
 * `npm run build` after tsc. The compiled modules reading them from dist/ is checked by
 * test/integration/k8s/dist.test.ts.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyDistAssets, DIST_ASSETS } from '../../../scripts/dist-assets';
import { buildScript } from '../../support/k8s/image';
import { REPO_ROOT } from '../../support/k8s/tools';

function filesUnder(abs: string, rel = ''): string[] {
  return readdirSync(path.join(abs, rel)).flatMap((f) => {
    const r = path.join(rel, f);
    return statSync(path.join(abs, r)).isDirectory() ? filesUnder(abs, r) : [r];
  });
}

let out: string;
beforeEach(() => {
  out = mkdtempSync(path.join(tmpdir(), 'mi-dist-assets-'));
});
afterEach(() => rmSync(out, { recursive: true, force: true }));

/** An outDir as tsc leaves it for the modules that read the assets (their compiled files only). */
function compiledReaders(dir: string): void {
  for (const a of DIST_ASSETS) {
    const js = path.join(dir, a.readBy.replace(/\.ts$/, '.js'));
    mkdirSync(path.dirname(js), { recursive: true });
    writeFileSync(js, '');
  }
}

describe('the list of files the compiled modules read', () => {
  it('covers every file of services/ and workflows/ that tsc does not emit (documentation aside)', () => {
    const notEmitted = ['services', 'workflows']
      .flatMap((top) =>
        filesUnder(path.join(REPO_ROOT, top)).map((f) => path.posix.join(top, f.split(path.sep).join('/'))),
      )
      .filter((f) => !f.endsWith('.ts') && !f.endsWith('.md'));
    expect(notEmitted.length).toBeGreaterThan(20);
    expect(notEmitted.filter((f) => !DIST_ASSETS.some((a) => f.startsWith(`${a.dir}/`)))).toEqual([]);
  });

  it('names for each folder a module beside it that reads it by name', () => {
    for (const a of DIST_ASSETS) {
      expect([a.dir, statSync(path.join(REPO_ROOT, a.dir)).isDirectory()]).toEqual([a.dir, true]);
      expect(path.posix.dirname(a.readBy)).toBe(path.posix.dirname(a.dir));
      const source = readFileSync(path.join(REPO_ROOT, a.readBy), 'utf8');
      expect([a.readBy, source]).toEqual([
        a.readBy,
        expect.stringContaining(`join(__dirname, '${path.posix.basename(a.dir)}'`),
      ]);
    }
  });

  it('is copied by `npm run build` after tsc', () => {
    expect(buildScript()).toEqual({ tscArgs: ['-p', 'tsconfig.build.json'], after: ['scripts/dist-assets.ts'] });
  });
});

describe('copyDistAssets', () => {
  it('copies every listed folder byte for byte to the same path under the outDir', () => {
    compiledReaders(out);
    const targets = copyDistAssets(out, REPO_ROOT);
    expect(targets).toEqual(DIST_ASSETS.map((a) => path.join(out, a.dir)));
    for (const a of DIST_ASSETS) {
      const files = filesUnder(path.join(REPO_ROOT, a.dir));
      expect(filesUnder(path.join(out, a.dir)).sort()).toEqual(files.sort());
      for (const f of files)
        expect([
          f,
          readFileSync(path.join(out, a.dir, f)).equals(readFileSync(path.join(REPO_ROOT, a.dir, f))),
        ]).toEqual([f, true]);
    }
  });

  it('replaces what an earlier build left, so a file removed from the sources leaves the build', () => {
    compiledReaders(out);
    const stale = path.join(out, DIST_ASSETS[0].dir, 'removed-since.css');
    mkdirSync(path.dirname(stale), { recursive: true });
    writeFileSync(stale, 'old');
    copyDistAssets(out, REPO_ROOT);
    expect(existsSync(stale)).toBe(false);
  });

  it('takes a relative outDir from the root', () => {
    compiledReaders(path.join(out, 'build'));
    const root = path.join(out, 'repo');
    for (const a of DIST_ASSETS) {
      mkdirSync(path.join(root, a.dir), { recursive: true });
      writeFileSync(path.join(root, a.dir, 'one.txt'), a.dir);
    }
    copyDistAssets('../build', root);
    for (const a of DIST_ASSETS) expect(readFileSync(path.join(out, 'build', a.dir, 'one.txt'), 'utf8')).toBe(a.dir);
  });

  it('refuses an outDir tsc has not compiled into, naming it and the missing module, and copies nothing', () => {
    expect(() => copyDistAssets(out, REPO_ROOT)).toThrow(
      `outDir ${out} holds no compiled services/web/assets.js, services/cli/demo/people.js: run tsc -p tsconfig.build.json into it first`,
    );
    expect(readdirSync(out)).toEqual([]);
  });
});
