/**
 * helm and kustomize for the chart tests: found on PATH or in .tools/bin, else built from source with
 * `go install` (the Go module proxy is the only download; no prebuilt binaries).
 *
 *   npx tsx test/support/k8s/tools.ts        # build both into .tools/bin (CI prebuild), print versions
 *
 * HELM_BIN / KUSTOMIZE_BIN name a binary explicitly.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const TOOLS_BIN = path.join(REPO_ROOT, '.tools', 'bin');

export type ToolName = 'helm' | 'kustomize';

interface ToolSpec {
  module: string;
  version: string;
  ldflags?: string;
  env: string;
}

/**
 * Helm's release builds set the version and the default Kubernetes version (client-go v0.37 → 1.37)
 * with -X; `go install` alone would report v3.22 and assume Kubernetes v1.20.
 */
export const TOOLS: Record<ToolName, ToolSpec> = {
  helm: {
    module: 'helm.sh/helm/v3/cmd/helm',
    version: 'v3.22.0',
    ldflags: [
      '-s -w',
      '-X helm.sh/helm/v3/internal/version.version=v3.22.0',
      '-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1',
      '-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37',
      '-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1',
      '-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37',
    ].join(' '),
    env: 'HELM_BIN',
  },
  // v5.8.3 needs Go >= 1.27; v5.8.2 builds with Go 1.26.
  kustomize: { module: 'sigs.k8s.io/kustomize/kustomize/v5', version: 'v5.8.2', ldflags: '-s -w', env: 'KUSTOMIZE_BIN' },
};

/** The exact `go install` command line for a tool (printed for CI prebuild steps). */
export function goInstallArgs(name: ToolName): string[] {
  const t = TOOLS[name];
  return ['install', ...(t.ldflags ? ['-ldflags', t.ldflags] : []), `${t.module}@${t.version}`];
}

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, bin);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A binary that already exists: $HELM_BIN, .tools/bin, then PATH. */
export function findTool(name: ToolName): string | undefined {
  const explicit = process.env[TOOLS[name].env];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${TOOLS[name].env}=${explicit} does not exist`);
    return explicit;
  }
  const local = path.join(TOOLS_BIN, name);
  if (existsSync(local)) return local;
  return onPath(name);
}

const pending = new Map<ToolName, Promise<string>>();

/**
 * Find the tool or build it into .tools/bin. Parallel jest workers serialise on a flock so the tool is
 * built once. A cold helm build takes about two minutes; give the calling hook a long timeout.
 */
export function ensureTool(name: ToolName): Promise<string> {
  const found = findTool(name);
  if (found) return Promise.resolve(found);
  let p = pending.get(name);
  if (!p) {
    p = build(name);
    pending.set(name, p);
  }
  return p;
}

async function build(name: ToolName): Promise<string> {
  mkdirSync(TOOLS_BIN, { recursive: true });
  const target = path.join(TOOLS_BIN, name);
  const lock = path.join(path.dirname(TOOLS_BIN), `.${name}.build.lock`);
  const go = onPath('go');
  if (!go) throw new Error(`${name} is not on PATH nor in ${TOOLS_BIN}, and there is no Go toolchain to build it`);
  const args = goInstallArgs(name);
  // flock: another worker may be building the same tool; the second one finds it done.
  const script = `test -x "$TARGET" || "$GO" "$@"`;
  const cmd = onPath('flock') ? ['flock', lock, 'sh', '-c', script, 'sh', ...args] : ['sh', '-c', script, 'sh', ...args];
  const started = Date.now();
  try {
    await run(cmd[0], cmd.slice(1), {
      cwd: REPO_ROOT,
      env: { ...process.env, GOBIN: TOOLS_BIN, TARGET: target, GO: go, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 20 * 60_000,
    });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`go ${args.join(' ')} failed:\n${err.stderr ?? err.message}`);
  }
  if (!existsSync(target)) throw new Error(`go install finished but ${target} is missing`);
  // eslint-disable-next-line no-console
  console.log(`[k8s tools] built ${name} ${TOOLS[name].version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

export function toolVersion(bin: string): string {
  const name = path.basename(bin);
  const args = name.startsWith('helm') ? ['version', '--short'] : ['version'];
  return execFileSync(bin, args, { encoding: 'utf8' }).trim();
}

if (require.main === module) {
  (async () => {
    for (const name of Object.keys(TOOLS) as ToolName[]) {
      // eslint-disable-next-line no-console
      console.log(`GOBIN=${TOOLS_BIN} go ${goInstallArgs(name).map((a) => (a.includes(' ') ? `'${a}'` : a)).join(' ')}`);
      const bin = await ensureTool(name);
      // eslint-disable-next-line no-console
      console.log(`${name}: ${bin} (${toolVersion(bin)})`);
    }
  })().catch((e) => {
    // eslint-disable-next-line no-console
    console.error(e);
    process.exit(1);
  });
}
