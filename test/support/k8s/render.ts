/**
 * Rendering helpers for the chart and the kustomize tree: `helm template`, `kustomize build`, YAML
 * parsing, and offline validation of every object against the Kubernetes and Prometheus Operator
 * schemas (kubernetes-models; ESM-only, so it runs in a child node process: validate-objects.mjs).
 */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { ensureTool, REPO_ROOT } from './tools';

const run = promisify(execFile);

export { REPO_ROOT };
export const CHART_DIR = path.join(REPO_ROOT, 'charts', 'meeting-intelligence');
export const K8S_DIR = path.join(REPO_ROOT, 'k8s');
export const VALUES_ALL = path.join(REPO_ROOT, 'test', 'support', 'k8s', 'values-all.yaml');
/** The release every generated manifest and test uses. */
export const RELEASE = 'meeting-intelligence';
export const NAMESPACE = 'meeting-intelligence';
/** Fixed so renders do not depend on the helm build's default (Capabilities.KubeVersion). */
export const KUBE_VERSION = '1.31.0';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface TemplateOptions {
  valuesFiles?: string[];
  set?: Record<string, string | number | boolean>;
  skipTests?: boolean;
  release?: string;
  namespace?: string;
}

export function helmTemplateArgs(opts: TemplateOptions = {}): string[] {
  const args = ['template', opts.release ?? RELEASE, CHART_DIR, '--namespace', opts.namespace ?? NAMESPACE, '--kube-version', KUBE_VERSION];
  for (const f of opts.valuesFiles ?? []) args.push('--values', f);
  for (const [k, v] of Object.entries(opts.set ?? {})) args.push('--set', `${k}=${v}`);
  if (opts.skipTests) args.push('--skip-tests');
  return args;
}

export class CommandError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

async function exec(bin: string, args: string[], cwd = REPO_ROOT): Promise<string> {
  try {
    const { stdout } = await run(bin, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: '/tmp/helm-cache', HELM_CONFIG_HOME: '/tmp/helm-config', HELM_DATA_HOME: '/tmp/helm-data' } });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new CommandError(`${path.basename(bin)} ${args.join(' ')} failed: ${err.stderr || err.message}`, err.stderr ?? '');
  }
}

export async function helm(args: string[]): Promise<string> {
  return exec(await ensureTool('helm'), args);
}

export async function kustomize(args: string[]): Promise<string> {
  return exec(await ensureTool('kustomize'), args);
}

export async function helmTemplateText(opts: TemplateOptions = {}): Promise<string> {
  return helm(helmTemplateArgs(opts));
}

export async function helmTemplate(opts: TemplateOptions = {}): Promise<K8sObject[]> {
  return parseManifests(await helmTemplateText(opts));
}

/**
 * `kustomize build`. Generated Secrets carry base64 folded at 76 columns, which the API server accepts
 * (Go's decoder skips newlines) but a strict "byte" format check does not: unfold it as the server would.
 */
export async function kustomizeBuild(dir: string): Promise<K8sObject[]> {
  const objects = parseManifests(await kustomize(['build', dir]));
  for (const o of objects) {
    const data = o.kind === 'Secret' ? (o.data as Record<string, string> | undefined) : undefined;
    for (const k of Object.keys(data ?? {})) data![k] = data![k].replace(/\s+/g, '');
  }
  return objects;
}

export function parseManifests(text: string): K8sObject[] {
  return YAML.parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`invalid YAML: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null && typeof o === 'object');
}

export function key(o: K8sObject): string {
  return `${o.kind}/${o.metadata.name}`;
}

export function byKey(objects: K8sObject[]): Map<string, K8sObject> {
  const m = new Map<string, K8sObject>();
  for (const o of objects) {
    if (m.has(key(o))) throw new Error(`duplicate object ${key(o)}`);
    m.set(key(o), o);
  }
  return m;
}

export function ofKind<T = K8sObject>(objects: K8sObject[], kind: string): (K8sObject & T)[] {
  return objects.filter((o) => o.kind === kind) as (K8sObject & T)[];
}

export interface ValidationProblem {
  object: string;
  error: string;
}

/** Validate objects against the Kubernetes / Prometheus Operator / Gateway API schemas. */
export function validateObjects(objects: K8sObject[]): Promise<ValidationProblem[]> {
  const script = path.join(__dirname, 'validate-objects.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`validate-objects.mjs exited ${code}: ${err}`));
      resolve(JSON.parse(out) as ValidationProblem[]);
    });
    child.stdin.end(JSON.stringify(objects));
  });
}

/** Every container (and init container) of a workload, with the pod spec it belongs to. */
export function podSpecs(objects: K8sObject[]): { owner: string; spec: PodSpec }[] {
  const result: { owner: string; spec: PodSpec }[] = [];
  for (const o of objects) {
    const spec = o.spec as { template?: { spec: PodSpec } } & PodSpec;
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(o.kind) && spec.template) result.push({ owner: key(o), spec: spec.template.spec });
    if (o.kind === 'Pod') result.push({ owner: key(o), spec: o.spec as PodSpec });
  }
  return result;
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] }; seccompProfile?: { type: string } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: Record<string, unknown> & { seccompProfile?: { type: string } };
  volumes?: { name: string; emptyDir?: unknown; secret?: { secretName: string } }[];
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: unknown[];
}

/** The object of this kind and name, or an error naming what was rendered instead. */
export function findObject<T = K8sObject>(objects: K8sObject[], kind: string, name: string): K8sObject & T {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind}/${name} not rendered; have ${objects.map(key).join(', ')}`);
  return o as K8sObject & T;
}

/** `helm template` with these values (written as a values file in `dir`). */
export async function renderValues(dir: string, values: unknown): Promise<K8sObject[]> {
  const file = path.join(dir, `values-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, YAML.stringify(values));
  return helmTemplate({ valuesFiles: [file] });
}

/** What `helm template` says when it refuses these values; an error when it accepts them. */
export async function renderValuesFails(dir: string, values: unknown): Promise<string> {
  const file = path.join(dir, `bad-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, YAML.stringify(values));
  try {
    await helm(helmTemplateArgs({ valuesFiles: [file] }));
  } catch (e) {
    if (e instanceof CommandError) return e.stderr;
    throw e;
  }
  throw new Error(`helm template accepted ${JSON.stringify(values)}`);
}
