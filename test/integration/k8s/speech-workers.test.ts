/**
 * Speech workers in the chart: a Deployment of their own on the speech task queue, scaled by a CPU
 * HPA by default or by an opt-in KEDA ScaledObject on the queue's backlog (one template for every
 * worker Deployment, never beside an HPA of the same Deployment), and a volume of operator models.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CommandError, Container, helm, helmTemplate, helmTemplateArgs, K8sObject, ofKind, RELEASE, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

let tmp: string;
beforeAll(async () => {
  await ensureTool('helm');
  tmp = mkdtempSync(path.join(tmpdir(), 'mi-speech-chart-'));
}, 20 * 60_000);
afterAll(() => tmp && rmSync(tmp, { recursive: true, force: true }));

async function render(values: unknown): Promise<K8sObject[]> {
  const file = path.join(tmp, `v-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, YAML.stringify(values));
  return helmTemplate({ valuesFiles: [file] });
}

type Pod = { spec: { template: { spec: { containers: Container[]; volumes?: { name: string }[] } } } };
const named = (objects: K8sObject[], kind: string, role: string) => objects.find((o) => o.kind === kind && o.metadata.name === `${RELEASE}-${role}`);
const container = (objects: K8sObject[], role: string) => (named(objects, 'Deployment', role) as K8sObject & Pod).spec.template.spec.containers[0];
const env = (c: Container, name: string) => c.env?.find((e) => e.name === name)?.value;
const configMap = (objects: K8sObject[]) => ofKind<{ data: Record<string, string> }>(objects, 'ConfigMap').find((c) => c.data.TEMPORAL_TASK_QUEUE)!.data;

describe('speech workers', () => {
  it('run by default as their own Deployment on the speech queue, scaled by a CPU HPA', async () => {
    const objects = await helmTemplate();
    const speech = container(objects, 'speech');
    expect(speech.args).toEqual(['serve', 'worker']);
    expect(env(speech, 'WORKER_KIND')).toBe('speech');
    expect(env(container(objects, 'worker'), 'WORKER_KIND')).toBeUndefined();
    expect(configMap(objects)).toMatchObject({ TEMPORAL_TASK_QUEUE: 'meeting-intelligence', TEMPORAL_SPEECH_TASK_QUEUE: 'meeting-intelligence-speech', SPEECH_MODELS_DIR: '/app/.models', SPEECH_MODEL: 'moonshine-tiny-en' });
    const hpa = named(objects, 'HorizontalPodAutoscaler', 'speech') as K8sObject & { spec: { metrics: { resource: { name: string } }[] } };
    expect(hpa.spec.metrics.map((m) => m.resource.name)).toEqual(['cpu']);
    expect((named(objects, 'Deployment', 'speech') as K8sObject & { spec: { replicas?: number } }).spec.replicas).toBeUndefined();
    expect(ofKind(objects, 'ScaledObject')).toEqual([]);
    expect(named(objects, 'PodDisruptionBudget', 'speech')).toBeDefined();
  });

  it('disabled: no speech Deployment, and the workers recognise speech on their own queue', async () => {
    const objects = await render({ speech: { enabled: false } });
    expect(named(objects, 'Deployment', 'speech')).toBeUndefined();
    expect(named(objects, 'HorizontalPodAutoscaler', 'speech')).toBeUndefined();
    expect(configMap(objects).TEMPORAL_SPEECH_TASK_QUEUE).toBe('');
  });

  it('scale on the backlog of their queue with KEDA, for the speech and the general workers alike', async () => {
    const objects = await render({
      speech: { autoscaling: { enabled: false }, keda: { enabled: true, minReplicaCount: 0, targetQueueSize: 2 } },
      worker: { keda: { enabled: true } },
      temporal: { address: 'temporal.example:7233', namespace: 'meetings' },
    });
    const scaled = ofKind<{ spec: { scaleTargetRef: { name: string }; minReplicaCount: number; triggers: { type: string; metadata: Record<string, string> }[] } }>(objects, 'ScaledObject');
    expect(scaled.map((s) => [s.spec.scaleTargetRef.name, s.spec.minReplicaCount, s.spec.triggers[0].type, s.spec.triggers[0].metadata])).toEqual([
      [`${RELEASE}-worker`, 2, 'temporal', { endpoint: 'temporal.example:7233', namespace: 'meetings', taskQueue: 'meeting-intelligence', queueTypes: 'workflow,activity', targetQueueSize: '20', activationTargetQueueSize: '0' }],
      [`${RELEASE}-speech`, 0, 'temporal', { endpoint: 'temporal.example:7233', namespace: 'meetings', taskQueue: 'meeting-intelligence-speech', queueTypes: 'activity', targetQueueSize: '2', activationTargetQueueSize: '0' }],
    ]);
    expect(await validateObjects(scaled)).toEqual([]);
    expect(named(objects, 'HorizontalPodAutoscaler', 'speech')).toBeUndefined();
    // KEDA owns the replica count of both.
    for (const role of ['worker', 'speech']) expect((named(objects, 'Deployment', role) as K8sObject & { spec: { replicas?: number } }).spec.replicas).toBeUndefined();
  });

  it.each(['speech', 'worker'])('refuses an HPA and a ScaledObject for the %s Deployment at once', async (role) => {
    const file = path.join(tmp, `both-${role}.yaml`);
    writeFileSync(file, YAML.stringify({ [role]: { autoscaling: { enabled: true }, keda: { enabled: true } } }));
    const failure = await helm(helmTemplateArgs({ valuesFiles: [file] })).then(
      () => '',
      (e: unknown) => (e instanceof CommandError ? e.stderr : String(e)),
    );
    expect(failure).toContain(`${role}: autoscaling.enabled and keda.enabled both scale the Deployment; enable one of them`);
  });

  it('mount operator models on the worker, speech and API pods and point SPEECH_MODELS_DIR at them', async () => {
    const objects = await render({ speech: { modelsVolume: { persistentVolumeClaim: { claimName: 'parakeet', readOnly: true } } }, config: { speech: { model: 'parakeet-tdt-0.6b-v2-int8' } } });
    // The API pods read the models' model.json to refuse at upload a language no model serves.
    for (const role of ['worker', 'speech', 'mcp', 'graphql']) {
      const pod = (named(objects, 'Deployment', role) as K8sObject & Pod).spec.template.spec;
      expect(pod.volumes).toContainEqual({ name: 'speech-models', persistentVolumeClaim: { claimName: 'parakeet', readOnly: true } });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'speech-models', mountPath: '/models', readOnly: true });
    }
    expect(configMap(objects)).toMatchObject({ SPEECH_MODELS_DIR: '/models', SPEECH_MODEL: 'parakeet-tdt-0.6b-v2-int8', SPEECH_MODELS: '' });
    expect(container(objects, 'speech').resources).toEqual({ requests: { cpu: '1', memory: '768Mi' }, limits: { cpu: '2', memory: '1Gi' } });
  });

  it('list the multilingual model in SPEECH_MODELS and give its speech pods the memory it needs', async () => {
    const objects = await render({ config: { speech: { models: ['whisper-base', 'parakeet=de+fr'] } } });
    expect(configMap(objects)).toMatchObject({ SPEECH_MODEL: 'moonshine-tiny-en', SPEECH_MODELS: 'whisper-base,parakeet=de+fr' });
    expect(container(objects, 'speech').resources).toEqual({ requests: { cpu: '1', memory: '1664Mi' }, limits: { cpu: '2', memory: '2Gi' } });
    await expect(render({ config: { speech: { models: ['whisper base'] } } })).rejects.toThrow(/models/);
  });
});
