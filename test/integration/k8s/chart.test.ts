/**
 * The Helm chart, offline: lint, render with the defaults and with every option on, validate every
 * object against the Kubernetes / Prometheus Operator / Gateway API schemas, and check what a
 * platform team relies on (non-root, probes, resources, hook order, schema refusal, settings coverage).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { SETTINGS } from '../../../services/platform/config';
import {
  CHART_DIR,
  Container,
  helm,
  helmTemplate,
  K8sObject,
  key,
  KUBE_VERSION,
  NAMESPACE,
  ofKind,
  podSpecs,
  RELEASE,
  renderValuesFails,
  VALUES_ALL,
  validateObjects,
} from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';
import { SCHEMA_FILE, valueEntries } from '../../support/k8s/values-doc';

const ROLES = ['mcp', 'graphql', 'worker'] as const;
const HOOK = 'helm.sh/hook';
const WEIGHT = 'helm.sh/hook-weight';

let defaults: K8sObject[];
let all: K8sObject[];
let tmp: string;

beforeAll(async () => {
  await ensureTool('helm'); // a cold build takes minutes; later calls are instant
  tmp = mkdtempSync(path.join(tmpdir(), 'mi-chart-'));
  [defaults, all] = await Promise.all([helmTemplate(), helmTemplate({ valuesFiles: [VALUES_ALL] })]);
}, 20 * 60_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind}/${name} not rendered; have ${objects.map(key).join(', ')}`);
  return o;
}

function deployment(objects: K8sObject[], role: string) {
  return find(objects, 'Deployment', `${RELEASE}-${role}`) as K8sObject & {
    spec: { replicas?: number; template: { metadata: { annotations: Record<string, string> }; spec: { containers: Container[]; terminationGracePeriodSeconds: number } } };
  };
}

const renderFails = (values: unknown) => renderValuesFails(tmp, values);

describe('helm lint', () => {
  it('passes --strict with the defaults and with every option', async () => {
    await helm(['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION]);
    await helm(['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION, '--values', VALUES_ALL]);
  });
});

describe.each([
  ['default values', () => defaults],
  ['every option (values-all.yaml)', () => all],
])('rendered with %s', (_label, objects) => {
  it('validates every object against the Kubernetes, Prometheus Operator and Gateway API schemas', async () => {
    expect(await validateObjects(objects())).toEqual([]);
  });

  it('puts every object in the release namespace', () => {
    for (const o of objects()) {
      if (o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard) continue; // dashboards.namespace may move them
      expect([key(o), o.metadata.namespace]).toEqual([key(o), NAMESPACE]);
    }
  });

  it('runs every container as uid 10001 on a read-only root filesystem with all capabilities dropped', () => {
    const pods = podSpecs(objects());
    expect(pods.length).toBeGreaterThanOrEqual(4);
    for (const { owner, spec } of pods) {
      expect([owner, spec.securityContext]).toEqual([owner, expect.objectContaining({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } })]);
      const tmpVolume = spec.volumes?.find((v) => v.name === 'tmp');
      expect([owner, tmpVolume?.emptyDir]).toEqual([owner, expect.any(Object)]);
      for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const where = `${owner} container ${c.name}`;
        expect([where, c.securityContext]).toEqual([
          where,
          expect.objectContaining({
            runAsNonRoot: true,
            runAsUser: 10001,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          }),
        ]);
        expect([where, c.volumeMounts?.some((m) => m.name === 'tmp' && m.mountPath === '/tmp')]).toEqual([where, true]);
        expect([where, c.resources?.requests?.cpu && c.resources?.requests?.memory && c.resources?.limits?.cpu && c.resources?.limits?.memory]).toEqual([where, expect.anything()]);
        expect([where, c.image]).toEqual([where, expect.not.stringMatching(/:latest$/)]);
      }
    }
  });

  it('gives every role a Deployment with liveness /healthz and readiness /readyz probes on its port, a Service and a PDB', () => {
    for (const role of ROLES) {
      const d = deployment(objects(), role);
      const [c] = d.spec.template.spec.containers;
      expect(c.args).toEqual(['serve', role]);
      const port = role === 'worker' ? 'metrics' : 'http';
      expect(c.ports?.[0].name).toBe(port);
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port });
      expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port });
      const svc = find(objects(), 'Service', `${RELEASE}-${role}`) as K8sObject & { spec: { ports: { targetPort: string }[]; selector: Record<string, string> } };
      expect(svc.spec.ports[0].targetPort).toBe(port);
      expect(svc.spec.selector['app.kubernetes.io/component']).toBe(role);
      find(objects(), 'PodDisruptionBudget', `${RELEASE}-${role}`);
      expect(c.env?.find((e) => e.name === 'MI_ROLE')?.value).toBe(role);
    }
  });

  it('rolls pods when the ConfigMap or the Secret changes (checksum annotations)', () => {
    for (const role of ROLES) {
      const a = deployment(objects(), role).spec.template.metadata.annotations;
      expect(a['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      expect(a['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('gives pods longer to stop than the app waits for in-flight work (SHUTDOWN_GRACE_MS + preStop)', () => {
    const cm = find(objects(), 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    const graceSeconds = Number(cm.data.SHUTDOWN_GRACE_MS) / 1000;
    for (const role of ROLES) {
      const spec = deployment(objects(), role).spec.template.spec;
      const preStop = (spec.containers[0] as { lifecycle?: { preStop?: { exec?: { command: string[] } } } }).lifecycle?.preStop?.exec?.command;
      const sleep = preStop ? Number(preStop[1]) : 0;
      expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(graceSeconds + sleep);
    }
  });

  it('spreads each role over zones and nodes', () => {
    for (const role of ROLES) {
      const spec = deployment(objects(), role).spec.template.spec as { topologySpreadConstraints?: { topologyKey: string }[] };
      expect(spec.topologySpreadConstraints?.length).toBeGreaterThan(0);
    }
  });

  it('provides every setting of services/platform/config.ts, secrets only from a Secret', () => {
    const cm = find(objects(), 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    for (const role of ROLES) {
      const [c] = deployment(objects(), role).spec.template.spec.containers;
      expect(c.envFrom?.[0].configMapRef?.name).toBe(RELEASE);
      const fromSecret = new Set((c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name));
      for (const [name, setting] of Object.entries(SETTINGS)) {
        if ('secret' in setting && setting.secret) {
          expect([role, name, fromSecret.has(name), name in cm.data]).toEqual([role, name, true, false]);
        } else {
          expect([role, name, name in cm.data]).toEqual([role, name, true]);
        }
      }
    }
    // Nothing in the ConfigMap the service does not read (a typo would be silently ignored), except,
    // in values-all, config.extra.
    const extra = objects() === all ? ['NODE_OPTIONS'] : [];
    expect(Object.keys(cm.data).filter((k) => !(k in SETTINGS) && !extra.includes(k))).toEqual([]);
    // The Temporal dashboard and alerts read the SDK's own metrics: exported by default.
    expect(cm.data.TEMPORAL_METRICS_BIND_ADDRESS).toBe(objects() === all ? '0.0.0.0:9470' : '0.0.0.0:9465');
    const worker = deployment(objects(), 'worker').spec.template.spec.containers[0];
    expect(worker.ports?.find((p) => p.name === 'temporal-metrics')?.containerPort).toBe(objects() === all ? 9470 : 9465);
  });

  it('bounds the worker\'s Temporal task slots (WORKER_MAX_CONCURRENT_*), not Temporal\'s 100 activities', () => {
    const cm = find(objects(), 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    expect([cm.data.WORKER_MAX_CONCURRENT_ACTIVITIES, cm.data.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS]).toEqual(objects() === all ? ['8', '20'] : ['16', '40']);
    expect(SETTINGS.WORKER_MAX_CONCURRENT_ACTIVITIES.default).toBe('16');
    expect(SETTINGS.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS.default).toBe('40');
    // The embedding activities' own slots, on their own queue: the chart's default is the setting's.
    expect(cm.data.WORKER_MAX_CONCURRENT_EMBEDDINGS).toBe(SETTINGS.WORKER_MAX_CONCURRENT_EMBEDDINGS.default);
    expect(cm.data.TRUST_PROXY).toBe(objects() === all ? '10.0.0.0/8' : SETTINGS.TRUST_PROXY.default);
  });

  it('writes numbers into the ConfigMap as plain integers (not 5.24288e+08)', () => {
    const cm = find(objects(), 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    for (const name of ['MEDIA_MAX_BYTES', 'DATABASE_POOL_MAX', 'MCP_PORT', 'SHUTDOWN_GRACE_MS', 'GRAPHQL_MAX_QUERY_BYTES']) expect(cm.data[name]).toMatch(/^\d+$/);
  });
});

describe('default render', () => {
  it('has the objects of a plain install and nothing optional', () => {
    const kinds = new Set(defaults.map((o) => o.kind));
    for (const k of ['Deployment', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount', 'PodDisruptionBudget', 'NetworkPolicy', 'Job']) expect(kinds).toContain(k);
    for (const k of ['Ingress', 'HTTPRoute', 'ServiceMonitor', 'PrometheusRule', 'ScaledObject']) expect(kinds).not.toContain(k);
    // The speech workers scale on CPU by default; the other roles keep their replica counts.
    expect(ofKind(defaults, 'HorizontalPodAutoscaler').map((h) => h.metadata.name)).toEqual([`${RELEASE}-speech`]);
    expect(deployment(defaults, 'mcp').spec.replicas).toBe(2);
  });

  it('ships the four Grafana dashboards as ConfigMaps labelled for the sidecar', () => {
    const dashboards = ofKind(defaults, 'ConfigMap').filter((c) => c.metadata.labels?.grafana_dashboard === '1') as (K8sObject & { data: Record<string, string> })[];
    expect(dashboards.map((d) => Object.keys(d.data)[0]).sort()).toEqual(['mcp-tools.json', 'pipeline-webhooks.json', 'service-overview.json', 'temporal-worker.json']);
    for (const d of dashboards) expect(() => JSON.parse(Object.values(d.data)[0])).not.toThrow();
  });
});

describe('migrations', () => {
  type Job = K8sObject & { spec: { template: { spec: { serviceAccountName: string; containers: Container[] } } } };
  const weight = (o: K8sObject) => Number(o.metadata.annotations?.[WEIGHT] ?? 0);

  it('runs `migrate up` as a pre-install,pre-upgrade hook after its hook-scoped ConfigMap, Secret and ServiceAccount', () => {
    const hooks = defaults.filter((o) => o.metadata.annotations?.[HOOK]?.includes('pre-install'));
    const job = hooks.find((o) => o.kind === 'Job') as Job;
    expect(job.metadata.annotations?.[HOOK]).toBe('pre-install,pre-upgrade');
    expect(job.spec.template.spec.containers[0].args).toEqual(['migrate', 'up']);
    const [c] = job.spec.template.spec.containers;
    const needs = [
      ['ConfigMap', c.envFrom?.[0].configMapRef?.name],
      ['Secret', c.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef?.name],
      ['ServiceAccount', job.spec.template.spec.serviceAccountName],
    ] as const;
    for (const [kind, name] of needs) {
      const dep = hooks.find((o) => o.kind === kind && o.metadata.name === name);
      expect([kind, name, dep?.metadata.annotations?.[HOOK]]).toEqual([kind, name, 'pre-install,pre-upgrade']);
      expect(weight(dep!)).toBeLessThan(weight(job));
      expect(dep!.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
    }
    expect(job.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
    // The hook ConfigMap carries the same settings as the release's.
    const hookCm = hooks.find((o) => o.kind === 'ConfigMap') as K8sObject & { data: unknown };
    expect(hookCm.data).toEqual((find(defaults, 'ConfigMap', RELEASE) as K8sObject & { data: unknown }).data);
  });

  it('uses an existing Secret directly (it exists before the hook) and renders no hook Secret', () => {
    const hooks = all.filter((o) => o.metadata.annotations?.[HOOK]?.includes('pre-install'));
    expect(hooks.filter((o) => o.kind === 'Secret')).toEqual([]);
    const job = hooks.find((o) => o.kind === 'Job') as Job;
    const ref = job.spec.template.spec.containers[0].env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
    expect(ref).toEqual({ name: 'meeting-intel-secrets', key: 'database-url' });
  });

  it('migrations.useHooks=false renders a plain Job, named after the image, with no hook annotations', async () => {
    const [plain, otherTag] = await Promise.all([
      helmTemplate({ set: { 'migrations.useHooks': false }, skipTests: true }),
      helmTemplate({ set: { 'migrations.useHooks': false, 'image.tag': '9.9.9' }, skipTests: true }),
    ]);
    for (const o of plain) expect([key(o), Object.keys(o.metadata.annotations ?? {}).filter((a) => a.startsWith('helm.sh/hook'))]).toEqual([key(o), []]);
    const [job] = ofKind<Job>(plain, 'Job');
    expect(job.metadata.name).toMatch(new RegExp(`^${RELEASE}-migrate-[0-9a-f]{8}$`));
    expect(ofKind(otherTag, 'Job')[0].metadata.name).not.toBe(job.metadata.name);
    const [c] = job.spec.template.spec.containers;
    expect(c.envFrom?.[0].configMapRef?.name).toBe(RELEASE);
    expect(c.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef?.name).toBe(RELEASE);
    expect(job.spec.template.spec.serviceAccountName).toBe(RELEASE);
    expect(plain.filter((o) => o.metadata.name === `${RELEASE}-migrate`)).toEqual([]);
  });
});

describe('values.schema.json', () => {
  it('documents every key of values.yaml with a `# --` comment', () => {
    const entries = valueEntries();
    expect(entries.length).toBeGreaterThan(300);
    expect(entries.filter((e) => !e.description).map((e) => e.path)).toEqual([]);
  });

  it('is draft-07 and closes every object it describes (only `global` stays open for parent charts)', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const open: string[] = [];
    const walk = (node: Record<string, unknown>, at: string) => {
      if (node.properties) {
        if (node.additionalProperties !== false) open.push(at || '(root)');
        for (const [k, child] of Object.entries(node.properties as Record<string, Record<string, unknown>>)) walk(child, at ? `${at}.${k}` : k);
      }
    };
    walk(schema, '');
    expect(open).toEqual(['global']);
  });

  it.each([
    ['a wrong type', { mcp: { replicaCount: 'three' } }, /replicaCount/],
    ['an unknown top-level key', { replicas: 3 }, /additional properties|additionalProperties|replicas/i],
    ['an unknown nested key', { worker: { resources: { requests: { cpu: '1', gpu: 1 } } } }, /gpu/],
    ['a misspelt key', { ingress: { host: 'x.example.com' } }, /host/],
    ['a value outside an enum', { config: { logLevel: 'verbose' } }, /logLevel/],
    ['a malformed duration', { config: { webhook: { timeout: '15 seconds' } } }, /timeout/],
    ['a SECRETS_KEY that is not 32 bytes', { secrets: { secretsKey: 'abc' } }, /secretsKey/],
    ['a port out of range', { graphql: { containerPort: 70000 } }, /containerPort/],
    ['fewer than 2 workflow task slots (Temporal needs 2 with a workflow cache)', { worker: { concurrency: { maxWorkflowTasks: 1 } } }, /maxWorkflowTasks/],
  ])('refuses %s', async (_label, values, message) => {
    expect(await renderFails(values)).toMatch(message);
  });

  it("accepts a parent chart's global values (the one open object)", async () => {
    const objects = await helmTemplate({ set: { 'global.storageClass': 'fast', 'global.imageRegistry': 'mirror.example.com' } });
    expect(ofKind(objects, 'Deployment')[0].spec).toMatchObject({ template: { spec: { containers: [{ image: expect.stringMatching(/^mirror\.example\.com\//) }] } } });
  });

  it('refuses a termination grace period that would kill pods mid-shutdown', async () => {
    expect(await renderFails({ config: { shutdownGraceMs: 60000 } })).toMatch(/terminationGracePeriodSeconds/);
  });

  it('refuses Temporal mTLS without the certificate Secret', async () => {
    expect(await renderFails({ temporal: { tls: { enabled: true } } })).toMatch(/temporal.tls.existingSecret/);
  });
});

describe('every option on', () => {
  it('scales every role with an HPA and leaves replicas to it', () => {
    for (const role of ROLES) {
      const hpa = find(all, 'HorizontalPodAutoscaler', `${RELEASE}-${role}`) as K8sObject & { spec: { scaleTargetRef: { name: string } } };
      expect(hpa.spec.scaleTargetRef.name).toBe(`${RELEASE}-${role}`);
      expect(deployment(all, role).spec.replicas).toBeUndefined();
    }
  });

  it('publishes /mcp, OAuth metadata, the meeting and soundbite pages and /graphql through the Ingress (TLS) and the HTTPRoute', async () => {
    type Ingress = K8sObject & { spec: { tls: { hosts: string[] }[]; rules: { host: string; http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] } };
    const published = {
      '/mcp': `${RELEASE}-mcp`,
      '/.well-known/oauth-protected-resource': `${RELEASE}-mcp`,
      // The pages the service's links open (transcript_url, share_url) are served by the mcp role.
      '/meetings': `${RELEASE}-mcp`,
      '/soundbites': `${RELEASE}-mcp`,
      '/signin': `${RELEASE}-mcp`,
      '/signout': `${RELEASE}-mcp`,
      '/assets': `${RELEASE}-mcp`,
      '/graphql': `${RELEASE}-graphql`,
    };
    // values-all runs the built-in OAuth server, which answers on the mcp role too.
    const builtin = { ...published, '/.well-known/oauth-authorization-server': `${RELEASE}-mcp`, '/oauth': `${RELEASE}-mcp` };
    const ing = find(all, 'Ingress', RELEASE) as Ingress;
    expect(ing.spec.tls[0].hosts).toEqual(['meeting-intel.example.com', 'mi.example.org']);
    for (const rule of ing.spec.rules) expect(Object.fromEntries(rule.http.paths.map((p) => [p.path, p.backend.service.name]))).toEqual(builtin);
    const route = find(all, 'HTTPRoute', RELEASE) as K8sObject & { spec: { rules: { matches: { path: { value: string } }[]; backendRefs: { name: string }[] }[] } };
    const paths = route.spec.rules.flatMap((r) => r.matches.map((m) => [m.path.value, r.backendRefs[0].name]));
    expect(Object.fromEntries(paths)).toEqual(builtin);
    const external = find(await helmTemplate({ set: { 'ingress.enabled': true, 'config.oauth.mode': 'external', 'config.oauth.issuer': 'https://idp.example.com' } }), 'Ingress', RELEASE) as Ingress;
    expect(Object.fromEntries(external.spec.rules[0].http.paths.map((p) => [p.path, p.backend.service.name]))).toEqual(published);
  });

  it('derives PUBLIC_BASE_URL and MCP_ALLOWED_HOSTS from the published hosts', () => {
    const cm = find(all, 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    expect(cm.data.PUBLIC_BASE_URL).toBe('https://meeting-intel.example.com');
    expect(cm.data.MCP_ALLOWED_HOSTS.split(',')).toEqual(expect.arrayContaining(['meeting-intel.example.com', 'mi.example.org', `${RELEASE}-mcp`, 'localhost']));
  });

  it('mounts the Temporal client certificate and points TEMPORAL_TLS_* into it', () => {
    const cm = find(all, 'ConfigMap', RELEASE) as K8sObject & { data: Record<string, string> };
    expect(cm.data).toMatchObject({
      TEMPORAL_TLS_CERT_PATH: '/etc/meeting-intel/temporal-tls/tls.crt',
      TEMPORAL_TLS_KEY_PATH: '/etc/meeting-intel/temporal-tls/tls.key',
      TEMPORAL_TLS_CA_PATH: '/etc/meeting-intel/temporal-tls/ca.crt',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com',
    });
    for (const { owner, spec } of podSpecs(all).filter((p) => !p.owner.startsWith('Pod/'))) {
      expect([owner, spec.volumes?.find((v) => v.name === 'temporal-tls')?.secret?.secretName]).toEqual([owner, 'temporal-client-tls']);
      expect([owner, spec.containers[0].volumeMounts?.find((m) => m.name === 'temporal-tls')?.mountPath]).toEqual([owner, '/etc/meeting-intel/temporal-tls']);
    }
  });

  it('reads secrets from the existing Secret with the configured key names', () => {
    expect(ofKind(all, 'Secret')).toEqual([]);
    const [c] = deployment(all, 'graphql').spec.template.spec.containers;
    const refs = Object.fromEntries((c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => [e.name, e.valueFrom!.secretKeyRef!]));
    expect(refs).toEqual({
      DATABASE_URL: { name: 'meeting-intel-secrets', key: 'database-url' },
      SECRETS_KEY: { name: 'meeting-intel-secrets', key: 'secrets-key', optional: false },
      ASR_API_KEY: { name: 'meeting-intel-secrets', key: 'asr-api-key', optional: true },
      LLM_API_KEY: { name: 'meeting-intel-secrets', key: 'llm-api-key', optional: true },
      OIDC_CLIENT_SECRET: { name: 'meeting-intel-secrets', key: 'oidc-client-secret', optional: true },
    });
  });

  it('requires SECRETS_KEY on the mcp role only when it runs the built-in OAuth server', () => {
    const secretsKey = (objects: K8sObject[]) => deployment(objects, 'mcp').spec.template.spec.containers[0].env?.find((e) => e.name === 'SECRETS_KEY')?.valueFrom?.secretKeyRef?.optional;
    expect(secretsKey(all)).toBe(false);
    expect(secretsKey(defaults)).toBe(true);
  });

  it('scrapes every role with a ServiceMonitor on the ports its Service exposes, labelled by role', async () => {
    type SM = K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string; relabelings: { targetLabel: string; replacement?: string }[] }[] } };
    for (const role of [...ROLES, 'speech']) {
      const sm = find(all, 'ServiceMonitor', `${RELEASE}-${role}`) as SM;
      const svc = find(all, 'Service', `${RELEASE}-${role}`) as K8sObject & { spec: { ports: { name: string }[] } };
      for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(svc.metadata.labels?.[k]).toBe(v);
      const ports = svc.spec.ports.map((p) => p.name);
      for (const ep of sm.spec.endpoints) {
        expect(ports).toContain(ep.port);
        expect(ep.path).toBe('/metrics');
        expect(ep.relabelings).toContainEqual(expect.objectContaining({ targetLabel: 'role', replacement: role }));
      }
    }
    expect((find(all, 'ServiceMonitor', `${RELEASE}-worker`) as SM).spec.endpoints.map((e) => e.port)).toEqual(['metrics', 'temporal-metrics']);
    // The speech pods run the same worker process: their metrics and the SDK's are scraped too, and the
    // Service's selector picks the speech pods alone (the worker's Service must not select them).
    expect((find(all, 'ServiceMonitor', `${RELEASE}-speech`) as SM).spec.endpoints.map((e) => e.port)).toEqual(['metrics', 'temporal-metrics']);
    const speech = find(all, 'Service', `${RELEASE}-speech`) as K8sObject & { spec: { selector: Record<string, string> } };
    expect(speech.spec.selector['app.kubernetes.io/component']).toBe('speech');
    expect(deployment(all, 'speech').spec.template.spec.containers[0].ports?.map((p) => p.name)).toEqual(['metrics', 'temporal-metrics']);
    const noSdk = await helmTemplate({ set: { 'worker.temporalMetrics.enabled': false, 'metrics.serviceMonitor.enabled': true }, skipTests: true });
    expect((find(noSdk, 'ServiceMonitor', `${RELEASE}-speech`) as SM).spec.endpoints.map((e) => e.port)).toEqual(['metrics']);
  });

  it('lets each NetworkPolicy admit the ports its pods listen on', () => {
    type NP = K8sObject & { spec: { podSelector: { matchLabels: Record<string, string> }; ingress: { ports?: { port: string }[] }[]; policyTypes: string[] } };
    for (const role of ROLES) {
      const np = find(all, 'NetworkPolicy', `${RELEASE}-${role}`) as NP;
      expect(np.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe(role);
      const allowed = np.spec.ingress.flatMap((r) => (r.ports ?? []).map((p) => p.port));
      for (const p of deployment(all, role).spec.template.spec.containers[0].ports ?? []) expect(allowed).toContain(p.name);
      expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    }
  });

  it('alerts on what matters', () => {
    const rule = find(all, 'PrometheusRule', RELEASE) as K8sObject & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
    const alerts = Object.fromEntries(rule.spec.groups[0].rules.map((r) => [r.alert, r.expr]));
    expect(alerts.MeetingIntelWebhookDeliveriesFailing).toContain('webhook_deliveries_total');
    expect(alerts.MeetingIntelRuleExecutionsFailing).toContain('rule_executions_total{');
    expect(alerts.MeetingIntelRuleExecutionsFailing).toContain('status="failed"');
    expect(alerts.MeetingIntelWorkflowsFailing).toContain('temporal_workflow_failed');
    expect(alerts.MeetingIntelWorkflowTasksFailing).toContain('temporal_workflow_task_execution_failed');
    expect(alerts.MeetingIntelMcpErrorRatioHigh).toContain('mcp_tool_calls_total');
    expect(alerts.MeetingIntelMcpErrorRatioHigh).toContain('outcome!="ok"');
    expect(alerts.MeetingIntelMcpSlow).toContain('histogram_quantile(0.99');
    expect(alerts.MeetingIntelMcpSlow).toContain('mcp_tool_duration_seconds_bucket');
    expect(alerts.MeetingIntelPodsNotReady).toContain('kube_pod_status_ready');
    expect(alerts.MeetingIntelTargetDown).toContain('up{');
    expect(alerts.MeetingIntelAlwaysFiring).toBe('vector(1)');
  });
});

describe('NOTES.txt', () => {
  // `helm install --dry-run` wants a cluster; render NOTES.txt through a ConfigMap in a copy of the chart.
  async function notes(values: Record<string, string | boolean>): Promise<string> {
    const copy = path.join(tmp, `chart-${Math.random().toString(36).slice(2)}`);
    cpSync(CHART_DIR, copy, { recursive: true });
    cpSync(path.join(copy, 'templates', 'NOTES.txt'), path.join(copy, 'notes-check.txt'));
    writeFileSync(path.join(copy, 'templates', 'notes-check.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ tpl (.Files.Get "notes-check.txt") . | toJson }}\n');
    const args = ['template', RELEASE, copy, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, '--show-only', 'templates/notes-check.yaml'];
    for (const [k, v] of Object.entries(values)) args.push('--set', `${k}=${v}`);
    return (YAML.parse(await helm(args)) as { data: { notes: string } }).data.notes;
  }

  it('prints the MCP URL and how to create the first API key', async () => {
    const [plain, published] = await Promise.all([notes({}), notes({ 'ingress.enabled': true, 'secrets.existingSecret': 'x', 'config.oauth.mode': 'builtin' })]);
    expect(plain).toContain(`kubectl -n ${NAMESPACE} port-forward svc/${RELEASE}-mcp 3000:3000`);
    expect(plain).toContain(`kubectl -n ${NAMESPACE} exec deploy/${RELEASE}-mcp -- meeting-intel apikey create --email`);
    expect(plain).toContain('WARNING: secrets.databaseUrl');
    expect(published).toContain('https://meeting-intel.example.com/mcp');
    expect(published).not.toContain('WARNING');
    expect(published).toContain('OAuth: this service is the authorization server (issuer https://meeting-intel.example.com)');
  });
});
