/**
 * Prebuilds the Temporal workflow bundle at image build time, so the worker starts without running
 * webpack (which needs a writable file system and seconds of CPU) and every worker replica runs the
 * exact same workflow code.
 *
 *   npm run build && npx tsx scripts/build-workflow-bundle.ts [out]   (default: dist/workflow-bundle.js)
 *
 * The worker loads it when MI_WORKFLOW_BUNDLE names the file (the Dockerfile sets
 * MI_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js): `workflowBundle: { codePath: process.env.MI_WORKFLOW_BUNDLE }`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

export const DEFAULT_BUNDLE_PATH = 'dist/workflow-bundle.js';
export const WORKFLOWS_ENTRY = 'dist/workflows/index.js';

export async function buildWorkflowBundle(out = DEFAULT_BUNDLE_PATH, root = process.cwd()): Promise<string> {
  const workflowsPath = require.resolve(path.resolve(root, WORKFLOWS_ENTRY));
  const { code } = await bundleWorkflowCode({ workflowsPath });
  const target = path.resolve(root, out);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, code);
  return target;
}

if (require.main === module) {
  buildWorkflowBundle(process.argv[2])
    .then((target) => {
      // eslint-disable-next-line no-console
      console.log(`workflow bundle written to ${target}`);
    })
    .catch((e: unknown) => {
      // eslint-disable-next-line no-console
      console.error(e);
      process.exit(1);
    });
}
