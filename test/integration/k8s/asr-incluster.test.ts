/**
 * asr.inCluster: an optional speaches server (faster-whisper, OpenAI-compatible) in the release. Off by
 * default (nothing rendered, ASR_URL as configured); on, a Deployment that preloads its model, a
 * Service, the model cache, a NetworkPolicy that admits the worker pods only, and ASR_URL / ASR_MODEL
 * pointing at it. Every object is validated against the Kubernetes schemas.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Container, findObject, K8S_DIR, K8sObject, key, kustomizeBuild, NAMESPACE, ofKind, RELEASE, renderValues, renderValuesFails, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

const NAME = `${RELEASE}-asr`;
const URL = `http://${NAME}.${NAMESPACE}.svc:8000`;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const CACHE = '/home/ubuntu/.cache/huggingface';

type PodSpec = {
  containers: Container[];
  initContainers?: Container[];
  volumes: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: { sizeLimit?: string } }[];
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: unknown;
  runtimeClassName?: string;
  securityContext?: Record<string, unknown>;
};
type Deployment = K8sObject & { spec: { replicas: number; strategy: { type: string }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
type NetworkPolicy = K8sObject & {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: { from?: { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown; ipBlock?: unknown }[]; ports?: { port: string | number }[] }[];
    egress?: { to?: { podSelector?: { matchLabels: Record<string, string> } }[]; ports?: { port: string | number }[] }[];
  };
};

let tmp: string;

beforeAll(async () => {
  await Promise.all([ensureTool('helm'), ensureTool('kustomize')]);
  tmp = mkdtempSync(path.join(tmpdir(), 'mi-asr-'));
}, 20 * 60_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const find = findObject;

const configMap = (objects: K8sObject[]) => find<{ data: Record<string, string> }>(objects, 'ConfigMap', RELEASE).data;
const asrObjects = (objects: K8sObject[]) => objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'asr');

async function render(values: unknown): Promise<K8sObject[]> {
  const objects = await renderValues(tmp, values);
  expect(await validateObjects(objects)).toEqual([]);
  return objects;
}

const renderFails = (values: unknown) => renderValuesFails(tmp, values);

describe('asr.inCluster off (the default)', () => {
  it('renders no speech server, and ASR_URL / ASR_MODEL are config.asr.*', async () => {
    const [plain, external] = await Promise.all([render({}), render({ config: { asr: { url: 'https://api.openai.com/v1', model: 'whisper-1' } } })]);
    for (const objects of [plain, external]) {
      expect(asrObjects(objects).map(key)).toEqual([]);
      expect(JSON.stringify(objects)).not.toMatch(/speaches/);
    }
    expect(configMap(plain)).toMatchObject({ ASR_URL: '', ASR_MODEL: 'whisper-1' });
    expect(configMap(external)).toMatchObject({ ASR_URL: 'https://api.openai.com/v1', ASR_MODEL: 'whisper-1' });
  });
});

describe('asr.inCluster on', () => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await render({ asr: { inCluster: { enabled: true } } });
  });

  it('adds a Deployment, a Service, the model cache claim and a NetworkPolicy, all valid', () => {
    expect(asrObjects(objects).map(key).sort()).toEqual([`Deployment/${NAME}`, `NetworkPolicy/${NAME}`, `PersistentVolumeClaim/${NAME}`, `Service/${NAME}`]);
    const pvc = find<{ spec: { accessModes: string[]; resources: { requests: { storage: string } }; storageClassName?: string } }>(objects, 'PersistentVolumeClaim', NAME);
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } });
    const svc = find<{ spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] } }>(objects, 'Service', NAME);
    expect(svc.spec.selector['app.kubernetes.io/component']).toBe('asr');
    expect(svc.spec.ports).toEqual([{ name: 'http', port: 8000, targetPort: 'http', protocol: 'TCP' }]);
  });

  it('runs the digest-pinned speaches image on CPU, probes /health on 8000 and mounts the cache claim', () => {
    const d = find<Deployment>(objects, 'Deployment', NAME);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.strategy.type).toBe('Recreate'); // a ReadWriteOnce claim cannot be attached to two nodes
    const spec = d.spec.template.spec;
    const [c] = spec.containers;
    const [registry, rest] = [c.image.split('/')[0], c.image.split('/').slice(1).join('/')];
    expect(registry).toBe('ghcr.io');
    const [repoTag, digest] = rest.split('@');
    expect(repoTag).toBe('speaches-ai/speaches:0.8.3-cpu');
    expect(digest).toMatch(DIGEST);
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8000, protocol: 'TCP' }]);
    for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) expect(probe?.httpGet).toEqual({ path: '/health', port: 'http' });
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ UVICORN_PORT: '8000', WHISPER__INFERENCE_DEVICE: 'cpu', WHISPER__COMPUTE_TYPE: 'int8', ENABLE_UI: 'false', HF_HOME: CACHE });
    expect(c.resources?.limits).toEqual({ cpu: '4', memory: '4Gi' });
    expect(JSON.stringify(c.resources)).not.toMatch(/gpu/);
    expect(spec.nodeSelector).toBeUndefined();
    expect(spec.tolerations).toBeUndefined();
    expect(c.volumeMounts).toEqual(expect.arrayContaining([{ name: 'model-cache', mountPath: CACHE }, { name: 'tmp', mountPath: '/tmp' }]));
    expect(spec.volumes.find((v) => v.name === 'model-cache')).toEqual({ name: 'model-cache', persistentVolumeClaim: { claimName: NAME } });
    // Non-root (the image's own uid 1000), nothing to escalate, a read-only root filesystem.
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    for (const x of [...spec.containers, ...(spec.initContainers ?? [])]) {
      expect([x.name, x.securityContext]).toEqual([x.name, expect.objectContaining({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })]);
    }
  });

  it("preloads the model through speaches' download API in an init container, into the same cache", () => {
    const spec = find<Deployment>(objects, 'Deployment', NAME).spec.template.spec;
    const [init] = spec.initContainers ?? [];
    expect(init.name).toBe('preload-model');
    expect(init.image).toBe(spec.containers[0].image);
    const script = [...(init.command ?? []), ...(init.args ?? [])].join('\n');
    expect(script).toContain('/v1/models/$PRELOAD_MODEL');
    expect(script).toContain('-X POST');
    expect(script).toContain('/health');
    const env = Object.fromEntries((init.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ PRELOAD_MODEL: 'Systran/faster-distil-whisper-small.en', HF_HOME: CACHE });
    expect(init.volumeMounts).toEqual(expect.arrayContaining([{ name: 'model-cache', mountPath: CACHE }]));
  });

  it('points ASR_URL at the Service and ASR_MODEL at the preloaded model', async () => {
    expect(configMap(objects)).toMatchObject({ ASR_URL: URL, ASR_MODEL: 'Systran/faster-distil-whisper-small.en' });
    // The worker reads them from that ConfigMap.
    const worker = find<Deployment>(objects, 'Deployment', `${RELEASE}-worker`);
    expect(worker.spec.template.spec.containers[0].envFrom?.[0].configMapRef?.name).toBe(RELEASE);
    const custom = await render({ asr: { inCluster: { enabled: true, model: 'Systran/faster-whisper-large-v3' } } });
    expect(configMap(custom).ASR_MODEL).toBe('Systran/faster-whisper-large-v3');
    const init = find<Deployment>(custom, 'Deployment', NAME).spec.template.spec.initContainers![0];
    expect(init.env?.find((e) => e.name === 'PRELOAD_MODEL')?.value).toBe('Systran/faster-whisper-large-v3');
  });

  it('admits only the worker and speech worker pods to the speech server', () => {
    const np = find<NetworkPolicy>(objects, 'NetworkPolicy', NAME);
    expect(np.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('asr');
    expect(np.spec.policyTypes).toEqual(['Ingress']);
    expect(np.spec.ingress).toHaveLength(1);
    const [rule] = np.spec.ingress;
    expect(rule.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    const pods = (component: string) => ({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'meeting-intelligence', 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/component': component } } });
    expect(rule.from).toEqual([pods('worker'), pods('speech')]);
    // The speaches pods are the ones the Service selects.
    const d = find<Deployment>(objects, 'Deployment', NAME);
    for (const [k, v] of Object.entries(np.spec.podSelector.matchLabels)) expect(d.spec.template.metadata.labels[k]).toBe(v);
  });

  it("opens the worker's egress to it when egress is restricted", async () => {
    const restricted = await render({ asr: { inCluster: { enabled: true } }, networkPolicy: { allowExternalEgress: false } });
    const worker = find<NetworkPolicy>(restricted, 'NetworkPolicy', `${RELEASE}-worker`);
    const toAsr = worker.spec.egress?.find((r) => r.to?.some((p) => p.podSelector?.matchLabels['app.kubernetes.io/component'] === 'asr'));
    expect(toAsr?.ports).toEqual([{ port: 8000, protocol: 'TCP' }]);
    for (const role of ['mcp', 'graphql']) {
      const np = find<NetworkPolicy>(restricted, 'NetworkPolicy', `${RELEASE}-${role}`);
      expect(JSON.stringify(np.spec.egress)).not.toContain('"asr"');
    }
    // The speech server itself may resolve names and download the model over HTTPS, nothing else.
    const asr = find<NetworkPolicy>(restricted, 'NetworkPolicy', NAME);
    expect(asr.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(asr.spec.egress?.flatMap((r) => (r.ports ?? []).map((p) => p.port))).toEqual([53, 53, 443]);
  });

  it('uses an emptyDir for the cache when persistence is off (and rolls pods normally)', async () => {
    const o = await render({ asr: { inCluster: { enabled: true, persistence: { enabled: false, size: '5Gi' } } } });
    expect(ofKind(o, 'PersistentVolumeClaim')).toEqual([]);
    const d = find<Deployment>(o, 'Deployment', NAME);
    expect(d.spec.template.spec.volumes.find((v) => v.name === 'model-cache')).toEqual({ name: 'model-cache', emptyDir: { sizeLimit: '5Gi' } });
    expect(d.spec.strategy.type).toBe('RollingUpdate');
  });

  it('uses an existing claim and a storage class when asked', async () => {
    const [existing, classed] = await Promise.all([
      render({ asr: { inCluster: { enabled: true, persistence: { existingClaim: 'whisper-models' } } } }),
      render({ asr: { inCluster: { enabled: true, persistence: { storageClass: 'fast-ssd', size: '20Gi' } } } }),
    ]);
    expect(ofKind(existing, 'PersistentVolumeClaim')).toEqual([]);
    expect(find<Deployment>(existing, 'Deployment', NAME).spec.template.spec.volumes.find((v) => v.name === 'model-cache')?.persistentVolumeClaim).toEqual({ claimName: 'whisper-models' });
    expect(find<{ spec: { storageClassName: string; resources: { requests: { storage: string } } } }>(classed, 'PersistentVolumeClaim', NAME).spec).toMatchObject({
      storageClassName: 'fast-ssd',
      resources: { requests: { storage: '20Gi' } },
    });
  });
});

describe('asr.inCluster on a GPU', () => {
  it('renders the CUDA image, the GPU limit, the node selector, tolerations, affinity and runtime class from values', async () => {
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-L4'] }] }] } } };
    const tolerations = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];
    const objects = await render({
      asr: {
        inCluster: {
          enabled: true,
          image: { tag: '0.8.3-cuda', digest: '' },
          device: 'cuda',
          computeType: 'float16',
          gpu: { count: 1 },
          runtimeClassName: 'nvidia',
          nodeSelector: { 'nvidia.com/gpu.present': 'true' },
          tolerations,
          affinity,
          model: 'Systran/faster-whisper-large-v3',
        },
      },
    });
    const spec = find<Deployment>(objects, 'Deployment', NAME).spec.template.spec;
    const [c] = spec.containers;
    expect(c.image).toBe('ghcr.io/speaches-ai/speaches:0.8.3-cuda');
    expect(c.resources).toEqual({ requests: { cpu: '2', memory: '2Gi' }, limits: { cpu: '4', memory: '4Gi', 'nvidia.com/gpu': 1 } });
    expect(Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]))).toMatchObject({ WHISPER__INFERENCE_DEVICE: 'cuda', WHISPER__COMPUTE_TYPE: 'float16' });
    expect(spec.nodeSelector).toEqual({ 'nvidia.com/gpu.present': 'true' });
    expect(spec.tolerations).toEqual(tolerations);
    expect(spec.affinity).toEqual(affinity);
    expect(spec.runtimeClassName).toBe('nvidia');
    // The preload only downloads: it asks for no GPU.
    expect(JSON.stringify(spec.initContainers![0].resources)).not.toMatch(/gpu/);
  });

  it('takes another GPU resource name (e.g. a MIG slice)', async () => {
    const objects = await render({ asr: { inCluster: { enabled: true, gpu: { count: 2, resourceName: 'nvidia.com/mig-1g.10gb' } } } });
    const [c] = find<Deployment>(objects, 'Deployment', NAME).spec.template.spec.containers;
    expect(c.resources?.limits).toMatchObject({ 'nvidia.com/mig-1g.10gb': 2 });
  });
});

describe('asr.inCluster refusals', () => {
  it('refuses config.asr.url beside the in-cluster server, naming both values', async () => {
    const stderr = await renderFails({ asr: { inCluster: { enabled: true } }, config: { asr: { url: 'https://api.openai.com/v1' } } });
    expect(stderr).toMatch(/asr\.inCluster\.enabled/);
    expect(stderr).toMatch(/config\.asr\.url is "https:\/\/api\.openai\.com\/v1"/);
  });

  it.each([
    ['a digest that is not sha256:<64 hex>', { image: { digest: 'sha256:1234' } }, /digest/],
    ['an unknown device', { device: 'tpu' }, /device/],
    ['an unknown compute type', { computeType: 'int4' }, /computeType/],
    ['a negative GPU count', { gpu: { count: -1 } }, /count/],
    ['an unknown access mode', { persistence: { accessMode: 'ReadOnlyMany' } }, /accessMode/],
    ['an unknown key', { gpus: 1 }, /gpus/],
  ])('refuses %s (values.schema.json)', async (_label, inCluster, message) => {
    expect(await renderFails({ asr: { inCluster: { enabled: true, ...inCluster } } })).toMatch(message);
  });
});

describe('k8s/components/asr-in-cluster', () => {
  it('adds the speech server to k8s/base and points the ConfigMap at it', async () => {
    const dir = path.join(tmp, 'overlay');
    mkdirSync(dir);
    const rel = (p: string) => path.relative(dir, path.join(K8S_DIR, p));
    writeFileSync(path.join(dir, 'kustomization.yaml'), YAML.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [rel('base')], components: [rel('components/asr-in-cluster')] }));
    const built = await kustomizeBuild(dir);
    expect(await validateObjects(built)).toEqual([]);
    expect(asrObjects(built).map(key).sort()).toEqual([`Deployment/${NAME}`, `NetworkPolicy/${NAME}`, `PersistentVolumeClaim/${NAME}`, `Service/${NAME}`]);
    expect(configMap(built)).toMatchObject({ ASR_URL: URL, ASR_MODEL: 'Systran/faster-distil-whisper-small.en' });
  });
});
