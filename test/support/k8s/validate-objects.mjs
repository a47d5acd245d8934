// Validates Kubernetes objects (a JSON array on stdin) offline against the API schemas of
// kubernetes-models, @kubernetes-models/prometheus-operator, @kubernetes-models/gateway-api and
// @kubernetes-models/external-secrets and @kubernetes-models/keda.
// Prints a JSON array of problems ({object, error}); an apiVersion/kind without a model is a problem too.
// A separate process because these packages are ESM-only and jest loads CommonJS.
const GROUPS = [
  ['kubernetes-models', ['v1', 'apps/v1', 'batch/v1', 'policy/v1', 'autoscaling/v2', 'networking.k8s.io/v1', 'rbac.authorization.k8s.io/v1']],
  ['@kubernetes-models/prometheus-operator', ['monitoring.coreos.com/v1']],
  ['@kubernetes-models/gateway-api', ['gateway.networking.k8s.io/v1']],
  ['@kubernetes-models/external-secrets', ['external-secrets.io/v1']],
  ['@kubernetes-models/keda', ['keda.sh/v1alpha1']],
];

async function loadModels() {
  const models = new Map();
  for (const [pkg, versions] of GROUPS) {
    for (const apiVersion of versions) {
      const mod = await import(`${pkg}/${apiVersion}`);
      for (const [kind, cls] of Object.entries(mod)) {
        if (typeof cls === 'function' && cls.apiVersion === apiVersion && cls.kind === kind) models.set(`${apiVersion}/${kind}`, cls);
      }
    }
  }
  return models;
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

const [models, input] = await Promise.all([loadModels(), readStdin()]);
const problems = [];
for (const obj of JSON.parse(input)) {
  const id = `${obj?.kind}/${obj?.metadata?.name}`;
  const Model = models.get(`${obj?.apiVersion}/${obj?.kind}`);
  if (!Model) {
    problems.push({ object: id, error: `no schema for ${obj?.apiVersion} ${obj?.kind}` });
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (e) {
    problems.push({ object: id, error: e instanceof Error ? e.message : String(e) });
  }
}
process.stdout.write(JSON.stringify(problems));
