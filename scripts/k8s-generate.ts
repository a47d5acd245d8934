/**
 * Writes everything derived from the chart, so nothing is maintained twice:
 *   charts/meeting-intelligence/values.schema.json   from values.yaml (+ values-doc.ts overrides)
 *   charts/meeting-intelligence/README.md            the values table between its markers
 *   charts/meeting-intelligence/dashboards/*.json    from dashboards.ts
 *   k8s/dashboards/*.json                            the same dashboards, for Grafana without the sidecar
 *   k8s/base/                                        `helm template` with the defaults (plain migration Job)
 *   k8s/components/{monitoring,ingress,asr-in-cluster}/  what metrics.*, ingress.enabled and asr.inCluster.enabled add
 *
 *   npx tsx scripts/k8s-generate.ts           # write
 *   npx tsx scripts/k8s-generate.ts --check   # exit 1 when a file is stale (what the tests check)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import YAML from 'yaml';
import { renderDashboards } from '../test/support/k8s/dashboards';
import { byKey, helmTemplate, K8sObject, key, NAMESPACE, RELEASE, REPO_ROOT } from '../test/support/k8s/render';
import { README_FILE, renderReadme, renderSchema, SCHEMA_FILE } from '../test/support/k8s/values-doc';

const rel = (p: string) => path.relative(REPO_ROOT, p);
const CHART_DASHBOARDS = path.join(REPO_ROOT, 'charts', 'meeting-intelligence', 'dashboards');
const K8S = path.join(REPO_ROOT, 'k8s');

const HEADER = '# Generated from charts/meeting-intelligence by `make k8s-generate`; do not edit.\n';

/** Values of the kustomize base: the chart defaults, with the migration Job as a plain Job (no Helm hooks). */
export const BASE_SET = { 'migrations.useHooks': false };
export const BASE_TEMPLATE = { set: BASE_SET, skipTests: true } as const;
export const MONITORING_SET = { 'metrics.serviceMonitor.enabled': true, 'metrics.prometheusRule.enabled': true };
export const INGRESS_SET = { 'ingress.enabled': true };
export const ASR_IN_CLUSTER_SET = { 'asr.inCluster.enabled': true };

/** Generated directories: every file in them must be generated (stale leftovers are reported). */
export const GENERATED_DIRS = [
  CHART_DASHBOARDS,
  path.join(K8S, 'dashboards'),
  path.join(K8S, 'base'),
  path.join(K8S, 'components', 'monitoring'),
  path.join(K8S, 'components', 'ingress'),
  path.join(K8S, 'components', 'asr-in-cluster'),
];

function yamlDoc(obj: unknown): string {
  return YAML.stringify(obj, { lineWidth: 0, blockQuote: 'literal' });
}

function fileName(o: K8sObject): string {
  const kind = o.kind.toLowerCase();
  if (o.kind === 'Job') return `${kind}-migrate.yaml`;
  const short = o.metadata.name === RELEASE ? '' : o.metadata.name.replace(`${RELEASE}-`, '');
  return `${kind}${short ? `-${short}` : ''}.yaml`;
}

function objectFiles(dir: string, objects: K8sObject[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const o of objects) {
    const f = path.join(dir, fileName(o));
    if (files.has(f)) throw new Error(`two objects map to ${rel(f)}`);
    files.set(f, HEADER + yamlDoc(o));
  }
  return files;
}

function kustomization(kind: 'Kustomization' | 'Component', resources: string[], patches: string[] = []): string {
  const doc: Record<string, unknown> = {
    apiVersion: kind === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1',
    kind,
    resources: resources.sort(),
  };
  if (patches.length) doc.patches = patches.map((p) => ({ path: p }));
  return HEADER + yamlDoc(doc);
}

/** Objects added by a values change; the changed ones must be only those `allowChanged` names. */
function delta(
  base: K8sObject[],
  other: K8sObject[],
  allowChanged: (o: K8sObject) => boolean,
): { added: K8sObject[]; changed: [K8sObject, K8sObject][] } {
  const b = byKey(base);
  const added: K8sObject[] = [];
  const changed: [K8sObject, K8sObject][] = [];
  for (const o of other) {
    const before = b.get(key(o));
    if (!before) added.push(o);
    else if (!isDeepStrictEqual(before, o)) {
      if (!allowChanged(o)) throw new Error(`${key(o)} changes too; a kustomize component cannot express that`);
      changed.push([before, o]);
    }
  }
  const o = byKey(other);
  for (const k of b.keys())
    if (!o.has(k)) throw new Error(`${k} disappears; a kustomize component cannot express that`);
  return { added, changed };
}

/** Phase 1: files that do not depend on rendering the chart. */
export function staticFiles(): Map<string, string> {
  const files = new Map<string, string>();
  files.set(SCHEMA_FILE, renderSchema());
  files.set(README_FILE, renderReadme(readFileSync(README_FILE, 'utf8')));
  for (const [name, json] of renderDashboards()) {
    files.set(path.join(CHART_DASHBOARDS, name), json);
    files.set(path.join(K8S, 'dashboards', name), json);
  }
  return files;
}

