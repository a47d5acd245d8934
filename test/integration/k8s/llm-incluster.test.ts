/**
 * llm.inCluster: an optional llama.cpp server (llama-server, OpenAI-compatible chat completions) in
 * the release for meeting notes. Off by default (nothing rendered, LLM_URL as configured); on, a
 * Deployment serving a GGUF file from the model volume, a Service, the volume's claim, a NetworkPolicy
 * that admits the worker pods only, and LLM_URL / LLM_MODEL pointing at it. Every object is validated
 * against the Kubernetes schemas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Container, findObject, K8sObject, key, NAMESPACE, RELEASE, renderValues, renderValuesFails, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

const NAME = `${RELEASE}-llm`;
const URL = `http://${NAME}.${NAMESPACE}.svc:8080`;

type PodSpec = { containers: Container[]; volumes: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: unknown }[]; securityContext?: Record<string, unknown> };
type Deployment = K8sObject & { spec: { strategy: { type: string }; template: { spec: PodSpec } } };
type NetworkPolicy = K8sObject & {
  spec: {
    ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[] }[];
    egress?: { ports?: { port: number | string }[] }[];
  };
};

let tmp: string;
beforeAll(async () => {
  await ensureTool('helm');
  tmp = mkdtempSync(path.join(tmpdir(), 'mi-llm-'));
}, 20 * 60_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const find = findObject;
const configMap = (objects: K8sObject[]) => find<{ data: Record<string, string> }>(objects, 'ConfigMap', RELEASE).data;
const llmObjects = (objects: K8sObject[]) => objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'llm');

async function render(values: unknown): Promise<K8sObject[]> {
  const objects = await renderValues(tmp, values);
  expect(await validateObjects(objects)).toEqual([]);
  return objects;
}

const renderFails = (values: unknown) => renderValuesFails(tmp, values);

describe('llm.inCluster', () => {
  it('is off by default: no chat server, LLM_URL / LLM_MODEL as configured, the limits passed on', async () => {
    const objects = await render({ config: { llm: { url: 'http://vllm:8000', model: 'qwen2.5-7b', maxTokens: 1024 } } });
    expect(llmObjects(objects).map(key)).toEqual([]);
    expect(configMap(objects)).toMatchObject({
      LLM_URL: 'http://vllm:8000',
      LLM_MODEL: 'qwen2.5-7b',
      LLM_MAX_TOKENS: '1024',
      LLM_PART_CHARS: '24000',
      LLM_TIMEOUT: '120s',
    });
  });

  it('on: a llama-server Deployment over the model volume, its Service, the claim and a NetworkPolicy for the workers', async () => {
    const objects = await render({ llm: { inCluster: { enabled: true, model: { file: 'qwen.gguf' } } }, networkPolicy: { allowExternalEgress: false } });
    expect(llmObjects(objects).map(key).sort()).toEqual([`Deployment/${NAME}`, `NetworkPolicy/${NAME}`, `PersistentVolumeClaim/${NAME}`, `Service/${NAME}`]);
    expect(configMap(objects)).toMatchObject({ LLM_URL: URL, LLM_MODEL: 'local-notes' });

    const d = find<Deployment>(objects, 'Deployment', NAME);
    expect(d.spec.strategy.type).toBe('Recreate');
    const [c] = d.spec.template.spec.containers;
    expect(c.image).toBe('ghcr.io/ggml-org/llama.cpp:server');
    expect(c.args).toEqual(['--host', '0.0.0.0', '--port', '8080', '--model', '/models/qwen.gguf', '--alias', 'local-notes', '--ctx-size', '16384', '--parallel', '1', '--threads', '4']);
    for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) expect(probe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(c.volumeMounts).toEqual(expect.arrayContaining([{ name: 'models', mountPath: '/models', readOnly: true }]));
    expect(d.spec.template.spec.volumes.find((v) => v.name === 'models')).toEqual({ name: 'models', persistentVolumeClaim: { claimName: NAME } });
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });

    const np = find<NetworkPolicy>(objects, 'NetworkPolicy', NAME);
    expect(np.spec.ingress.flatMap((i) => i.from.map((f) => f.podSelector.matchLabels['app.kubernetes.io/component']))).toEqual(['worker']);
    expect(np.spec.egress?.flatMap((e) => e.ports ?? []).map((p) => p.port)).not.toContain(443);
  });

  it('downloads model.url into a writable volume when asked, with HTTPS egress for it', async () => {
    const objects = await render({
      llm: { inCluster: { enabled: true, model: { file: 'smol.gguf', url: 'https://example.com/smol.gguf' }, persistence: { enabled: false } } },
      networkPolicy: { allowExternalEgress: false },
    });
    const [c] = find<Deployment>(objects, 'Deployment', NAME).spec.template.spec.containers;
    expect(c.args).toEqual(expect.arrayContaining(['--model-url', 'https://example.com/smol.gguf']));
    expect(c.volumeMounts).toEqual(expect.arrayContaining([{ name: 'models', mountPath: '/models', readOnly: false }]));
    expect(llmObjects(objects).map(key)).not.toContain(`PersistentVolumeClaim/${NAME}`);
    expect(find<NetworkPolicy>(objects, 'NetworkPolicy', NAME).spec.egress?.flatMap((e) => e.ports ?? []).map((p) => p.port)).toContain(443);
  });

  it('refuses an in-cluster server beside config.llm.url, and an empty volume with nothing to download', async () => {
    expect(await renderFails({ llm: { inCluster: { enabled: true } }, config: { llm: { url: 'http://vllm:8000' } } })).toMatch(/leave config.llm.url empty/);
    expect(await renderFails({ llm: { inCluster: { enabled: true, persistence: { enabled: false } } } })).toMatch(/set llm.inCluster.model.url/);
  });
});
