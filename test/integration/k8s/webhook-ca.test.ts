/**
 * webhooks.caBundle: webhook receivers behind a private CA. The bundle is mounted into the worker
 * pods only (the worker delivers webhooks) and passed as NODE_EXTRA_CA_CERTS; without the value the
 * rendering is exactly what it was.
 */
import { Container, helmTemplate, helmTemplateText, K8sObject, ofKind, RELEASE, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

type Deployment = K8sObject & {
  spec: { template: { spec: { containers: Container[]; volumes?: { name: string; configMap?: { name: string; items?: { key: string; path: string }[] }; secret?: { secretName: string; items?: { key: string; path: string }[] } }[] } } };
};

const MOUNT = '/etc/meeting-intel/webhook-ca';

function deployments(objects: K8sObject[]): Map<string, Deployment> {
  return new Map(ofKind<Deployment>(objects, 'Deployment').map((d) => [d.metadata.name.replace(`${RELEASE}-`, ''), d as Deployment]));
}

const caEnv = (c: Container) => c.env?.find((e) => e.name === 'NODE_EXTRA_CA_CERTS');
const caMount = (c: Container) => c.volumeMounts?.find((m) => m.name === 'webhook-ca');

beforeAll(async () => {
  await ensureTool('helm');
}, 20 * 60_000);

describe('webhooks.caBundle', () => {
  it.each([
    ['a ConfigMap', { 'webhooks.caBundle.existingConfigMap': 'corp-ca' }, 'configMap'],
    ['a Secret', { 'webhooks.caBundle.existingSecret': 'corp-ca', 'webhooks.caBundle.key': 'bundle.pem' }, 'secret'],
  ])('from %s: mounted into the worker only, and NODE_EXTRA_CA_CERTS names the file', async (_label, set, source) => {
    const objects = await helmTemplate({ set });
    expect(await validateObjects(objects)).toEqual([]);
    const byRole = deployments(objects);
    const worker = byRole.get('worker')!;
    const [container] = worker.spec.template.spec.containers;
    expect(caEnv(container)).toEqual({ name: 'NODE_EXTRA_CA_CERTS', value: `${MOUNT}/ca.crt` });
    expect(caMount(container)).toEqual({ name: 'webhook-ca', mountPath: MOUNT, readOnly: true });
    const volume = worker.spec.template.spec.volumes!.find((v) => v.name === 'webhook-ca')!;
    const key = (set as Record<string, string>)['webhooks.caBundle.key'] ?? 'ca.crt';
    if (source === 'configMap') expect(volume.configMap).toMatchObject({ name: 'corp-ca', items: [{ key, path: 'ca.crt' }] });
    else expect(volume.secret).toMatchObject({ secretName: 'corp-ca', items: [{ key, path: 'ca.crt' }] });

    for (const role of ['mcp', 'graphql']) {
      const d = byRole.get(role)!;
      for (const c of d.spec.template.spec.containers) {
        expect(caEnv(c)).toBeUndefined();
        expect(caMount(c)).toBeUndefined();
      }
      expect(d.spec.template.spec.volumes?.find((v) => v.name === 'webhook-ca')).toBeUndefined();
    }
    // Nor the migrations Job or the test pods.
    for (const o of objects.filter((x) => x.kind !== 'Deployment')) expect(JSON.stringify(o)).not.toMatch(/webhook-ca|NODE_EXTRA_CA_CERTS/);
  });

  it('without the value the rendering is unchanged (the empty strings are the defaults)', async () => {
    const set = { 'webhooks.caBundle.existingConfigMap': '', 'webhooks.caBundle.existingSecret': '' };
    const [plain, explicit] = await Promise.all([helmTemplateText(), helmTemplateText({ set })]);
    expect(explicit).toBe(plain);
    expect(plain).not.toMatch(/webhook-ca|NODE_EXTRA_CA_CERTS/);
  });

  it('refuses both a ConfigMap and a Secret', async () => {
    await expect(helmTemplate({ set: { 'webhooks.caBundle.existingConfigMap': 'a', 'webhooks.caBundle.existingSecret': 'b' } })).rejects.toThrow(/existingConfigMap or existingSecret, not both/);
  });
});
