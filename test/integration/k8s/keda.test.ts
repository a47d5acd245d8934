/**
 * KEDA's Temporal scaler with Temporal mTLS: with temporal.tls on, the chart's ScaledObjects reach the
 * frontend with the workers' own client certificate, through one TriggerAuthentication that reads the
 * same Secret keys the pods mount (KEDA's auth parameters cert, key and ca); without TLS there is none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CommandError, helm, helmTemplate, helmTemplateArgs, K8sObject, NAMESPACE, ofKind, PodSpec, RELEASE, validateObjects } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

let tmp: string;
beforeAll(async () => {
  await ensureTool('helm');
  tmp = mkdtempSync(path.join(tmpdir(), 'mi-keda-chart-'));
}, 20 * 60_000);
afterAll(() => tmp && rmSync(tmp, { recursive: true, force: true }));

const valuesFile = (values: unknown) => {
  const file = path.join(tmp, `v-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, YAML.stringify(values));
  return file;
};
const render = (values: unknown) => helmTemplate({ valuesFiles: [valuesFile(values)] });

type Trigger = { type: string; metadata: Record<string, string>; authenticationRef?: { name: string; kind?: string } };
type ScaledObject = { spec: { scaleTargetRef: { name: string }; triggers: Trigger[] } };
type SecretRef = { parameter: string; name: string; key: string };
type TriggerAuth = { spec: { secretTargetRef?: SecretRef[] } };

const KEDA_BOTH = { worker: { keda: { enabled: true } }, speech: { autoscaling: { enabled: false }, keda: { enabled: true } } };
const TLS = { enabled: true, existingSecret: 'temporal-client', certKey: 'client.pem', keyKey: 'client-key.pem', caKey: 'frontend-ca.pem', serverName: 'frontend.temporal.example' };
const AUTH_NAME = `${RELEASE}-temporal`;

const triggers = (objects: K8sObject[]) => ofKind<ScaledObject>(objects, 'ScaledObject').map((s) => [s.spec.scaleTargetRef.name, s.spec.triggers] as const);

/** The Secret and keys the worker pods read their Temporal client certificate from (volume + TEMPORAL_TLS_*_PATH). */
function podTls(objects: K8sObject[]): { secret: string; keys: Record<string, string> } {
  const worker = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `${RELEASE}-worker`) as K8sObject & { spec: { template: { spec: PodSpec } } };
  const volume = worker.spec.template.spec.volumes!.find((v) => v.name === 'temporal-tls')!;
  const data = ofKind<{ data: Record<string, string> }>(objects, 'ConfigMap').find((c) => 'TEMPORAL_TLS_CERT_PATH' in c.data)!.data;
  const keys: Record<string, string> = {};
  for (const [param, env] of [
    ['cert', 'TEMPORAL_TLS_CERT_PATH'],
    ['key', 'TEMPORAL_TLS_KEY_PATH'],
    ['ca', 'TEMPORAL_TLS_CA_PATH'],
  ])
    if (data[env]) keys[param] = path.posix.basename(data[env]);
  return { secret: volume.secret!.secretName, keys };
}

describe("KEDA's Temporal scaler and Temporal mTLS", () => {
  it('without TLS: no TriggerAuthentication, and the triggers reference none', async () => {
    const objects = await render(KEDA_BOTH);
    expect(triggers(objects).map(([name, t]) => [name, t.length, t[0].authenticationRef, t[0].metadata.tlsServerName])).toEqual([
      [`${RELEASE}-worker`, 1, undefined, undefined],
      [`${RELEASE}-speech`, 1, undefined, undefined],
    ]);
    expect(ofKind(objects, 'TriggerAuthentication')).toEqual([]);
  });

  it('with TLS: one TriggerAuthentication passes the Secret keys the pods mount as cert, key and ca, and both triggers reference it', async () => {
    const objects = await render({ ...KEDA_BOTH, temporal: { tls: TLS } });
    const auths = ofKind<TriggerAuth>(objects, 'TriggerAuthentication');
    expect(auths.map((a) => [a.metadata.name, a.metadata.namespace])).toEqual([[AUTH_NAME, NAMESPACE]]);
    expect(auths[0].spec.secretTargetRef).toEqual([
      { parameter: 'cert', name: 'temporal-client', key: 'client.pem' },
      { parameter: 'key', name: 'temporal-client', key: 'client-key.pem' },
      { parameter: 'ca', name: 'temporal-client', key: 'frontend-ca.pem' },
    ]);
    // The same Secret and keys as the workers' own connection.
    const pods = podTls(objects);
    expect(pods).toEqual({ secret: 'temporal-client', keys: { cert: 'client.pem', key: 'client-key.pem', ca: 'frontend-ca.pem' } });
    expect(Object.fromEntries(auths[0].spec.secretTargetRef!.map((r) => [r.parameter, r.key]))).toEqual(pods.keys);
    expect(new Set(auths[0].spec.secretTargetRef!.map((r) => r.name))).toEqual(new Set([pods.secret]));

    expect(triggers(objects).map(([name, t]) => [name, t[0].type, t[0].authenticationRef, t[0].metadata.tlsServerName])).toEqual([
      [`${RELEASE}-worker`, 'temporal', { name: AUTH_NAME }, 'frontend.temporal.example'],
      [`${RELEASE}-speech`, 'temporal', { name: AUTH_NAME }, 'frontend.temporal.example'],
    ]);
    expect(await validateObjects([...auths, ...ofKind(objects, 'ScaledObject')])).toEqual([]);
  });

  it('with TLS and no CA key: no ca parameter (the system roots, as for the pods)', async () => {
    const objects = await render({ worker: { keda: { enabled: true } }, temporal: { tls: { ...TLS, caKey: '' } } });
    const [auth] = ofKind<TriggerAuth>(objects, 'TriggerAuthentication');
    expect(auth.spec.secretTargetRef!.map((r) => r.parameter)).toEqual(['cert', 'key']);
    expect(podTls(objects).keys).toEqual({ cert: 'client.pem', key: 'client-key.pem' });
  });

  it('with TLS and only the speech workers on KEDA: the one TriggerAuthentication, referenced by their trigger', async () => {
    const objects = await render({ speech: KEDA_BOTH.speech, temporal: { tls: TLS } });
    expect(ofKind(objects, 'TriggerAuthentication').map((a) => a.metadata.name)).toEqual([AUTH_NAME]);
    expect(triggers(objects).map(([name, t]) => [name, t[0].authenticationRef])).toEqual([[`${RELEASE}-speech`, { name: AUTH_NAME }]]);
  });

  it('with TLS and no ScaledObject: no TriggerAuthentication', async () => {
    const objects = await render({ temporal: { tls: TLS } });
    expect(ofKind(objects, 'ScaledObject')).toEqual([]);
    expect(ofKind(objects, 'TriggerAuthentication')).toEqual([]);
  });

  it('refuses TLS without the Secret, naming the value', async () => {
    const failure = await helm(helmTemplateArgs({ valuesFiles: [valuesFile({ ...KEDA_BOTH, temporal: { tls: { enabled: true } } })] })).then(
      () => '',
      (e: unknown) => (e instanceof CommandError ? e.stderr : String(e)),
    );
    expect(failure).toContain('temporal.tls.existingSecret is required when temporal.tls.enabled is true');
  });
});
