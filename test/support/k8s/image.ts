/**
 * The container image without Docker: a directory laid out like the image's /app, built the way the
 * Dockerfile's build stage builds it, and the roles started in it the way the image and the chart start
 * them.
 *
 *   build stage   `npm run build` (tsc -p tsconfig.build.json → dist/, then the steps after it, such as
 *                 scripts/dist-assets.ts copying the files the compiled modules read), then
 *                 `npx tsx scripts/build-workflow-bundle.ts dist/workflow-bundle.js`
 *   runtime       the runtime stage's COPY sources (package.json, bin, ...), its ENV (MI_WORKFLOW_BUNDLE,
 *                 NODE_ENV, NODE_OPTIONS, HOME/TMPDIR) with /app and /tmp mapped to temporary
 *                 directories, and its ENTRYPOINT without the init (dumb-init only forwards signals)
 *   chart         each Deployment's container args (`serve <role>`), env and ConfigMap
 *
 * What differs from a real image: node_modules is the checkout's (dev dependencies included; the
 * image has production ones only) and TypeScript is compiled incrementally into a cache under
 * .test-data/k8s-image (a fresh `npm run build` takes 25 s on two cores; an unchanged tree, 5 s).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { K8sObject } from './render';
import { REPO_ROOT } from './tools';

const run = promisify(execFile);

export const DOCKERFILE = path.join(REPO_ROOT, 'Dockerfile');
export const CACHE_DIR = path.join(REPO_ROOT, '.test-data', 'k8s-image');

interface Instruction {
  keyword: string;
  args: string;
}

export interface DockerStage {
  name?: string;
  instructions: Instruction[];
}

/** Instructions per stage, continuation lines joined and comments dropped. */
export function dockerStages(text = readFileSync(DOCKERFILE, 'utf8')): DockerStage[] {
  const stages: DockerStage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i])) continue;
      line = line.replace(/\\\s*$/, ' ') + lines[i].trim();
    }
    const m = /^\s*(\w+)\s*(.*)$/.exec(line)!;
    const keyword = m[1].toUpperCase();
    if (keyword === 'FROM') {
      const [, as, name] = m[2].trim().split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push({ keyword, args: m[2].trim() });
    }
  }
  return stages;
}

