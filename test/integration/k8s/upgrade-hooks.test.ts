/**
 * What `helm upgrade` and `helm rollback` run, read from the rendered chart (defaults, every option on,
 * and the plain-Job mode for Argo CD / Flux / kustomize): migrations run before the new pods, and only
 * at install and upgrade; nothing runs on rollback or delete, and nothing anywhere runs `migrate down`
 * (a rolled-back image runs on the newer schema: docs/upgrades.md). The kustomize manifests in k8s/
 * follow the same rules.
 */
import { Container, helmTemplate, K8S_DIR, K8sObject, key, kustomizeBuild, podSpecs, VALUES_ALL } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

const HOOK = 'helm.sh/hook';

type Rendered = { name: string; objects: K8sObject[] };
let renders: Rendered[];
let kustomized: K8sObject[];

beforeAll(async () => {
  await Promise.all([ensureTool('helm'), ensureTool('kustomize')]);
  const [defaults, all, plain, base] = await Promise.all([
    helmTemplate(),
    helmTemplate({ valuesFiles: [VALUES_ALL] }),
    helmTemplate({ set: { 'migrations.useHooks': false } }),
    kustomizeBuild(`${K8S_DIR}/base`),
  ]);
  renders = [
    { name: 'defaults', objects: defaults },
    { name: 'every option', objects: all },
    { name: 'migrations.useHooks=false', objects: plain },
  ];
  kustomized = base;
}, 20 * 60_000);

const hooksOf = (o: K8sObject) => (o.metadata.annotations?.[HOOK] ?? '').split(',').filter(Boolean);
const commandOf = (c: Container) => [...(c.command ?? []), ...(c.args ?? [])];
const migrateJobs = (objects: K8sObject[]) => podSpecs(objects).filter(({ spec }) => spec.containers.some((c) => commandOf(c).includes('migrate')));

describe('the chart at upgrade and rollback', () => {
  it('hooks only at install, upgrade and `helm test`: nothing runs on rollback or delete', () => {
    for (const { name, objects } of renders) {
      const hooks = [...new Set(objects.flatMap(hooksOf))].sort();
      expect({ name, hooks: hooks.filter((h) => !['pre-install', 'pre-upgrade', 'test'].includes(h)) }).toEqual({ name, hooks: [] });
    }
  });

  it('migrates with `migrate up` in exactly one Job, a pre-install,pre-upgrade hook unless hooks are off', () => {
    for (const { name, objects } of renders) {
      const jobs = migrateJobs(objects);
      expect({ name, jobs: jobs.length }).toEqual({ name, jobs: 1 });
      const [job] = jobs;
      expect(job.spec.containers.map(commandOf)).toEqual([['migrate', 'up']]);
      const object = objects.find((o) => key(o) === job.owner)!;
      expect({ name, hooks: hooksOf(object) }).toEqual({ name, hooks: name === 'migrations.useHooks=false' ? [] : ['pre-install', 'pre-upgrade'] });
    }
    expect(migrateJobs(kustomized).flatMap(({ spec }) => spec.containers.map(commandOf))).toEqual([['migrate', 'up']]);
  });

  it('never runs `migrate down`: no container of any render has it', () => {
    for (const objects of [...renders.map((r) => r.objects), kustomized]) {
      for (const { owner, spec } of podSpecs(objects)) {
        for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) expect({ owner, down: commandOf(c).join(' ').includes('migrate down') }).toEqual({ owner, down: false });
      }
    }
  });

  it('gates every role Deployment on /readyz, where the schema guard answers', () => {
    for (const { name, objects } of renders) {
      const roles = objects.filter((o) => o.kind === 'Deployment' && /-(mcp|graphql|worker)$/.test(o.metadata.name));
      expect({ name, roles: roles.length }).toEqual({ name, roles: 3 });
      for (const d of roles) {
        const [c] = (d.spec as { template: { spec: { containers: (Container & { readinessProbe?: { httpGet?: { path: string } } })[] } } }).template.spec.containers;
        expect({ d: key(d), path: c.readinessProbe?.httpGet?.path }).toEqual({ d: key(d), path: '/readyz' });
      }
    }
  });
});