/** Phase 2: the kustomize tree, rendered from the chart as it is on disk. */
export async function renderedFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const [base, monitoring, ingress, asr] = await Promise.all([
    helmTemplate(BASE_TEMPLATE),
    helmTemplate({ set: { ...BASE_SET, ...MONITORING_SET }, skipTests: true }),
    helmTemplate({ set: { ...BASE_SET, ...INGRESS_SET }, skipTests: true }),
    helmTemplate({ set: { ...BASE_SET, ...ASR_IN_CLUSTER_SET }, skipTests: true }),
  ]);
  const baseDir = path.join(K8S, 'base');
  const baseFiles = objectFiles(baseDir, base);
  for (const [f, c] of baseFiles) files.set(f, c);
  files.set(
    path.join(baseDir, 'kustomization.yaml'),
    kustomization(
      'Kustomization',
      [...baseFiles.keys()].map((f) => path.basename(f)),
    ),
  );

  const mon = delta(base, monitoring, () => false);
  const monDir = path.join(K8S, 'components', 'monitoring');
  const monFiles = objectFiles(monDir, mon.added);
  for (const [f, c] of monFiles) files.set(f, c);
  files.set(
    path.join(monDir, 'kustomization.yaml'),
    kustomization(
      'Component',
      [...monFiles.keys()].map((f) => path.basename(f)),
    ),
  );

  // Enabling the Ingress also derives PUBLIC_BASE_URL and MCP_ALLOWED_HOSTS from its host, and the
  // in-cluster speech server sets ASR_URL and ASR_MODEL: a ConfigMap patch carries that.
  configComponent(files, path.join(K8S, 'components', 'ingress'), base, ingress, 'ingress.enabled');
  configComponent(files, path.join(K8S, 'components', 'asr-in-cluster'), base, asr, 'asr.inCluster.enabled');
  return files;
}

/**
 * A component of the objects a values change adds plus a patch of the ConfigMap keys it changes (the
 * Deployments' checksum annotation is Helm's business only; nothing else may change).
 */
function configComponent(
  files: Map<string, string>,
  dir: string,
  base: K8sObject[],
  other: K8sObject[],
  what: string,
): void {
  const d = delta(base, other, (o) => o.kind === 'ConfigMap' || o.kind === 'Deployment');
  const added = objectFiles(dir, d.added);
  for (const [f, c] of added) files.set(f, c);
  const patches: string[] = [];
  for (const [before, after] of d.changed) {
    if (after.kind === 'Deployment') {
      const strip = (o: K8sObject) => {
        const copy = structuredClone(o) as K8sObject & {
          spec: { template: { metadata: { annotations: Record<string, string> } } };
        };
        delete copy.spec.template.metadata.annotations['checksum/config'];
        return copy;
      };
      if (!isDeepStrictEqual(strip(before), strip(after)))
        throw new Error(`${key(after)} changes beyond its checksum with ${what}`);
      continue;
    }
    const data: Record<string, string> = {};
    const b = (before as K8sObject & { data: Record<string, string> }).data;
    for (const [k, v] of Object.entries((after as K8sObject & { data: Record<string, string> }).data))
      if (b[k] !== v) data[k] = v;
    const name = `configmap-patch.yaml`;
    patches.push(name);
    files.set(
      path.join(dir, name),
      HEADER +
        yamlDoc({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: after.metadata.name, namespace: NAMESPACE },
          data,
        }),
    );
  }
  files.set(
    path.join(dir, 'kustomization.yaml'),
    kustomization(
      'Component',
      [...added.keys()].map((f) => path.basename(f)),
      patches,
    ),
  );
}

export interface Staleness {
  stale: string[];
  missing: string[];
  extra: string[];
}

export function compare(files: Map<string, string>): Staleness {
  const result: Staleness = { stale: [], missing: [], extra: [] };
  for (const [f, content] of files) {
    if (!existsSync(f)) result.missing.push(rel(f));
    else if (readFileSync(f, 'utf8') !== content) result.stale.push(rel(f));
  }
  return result;
}

export function extraFiles(all: Map<string, string>): string[] {
  const extra: string[] = [];
  for (const dir of GENERATED_DIRS) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      const p = path.join(dir, f);
      if (!all.has(p)) extra.push(rel(p));
    }
  }
  return extra;
}

function write(files: Map<string, string>): void {
  for (const [f, content] of files) {
    mkdirSync(path.dirname(f), { recursive: true });
    if (!existsSync(f) || readFileSync(f, 'utf8') !== content) {
      writeFileSync(f, content);
      // eslint-disable-next-line no-console
      console.log(`wrote ${rel(f)}`);
    }
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const first = staticFiles();
  if (check) {
    const all = new Map([...first, ...(await renderedFiles())]);
    const s = compare(all);
    const extra = extraFiles(all);
    if (s.stale.length || s.missing.length || extra.length) {
      // eslint-disable-next-line no-console
      console.error(JSON.stringify({ ...s, extra }, null, 2));
      process.exit(1);
    }
    return;
  }
  write(first);
  const second = await renderedFiles();
  write(second);
  const all = new Map([...first, ...second]);
  for (const f of extraFiles(all)) {
    rmSync(path.join(REPO_ROOT, f));
    // eslint-disable-next-line no-console
    console.log(`removed ${f}`);
  }
}

if (require.main === module) {
  main().catch((e) => {
    // eslint-disable-next-line no-console
    console.error(e);
    process.exit(1);
  });
}