const argsOf = (stage: DockerStage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

export interface ImageContract {
  /** The runtime stage's WORKDIR (/app). */
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  /** Sources the runtime stage copies from the build context (not from another stage). */
  contextCopies: { from: string; to: string }[];
  /** The build stage's RUN lines, split at `&&`. */
  buildCommands: string[];
}

export function imageContract(stages = dockerStages()): ImageContract {
  const final = stages[stages.length - 1];
  const build = stages.find((s) => s.name === 'build');
  if (!build) throw new Error('the Dockerfile has no stage named build');
  const env: Record<string, string> = {};
  for (const e of argsOf(final, 'ENV')) for (const m of e.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
  const workdir = argsOf(final, 'WORKDIR').pop() ?? '/';
  const contextCopies = argsOf(final, 'COPY')
    .filter((a) => !a.startsWith('--from'))
    .map((a) => {
      const parts = a.split(/\s+/).filter((p) => !p.startsWith('--'));
      // A destination ending in / (or . / ./) is a directory the source goes into.
      const into = /\/$|^\.\/?$/.test(parts[1]);
      return { from: parts[0], to: path.posix.resolve(workdir, parts[1], into ? path.posix.basename(parts[0]) : '') };
    });
  return {
    workdir,
    env,
    entrypoint: JSON.parse(argsOf(final, 'ENTRYPOINT').pop() ?? '[]') as string[],
    cmd: JSON.parse(argsOf(final, 'CMD').pop() ?? '[]') as string[],
    contextCopies,
    buildCommands: argsOf(build, 'RUN').flatMap((r) => r.split('&&').map((c) => c.trim())),
  };
}

export interface ImageApp {
  /** Stands in for the image's WORKDIR (/app). */
  root: string;
  /** Stands in for /tmp (HOME and TMPDIR; the only writable path of the pod). */
  tmp: string;
  /** The image's ENV with /app and /tmp mapped. */
  env: Record<string, string>;
  /** The prebuilt workflow bundle (the image's MI_WORKFLOW_BUNDLE, mapped); written by buildBundle. */
  bundle: string;
  /** Run the build stage's bundle command in /app; resolves to the bundle's path. */
  buildBundle(): Promise<string>;
  /** Diagnostics of `npm run build` (the image build would fail on them); empty when clean. */
  typeErrors: string;
  timings: { compileMs: number; bundleMs: number };
  /** The image's ENTRYPOINT without the init, then these arguments, as a node command line. */
  command(args: string[]): { file: string; args: string[] };
  remove(): void;
}

function mapper(contract: ImageContract, root: string, tmp: string): (value: string) => string {
  return (value) => {
    if (value === contract.workdir || value.startsWith(`${contract.workdir}/`)) return root + value.slice(contract.workdir.length);
    if (value === '/tmp' || value.startsWith('/tmp/')) return tmp + value.slice(4);
    return value;
  };
}

/** The build command of the Dockerfile with its npm/npx wrapper resolved to the checkout's binaries. */
function buildStep(contract: ImageContract, pattern: RegExp): string {
  const cmd = contract.buildCommands.find((c) => pattern.test(c));
  if (!cmd) throw new Error(`the Dockerfile's build stage has no command matching ${pattern}`);
  return cmd;
}

/**
 * package.json's build script: tsc, then steps `tsx scripts/<step>.ts` that each take the build's
 * outDir as their argument.
 */
export function buildScript(): { tscArgs: string[]; after: string[] } {
  const script = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build;
  const [first, ...rest] = script.split('&&').map((s) => s.trim());
  const m = /^tsc\s+(.*)$/.exec(first);
  if (!m) throw new Error(`package.json's build script does not start with tsc: ${script}`);
  const after = rest.map((step) => {
    const s = /^tsx\s+(scripts\/[\w-]+\.ts)$/.exec(step);
    if (!s) throw new Error(`package.json's build script has a step after tsc that is not \`tsx scripts/<step>.ts\`: ${step}`);
    return s[1];
  });
  return { tscArgs: m[1].split(/\s+/), after };
}

/**
 * `npm run build` into the cache (incrementally), then a copy of its output to `target`, both under
 * one lock: parallel jest runs in the same checkout share the cache, and none copies a half-written one.
 * The build script's steps after tsc then run on `target`.
 */
async function compileInto(contract: ImageContract, target: string): Promise<{ typeErrors: string; ms: number }> {
  buildStep(contract, /^npm run build$/);
  const { tscArgs, after } = buildScript();
  mkdirSync(CACHE_DIR, { recursive: true });
  const out = path.join(CACHE_DIR, 'dist');
  const info = path.join(CACHE_DIR, 'build.tsbuildinfo');
  const tsc = [process.execPath, require.resolve('typescript/bin/tsc'), ...tscArgs, '--outDir', out, '--incremental', '--tsBuildInfoFile', info];
  // An incremental build re-emits only what changed: without its outputs the build info is useless.
  // tsc exits 2 when it reports errors but wrote its output (what `npm run build` would fail on).
  const body = [
    'test -f "$OUT/services/cli/main.js" || rm -f "$INFO"',
    // Outputs of sources that moved or were deleted: an incremental build leaves them, and node would load one first.
    'find "$OUT" -name "*.js" | while read -r f; do s="${f#$OUT/}"; [ -f "${s%.js}.ts" ] || rm -f "$f" "$f.map"; done',
    '"$@"; rc=$?',
    '{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && test -f "$OUT/services/cli/main.js" && cp -R "$OUT" "$TARGET" || exit 99',
    'exit $rc',
  ].join('\n');
  const lock = onPath('flock') ? ['flock', '-w', '600', path.join(CACHE_DIR, '.lock')] : [];
  const cmd = [...lock, 'sh', '-c', body, 'sh', ...tsc];
  const started = Date.now();
  let typeErrors = '';
  try {
    await run(cmd[0], cmd.slice(1), {
      cwd: REPO_ROOT,
      env: { ...process.env, OUT: out, INFO: info, TARGET: target },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    if (err.code !== 2) throw new Error(`npm run build (${tsc.slice(1).join(' ')}) failed (${err.code}): ${err.stdout || ''}${err.stderr || err.message}`);
    typeErrors = err.stdout || err.stderr || err.message;
  }
  for (const step of after) {
    try {
      await run(process.execPath, [require.resolve('tsx/cli'), step, target], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 });
    } catch (e) {
      const err = e as { code?: number; stderr?: string; message: string };
      throw new Error(`npm run build's step tsx ${step} failed (${err.code}): ${err.stderr || err.message}`);
    }
  }
  return { typeErrors, ms: Date.now() - started };
}

function onPath(bin: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => d && existsSync(path.join(d, bin)));
}

/**
 * The image's /app in a temporary directory: compiled, with the runtime stage's files, but without the
 * workflow bundle yet (buildBundle; the API roles can start meanwhile).
 */
export async function prepareImageApp(contract = imageContract()): Promise<ImageApp> {
  const base = mkdtempSync(path.join(tmpdir(), 'mi-image-'));
  const root = path.join(base, 'app');
  const tmp = path.join(base, 'tmp');
  mkdirSync(root);
  mkdirSync(tmp);
  try {
    const { typeErrors, ms: compileMs } = await compileInto(contract, path.join(root, 'dist'));
    const map = mapper(contract, root, tmp);
    for (const c of contract.contextCopies) cpSync(path.join(REPO_ROOT, c.from), map(c.to), { recursive: true });
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    // The models stage's /app/.models: what `make models` fetched, by the same script and pins.
    symlinkSync(path.join(REPO_ROOT, '.models'), path.join(root, '.models'), 'dir');
    const env = Object.fromEntries(Object.entries(contract.env).map(([k, v]) => [k, map(v)]));
    if (!env.MI_WORKFLOW_BUNDLE) throw new Error("the image's ENV has no MI_WORKFLOW_BUNDLE");
    const entry = [...contract.entrypoint];
    // The init (dumb-init/tini) and its `--` only forward signals and reap children.
    if (/\/(dumb-init|tini)$/.test(entry[0] ?? '')) entry.splice(0, entry[1] === '--' ? 2 : 1);
    const app: ImageApp = {
      root,
      tmp,
      env,
      bundle: env.MI_WORKFLOW_BUNDLE,
      typeErrors,
      timings: { compileMs, bundleMs: 0 },
      // `npx tsx scripts/build-workflow-bundle.ts dist/workflow-bundle.js`, in /app, as the build stage runs it.
      buildBundle: async () => {
        const bundleCmd = buildStep(contract, /scripts\/build-workflow-bundle\.ts/);
        const words = bundleCmd.split(/\s+/);
        if (words[0] !== 'npx' || words[1] !== 'tsx') throw new Error(`unexpected bundle command: ${bundleCmd}`);
        cpSync(path.join(REPO_ROOT, words[2]), path.join(root, words[2]));
        const started = Date.now();
        await run(process.execPath, [require.resolve('tsx/cli'), ...words.slice(2)], { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 });
        app.timings.bundleMs = Date.now() - started;
        if (!existsSync(app.bundle)) throw new Error(`${bundleCmd} did not write the image's MI_WORKFLOW_BUNDLE (${contract.env.MI_WORKFLOW_BUNDLE})`);
        return app.bundle;
      },
      command: (args) => ({ file: process.execPath, args: [...entry.map(map), ...args] }),
      remove: () => rmSync(base, { recursive: true, force: true }),
    };
    return app;
  } catch (e) {
    rmSync(base, { recursive: true, force: true });
    throw e;
  }
}

/** The whole image's /app, workflow bundle included. */
export async function buildImageApp(contract = imageContract()): Promise<ImageApp> {
  const app = await prepareImageApp(contract);
  try {
    await app.buildBundle();
  } catch (e) {
    app.remove();
    throw e;
  }
  return app;
}

type Container = { args?: string[]; env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string; optional?: boolean } } }[]; envFrom?: { configMapRef?: { name: string } }[] };

