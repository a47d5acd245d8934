/**
 * The Dockerfile, without a Docker daemon: dockerfile-utils' validator (syntax and common mistakes)
 * plus hadolint-style rules for this image (pinned base, npm ci, non-root numeric USER, init as PID 1,
 * apt hygiene), and the contract with the chart and the worker: the uid the chart runs as, the ports,
 * the CLI entrypoint, and the prebuilt workflow bundle the worker loads from MI_WORKFLOW_BUNDLE.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import YAML from 'yaml';
import { SETTINGS } from '../../../services/platform/config';
import { REPO_ROOT } from '../../support/k8s/tools';

const DOCKERFILE = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i])) continue;
      line = line.replace(/\\\s*$/, ' ') + lines[i].trim();
    }
    const m = /^\s*(\w+)\s*(.*)$/.exec(line)!;
    out.push({ keyword: m[1].toUpperCase(), args: m[2].trim(), line: start + 1 });
  }
  return out;
}

function stages(list: Instruction[]): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const result: Stage[] = [];
  for (const ins of list) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      const from = image.replace(/\$\{?(\w+)\}?/g, (_m, v: string) => args[v] ?? `$${v}`);
      result.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (result.length === 0) {
      if (ins.keyword === 'ARG') {
        const [k, v] = ins.args.split('=');
        args[k] = v ?? '';
      }
    } else {
      result[result.length - 1].instructions.push(ins);
    }
  }
  return { args, stages: result };
}

const parsed = stages(instructions(DOCKERFILE));
const final = parsed.stages[parsed.stages.length - 1];
const stageNamed = (name: string) => parsed.stages.find((s) => s.name === name)!;
const runs = (s: Stage) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const env = (s: Stage): Record<string, string> => {
  const vars: Record<string, string> = {};
  for (const i of s.instructions.filter((x) => x.keyword === 'ENV')) {
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) vars[m[1]] = m[2].replace(/^"|"$/g, '');
  }
  return vars;
};
const workdir = (s: Stage) => s.instructions.filter((i) => i.keyword === 'WORKDIR').pop()?.args ?? '/';

/** .dockerignore semantics: every pattern is checked, the last match wins, "!" re-includes. */
function ignored(file: string): boolean {
  let result = false;
  for (const raw of DOCKERIGNORE.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    const pattern = (negate ? line.slice(1) : line).replace(/^\/+/, '');
    const re = new RegExp(
      `^${pattern
        .split('**')
        .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
        .join('.*')
        .replace(/\.\*\//g, '(.*/)?')}(/.*)?$`,
    );
    if (re.test(file)) result = !negate;
  }
  return result;
}

function filesUnder(rel: string): string[] {
  const abs = path.join(REPO_ROOT, rel);
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs).flatMap((f) => filesUnder(path.join(rel, f)));
}

