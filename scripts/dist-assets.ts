/**
 * The files the compiled modules read beside them, which tsc does not emit, copied into the build
 * output after tsc: the one list of them. `npm run build` runs it (package.json), so dist/ is complete
 * wherever it is built: the Dockerfile's build stage, the benches, a checkout.
 *
 *   npx tsx scripts/dist-assets.ts [outDir]   (default: dist, tsconfig.build.json's outDir)
 *
 * Each folder is copied to the same path under outDir, next to the compiled module that reads it; a
 * missing compiled module means tsc has not run into that outDir, and the copy refuses.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';

export interface DistAsset {
  /** A folder of the sources, relative to the repository root. */
  dir: string;
  /** The module that reads it, relative to the repository root (compiled beside it as .js). */
  readBy: string;
}

export const DIST_ASSETS: readonly DistAsset[] = [
  { dir: 'services/web/assets', readBy: 'services/web/assets.ts' },
  { dir: 'services/cli/demo/meetings', readBy: 'services/cli/demo/people.ts' },
];

export const DEFAULT_OUT_DIR = 'dist';

const compiled = (file: string) => file.replace(/\.ts$/, '.js');

/**
 * Copy every listed folder from `root` into `outDir` (relative to `root` unless absolute), replacing
 * what an earlier build left there, so a file removed from the sources leaves the build too.
 */
export function copyDistAssets(outDir = DEFAULT_OUT_DIR, root = process.cwd()): string[] {
  const out = path.resolve(root, outDir);
  const missing = DIST_ASSETS.map((a) => compiled(a.readBy)).filter((js) => !existsSync(path.join(out, js)));
  if (missing.length)
    throw new Error(
      `outDir ${out} holds no compiled ${missing.join(', ')}: run tsc -p tsconfig.build.json into it first`,
    );
  return DIST_ASSETS.map((a) => {
    const target = path.join(out, a.dir);
    rmSync(target, { recursive: true, force: true });
    cpSync(path.join(root, a.dir), target, { recursive: true });
    return target;
  });
}

if (require.main === module) {
  try {
    copyDistAssets(process.argv[2]);
  } catch (e) {
    // eslint-disable-next-line no-console
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
