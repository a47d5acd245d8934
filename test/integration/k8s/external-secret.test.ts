/**
 * externalSecret.enabled: the External Secrets Operator writes the Secret the pods read. Rendered and
 * validated against the operator's schema; the chart's own Secret and the hook's copy are gone; the
 * ExternalSecret comes before the migration Job (a hook of lower weight) and is never deleted after it
 * (its Secret is Orphan and Retained, so re-creating the hook at an upgrade never takes it away); the
 * Deployments and the Job read the Secret it writes; bad settings are refused by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CommandError, Container, helmTemplate, K8sObject, key, podSpecs, RELEASE, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

const HOOK = 'helm.sh/hook';
const dir = mkdtempSync(path.join(tmpdir(), 'mi-external-secret-'));
const valuesFile = (name: string, values: unknown) => {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, YAML.stringify(values));
  return file;
};

const ENABLED = {
  enabled: true,
  secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' },
  refreshInterval: '15m',
  data: {
    DATABASE_URL: { key: 'meeting-intel/db', property: 'url' },
    SECRETS_KEY: { key: 'meeting-intel/secrets-key' },
    ASR_API_KEY: { key: 'meeting-intel/asr', property: 'api-key', version: 'v2' },
  },
};

let hooked: K8sObject[];
let plain: K8sObject[];

beforeAll(async () => {
  await ensureTool('helm');
  [hooked, plain] = await Promise.all([
    helmTemplate({ valuesFiles: [valuesFile('hooked', { externalSecret: ENABLED })] }),
    helmTemplate({ valuesFiles: [valuesFile('plain', { externalSecret: ENABLED, migrations: { useHooks: false } })] }),
  ]);
}, 20 * 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type ExternalSecret = K8sObject & { spec: { refreshInterval: string; secretStoreRef: unknown; target: { name: string; creationPolicy: string; deletionPolicy: string }; data: unknown[] } };
const externalSecret = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'ExternalSecret') as ExternalSecret[];
const secretNames = (objects: K8sObject[]) => {
  const names = new Set<string>();
  for (const { spec } of podSpecs(objects)) for (const c of spec.containers as Container[]) for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.add(e.valueFrom.secretKeyRef.name);
  return names;
};

describe('externalSecret', () => {
  it('renders one ExternalSecret, valid against the operator\'s schema, and no Secret of the chart', async () => {
    for (const objects of [hooked, plain]) {
      expect(await validateObjects(objects)).toEqual([]);
      expect(objects.filter((o) => o.kind === 'Secret').map(key)).toEqual([]);
      const [es] = externalSecret(objects);
      expect(externalSecret(objects)).toHaveLength(1);
      expect(es.spec).toEqual({
        refreshInterval: '15m',
        secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' },
        target: { name: RELEASE, creationPolicy: 'Orphan', deletionPolicy: 'Retain' },
        data: [
          { secretKey: 'ASR_API_KEY', remoteRef: { key: 'meeting-intel/asr', property: 'api-key', version: 'v2' } },
          { secretKey: 'DATABASE_URL', remoteRef: { key: 'meeting-intel/db', property: 'url' } },
          { secretKey: 'SECRETS_KEY', remoteRef: { key: 'meeting-intel/secrets-key' } },
        ],
      });
      // Every pod, the migration Job's too, reads the Secret the ExternalSecret writes.
      expect([...secretNames(objects)]).toEqual([RELEASE]);
    }
  });

  it('comes before the migration Job as a hook that is never deleted after it; a plain resource without hooks', () => {
    const [es] = externalSecret(hooked);
    const job = hooked.find((o) => o.kind === 'Job')!;
    expect(es.metadata.annotations?.[HOOK]).toBe('pre-install,pre-upgrade');
    expect(es.metadata.annotations?.['helm.sh/hook-delete-policy']).toBe('before-hook-creation');
    expect(Number(es.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations?.['helm.sh/hook-weight']));
    expect(Object.keys(externalSecret(plain)[0].metadata.annotations ?? {}).filter((a) => a.startsWith('helm.sh/'))).toEqual([]);
  });

  it.each([
    ['without a store', { ...ENABLED, secretStoreRef: { name: '', kind: 'ClusterSecretStore' } }, {}, /externalSecret.secretStoreRef.name is required when externalSecret.enabled is true/],
    ['without DATABASE_URL', { ...ENABLED, data: { SECRETS_KEY: { key: 'k' } } }, {}, /externalSecret.data.DATABASE_URL is required/],
    ['without SECRETS_KEY', { ...ENABLED, data: { DATABASE_URL: { key: 'k' } } }, {}, /externalSecret.data.SECRETS_KEY is required/],
    ['beside an existing Secret', ENABLED, { secrets: { existingSecret: 'mine' } }, /externalSecret.enabled and secrets.existingSecret: set one of them/],
    ['with a remoteRef lacking its key', { ...ENABLED, data: { ...ENABLED.data, LLM_API_KEY: { property: 'x' } } }, {}, /externalSecret.data.LLM_API_KEY.*key/s],
    ['with an unknown store kind', { ...ENABLED, secretStoreRef: { name: 'v', kind: 'Vault' } }, {}, /externalSecret.secretStoreRef.kind/],
  ])('refuses to render %s, naming the setting', async (name, es, extra, message) => {
    const file = valuesFile(name.replace(/\W+/g, '-'), { externalSecret: es, ...extra });
    const err = await helmTemplate({ valuesFiles: [file] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).message).toMatch(message);
  });
});