describe('Dockerfile lint', () => {
  it('passes dockerfile-utils validation with every check as an error', () => {
    const E = ValidationSeverity.ERROR;
    const problems = validate(DOCKERFILE, {
      deprecatedMaintainer: E,
      directiveCasing: E,
      emptyContinuationLine: E,
      instructionCasing: E,
      instructionCmdMultiple: E,
      instructionEntrypointMultiple: E,
      instructionHealthcheckMultiple: E,
      instructionJSONInSingleQuotes: E,
      instructionWorkdirRelative: E,
    });
    expect(problems.map((p) => `line ${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('the validator does catch mistakes', () => {
    const problems = validate('FROM node:20\nEXPOSE port\nCOPY onlyone\nworkdir app\n', { instructionWorkdirRelative: ValidationSeverity.ERROR });
    expect(problems.filter((p) => p.severity === 1 /* DiagnosticSeverity.Error */).length).toBeGreaterThanOrEqual(3);
  });

  it('pins every base image to an exact version (no latest, no floating major)', () => {
    for (const s of parsed.stages) {
      if (parsed.stages.some((o) => o.name === s.from)) continue; // FROM an earlier stage
      expect(s.from).toMatch(/^[\w./-]+:\d+\.\d+\.\d+[\w.-]*(@sha256:[a-f0-9]{64})?$|^[\w./-]+@sha256:[a-f0-9]{64}$/);
      expect(s.from).not.toMatch(/:latest\b/);
    }
  });

  it('names every stage and builds with npm ci (dev deps) and ships production deps only', () => {
    for (const s of parsed.stages) expect(s.name).toBeTruthy();
    const all = parsed.stages.flatMap(runs).join('\n');
    expect(all).not.toMatch(/npm (install|i)\b/);
    expect(runs(stageNamed('build')).join('\n')).toMatch(/npm ci\b(?![^\n]*--omit=dev)/);
    expect(runs(stageNamed('build')).join('\n')).toMatch(/npm run build/);
    const prod = parsed.stages.filter((s) => runs(s).some((r) => /npm ci\b.*--omit=dev/.test(r)));
    expect(prod.length).toBe(1);
    const copiesModules = final.instructions.find((i) => i.keyword === 'COPY' && /node_modules/.test(i.args));
    expect(copiesModules?.args).toContain(`--from=${prod[0].name}`);
  });

  it('cleans apt lists in the same layer and skips recommended packages', () => {
    for (const r of parsed.stages.flatMap(runs).filter((x) => /apt-get install/.test(x))) {
      expect(r).toMatch(/apt-get update/);
      expect(r).toMatch(/--no-install-recommends/);
      expect(r).toMatch(/-y\b/);
      expect(r).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    }
  });

  it('uses COPY, not ADD, and puts no secrets in ENV or ARG', () => {
    const all = parsed.stages.flatMap((s) => s.instructions);
    expect(all.filter((i) => i.keyword === 'ADD')).toEqual([]);
    for (const s of parsed.stages) for (const k of Object.keys(env(s))) expect(k).not.toMatch(/SECRET|PASSWORD|TOKEN|API_KEY|DATABASE_URL/);
    for (const k of Object.keys(parsed.args)) expect(k).not.toMatch(/SECRET|PASSWORD|TOKEN|API_KEY/);
  });

  it('runs as the numeric non-root user the chart expects, with an init as PID 1 and the CLI as entrypoint', () => {
    const user = final.instructions.filter((i) => i.keyword === 'USER').pop()?.args;
    const values = YAML.parse(readFileSync(path.join(REPO_ROOT, 'charts/meeting-intelligence/values.yaml'), 'utf8'));
    expect(user).toBe(`${values.podSecurityContext.runAsUser}:${values.podSecurityContext.runAsGroup}`);
    expect(user).not.toMatch(/^0\b|root/);
    const entrypoint = JSON.parse(final.instructions.find((i) => i.keyword === 'ENTRYPOINT')!.args) as string[];
    expect(entrypoint[0]).toMatch(/\/(dumb-init|tini)$/);
    expect(entrypoint[entrypoint.length - 1]).toBe(path.posix.join(workdir(final), JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).bin['meeting-intel']));
    expect(runs(final).join('\n')).toMatch(/apt-get install[^\n]*\b(dumb-init|tini)\b/);
    expect(final.instructions.filter((i) => i.keyword === 'HEALTHCHECK')).toEqual([]); // Kubernetes probes instead
  });

  it('exposes the default ports of the three roles', () => {
    const exposed = final.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
    for (const name of ['MCP_PORT', 'GRAPHQL_PORT', 'WORKER_METRICS_PORT'] as const) expect(exposed).toContain(SETTINGS[name].default);
  });

  it('copies only sources that exist and that .dockerignore lets through, and keeps secrets and build output out', () => {
    const sources = parsed.stages.flatMap((s) =>
      s.instructions
        .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))
        .flatMap((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1)),
    );
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'services', 'workflows', 'scripts', 'bin']));
    const missing = sources.filter((src) => !existsSync(path.join(REPO_ROOT, src)));
    expect(missing).toEqual([]);
    for (const src of sources) {
      const files = filesUnder(src);
      expect([src, files.filter(ignored)]).toEqual([src, []]);
    }
    for (const f of ['node_modules/x/index.js', 'dist/a.js', '.git/HEAD', '.env', '.tools/bin/helm', 'test/unit/a.test.ts', 'charts/meeting-intelligence/values.yaml', 'services/node_modules/x'])
      expect([f, ignored(f)]).toEqual([f, true]);
  });
});

describe('the prebuilt Temporal workflow bundle', () => {
  const bundleEnv = env(final).MI_WORKFLOW_BUNDLE;

  it('is built in the build stage by scripts/build-workflow-bundle.ts into dist/workflow-bundle.js', () => {
    const build = stageNamed('build');
    const cmd = runs(build).find((r) => r.includes('scripts/build-workflow-bundle.ts'));
    expect(cmd).toBeDefined();
    const out = /build-workflow-bundle\.ts\s+(\S+)/.exec(cmd!)?.[1] ?? 'dist/workflow-bundle.js';
    expect(path.posix.resolve(workdir(build), out)).toBe(path.posix.join(workdir(build), 'dist/workflow-bundle.js'));
    const script = readFileSync(path.join(REPO_ROOT, 'scripts/build-workflow-bundle.ts'), 'utf8');
    expect(script).toMatch(/bundleWorkflowCode\(\{\s*workflowsPath\s*\}\)/);
    expect(script).toContain("'dist/workflows/index.js'");
    expect(script).toContain("'dist/workflow-bundle.js'");
  });

  it('is what MI_WORKFLOW_BUNDLE points at in the runtime image', () => {
    const build = stageNamed('build');
    const copyDist = final.instructions.find((i) => i.keyword === 'COPY' && i.args.startsWith(`--from=${build.name}`) && /\/dist\b/.test(i.args));
    expect(copyDist).toBeDefined();
    const [from, to] = copyDist!.args.split(/\s+/).slice(1);
    const inBuild = path.posix.join(workdir(build), 'dist/workflow-bundle.js');
    expect(inBuild.startsWith(`${from}/`)).toBe(true);
    const inRuntime = path.posix.join(path.posix.resolve(workdir(final), to), path.posix.relative(from, inBuild));
    expect(bundleEnv).toBe(inRuntime);
    expect(bundleEnv).toBe('/app/dist/workflow-bundle.js');
  });

  it('is read by the worker from MI_WORKFLOW_BUNDLE (once services/worker exists)', () => {
    const dir = path.join(REPO_ROOT, 'services', 'worker');
    const sources = existsSync(dir) ? filesUnder(path.relative(REPO_ROOT, dir)).filter((f) => f.endsWith('.ts')) : [];
    if (sources.length === 0) return; // being written; this check arms itself when it lands
    const text = sources.map((f) => readFileSync(path.join(REPO_ROOT, f), 'utf8')).join('\n');
    expect(text).toContain('MI_WORKFLOW_BUNDLE');
  });
});