/** A role's container as the chart renders it: its args, and its environment (ConfigMap + env; secrets from `secrets`). */
export function chartContainer(objects: K8sObject[], deployment: string, secrets: Record<string, string>): { args: string[]; env: Record<string, string> } {
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment) as (K8sObject & { spec: { template: { spec: { containers: Container[] } } } }) | undefined;
  if (!d) throw new Error(`Deployment ${deployment} not rendered`);
  const [c] = d.spec.template.spec.containers;
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name) as (K8sObject & { data: Record<string, string> }) | undefined;
    if (!cm) throw new Error(`ConfigMap ${from.configMapRef?.name} not rendered`);
    Object.assign(env, cm.data);
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      if (e.name in secrets) env[e.name] = secrets[e.name];
      else if (!e.valueFrom.secretKeyRef.optional) throw new Error(`${deployment} needs the secret ${e.name}`);
    }
  }
  return { args: c.args ?? [], env };
}

export interface RoleProcess {
  name: string;
  child: ChildProcess;
  startedAt: number;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  /** Its JSON log lines. */
  logs(): Record<string, unknown>[];
  exited(): boolean;
  /** The first JSON log line that matches; fails early, with the output, if the process exits. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Poll `url` until it answers 200; fails early, with the output, if the process exits. */
  waitForOk(url: string, timeoutMs?: number): Promise<number>;
  /** SIGTERM (as Kubernetes stops a pod), then SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startRole(name: string, command: { file: string; args: string[] }, env: Record<string, string>, cwd: string): RoleProcess {
  const startedAt = Date.now();
  const child = spawn(command.file, command.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitedP = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const self: RoleProcess = {
    name,
    child,
    startedAt,
    output: () => out,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited: () => exit !== undefined,
    waitForLog: async (match, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = self.logs().find(match);
        if (line) return line;
        if (exit) throw new Error(`${name} exited (${exit.code ?? exit.signal}) before logging what was awaited:\n${out.slice(-4000)}`);
        if (Date.now() > deadline) throw new Error(`${name} did not log what was awaited within ${timeoutMs} ms:\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    waitForOk: async (url, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        if (exit) throw new Error(`${name} exited (${exit.code ?? exit.signal}) before ${url} answered 200:\n${out.slice(-4000)}`);
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
          if (res.status === 200) return Date.now() - startedAt;
          last = `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
        } catch (e) {
          last = String(e);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last}); ${name} wrote:\n${out.slice(-4000)}`);
    },
    stop: async (timeoutMs = 15_000) => {
      if (exit) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exitedP;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return self;
}
