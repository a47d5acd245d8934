/**
 * k8s/ (plain manifests for kustomize) is generated from the chart and must not drift from it:
 * the generated files are current, `kustomize build k8s/base` equals the chart's default render, and
 * the example overlay builds into valid objects with its changes applied.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { BASE_TEMPLATE, compare, extraFiles, renderedFiles, staticFiles } from '../../../scripts/k8s-generate';
import { byKey, Container, helmTemplate, K8S_DIR, K8sObject, key, kustomizeBuild, NAMESPACE, ofKind, RELEASE, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';
import { RELEASE as APP_RELEASE } from '../../../services/platform/release';

const REGEN = 'run `make k8s-generate` and commit the result';

let base: K8sObject[];
let overlay: K8sObject[];

beforeAll(async () => {
  await Promise.all([ensureTool('helm'), ensureTool('kustomize')]);
  [base, overlay] = await Promise.all([kustomizeBuild(path.join(K8S_DIR, 'base')), kustomizeBuild(path.join(K8S_DIR, 'overlays', 'example'))]);
}, 20 * 60_000);

describe('generated files', () => {
  it(`are current (schema, README values table, dashboards, k8s/base, k8s/components); else ${REGEN}`, async () => {
    const first = staticFiles();
    const staticState = compare(first);
    expect(staticState).toEqual({ stale: [], missing: [], extra: [] });
    const all = new Map([...first, ...(await renderedFiles())]);
    expect(compare(all)).toEqual({ stale: [], missing: [], extra: [] });
    expect(extraFiles(all)).toEqual([]);
  });
});

describe('k8s/base', () => {
  it("builds into exactly the chart's default render (plain migration Job)", async () => {
    const rendered = byKey(await helmTemplate(BASE_TEMPLATE));
    const built = byKey(base);
    expect([...built.keys()].sort()).toEqual([...rendered.keys()].sort());
    for (const [k, o] of built) expect([k, isDeepStrictEqual(o, rendered.get(k))]).toEqual([k, true]);
  });

  it("has the same Deployments as the chart's default render with hooks (what `helm install` runs)", async () => {
    const helmDefault = ofKind(await helmTemplate(), 'Deployment');
    const deployments = ofKind(base, 'Deployment');
    expect(deployments.map(key).sort()).toEqual(helmDefault.map(key).sort());
    for (const d of helmDefault) expect(deployments.find((x) => key(x) === key(d))).toEqual(d);
  });

  it('validates against the Kubernetes schemas', async () => {
    expect(await validateObjects(base)).toEqual([]);
  });
});

describe('k8s/overlays/example', () => {
  type Deployment = K8sObject & { spec: { replicas: number; template: { spec: { containers: Container[] } } } };

  it('builds into valid objects, including the ingress and monitoring components', async () => {
    expect(await validateObjects(overlay)).toEqual([]);
    const kinds = new Set(overlay.map((o) => o.kind));
    for (const k of ['Deployment', 'Ingress', 'ServiceMonitor', 'PrometheusRule', 'Job']) expect(kinds).toContain(k);
    for (const o of overlay) expect([key(o), o.metadata.namespace]).toEqual([key(o), NAMESPACE]);
  });

  it('applies its replicas, image tag, host and secrets', () => {
    const replicas = Object.fromEntries(ofKind<Deployment>(overlay, 'Deployment').map((d) => [d.metadata.name, d.spec.replicas]));
    expect(replicas).toEqual({ [`${RELEASE}-mcp`]: 3, [`${RELEASE}-graphql`]: 2, [`${RELEASE}-worker`]: 4 });
    const images = new Set(overlay.flatMap((o) => ((o.spec as { template?: { spec: { containers: Container[] } } })?.template?.spec.containers ?? []).map((c) => c.image)));
    expect([...images]).toEqual([`ghcr.io/meeting-intelligence/meeting-intelligence:${APP_RELEASE}`]);
    const ingress = ofKind(overlay, 'Ingress')[0] as K8sObject & { spec: { rules: { host: string }[]; tls: { hosts: string[] }[] } };
    expect(ingress.spec.rules.map((r) => r.host)).toEqual(['meet.example.org']);
    expect(ingress.spec.tls[0].hosts).toEqual(['meet.example.org']);
    const cm = overlay.find((o) => o.kind === 'ConfigMap' && o.metadata.name === RELEASE) as K8sObject & { data: Record<string, string> };
    expect(cm.data.PUBLIC_BASE_URL).toBe('https://meet.example.org');
    expect(cm.data.MCP_ALLOWED_HOSTS.split(',')).toContain('meet.example.org');
    const secret = overlay.find((o) => o.kind === 'Secret' && o.metadata.name === RELEASE) as K8sObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data.DATABASE_URL, 'base64').toString()).toMatch(/^postgres:\/\//);
    for (const sm of ofKind(overlay, 'ServiceMonitor')) expect(sm.metadata.labels?.release).toBe('kube-prometheus-stack');
  });
});
