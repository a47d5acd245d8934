/**
 * values.yaml is the one description of the chart's values: every key carries a `# --` comment
 * (helm-docs style). From it scripts/k8s-generate.ts writes values.schema.json (types inferred from the defaults,
 * refined by SCHEMA_OVERRIDES; every object refuses unknown keys) and the values table of the chart's
 * README.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML, { isMap, isNode, Pair, YAMLMap } from 'yaml';
import { REPO_ROOT } from './tools';

export const CHART_DIR = path.join(REPO_ROOT, 'charts', 'meeting-intelligence');
export const VALUES_FILE = path.join(CHART_DIR, 'values.yaml');
export const SCHEMA_FILE = path.join(CHART_DIR, 'values.schema.json');
export const README_FILE = path.join(CHART_DIR, 'README.md');

export interface ValueEntry {
  path: string;
  description: string;
  value: unknown;
  /** true for maps with keys (documented, described again by their children). */
  isParent: boolean;
}

function commentOf(raw: string | undefined | null): string {
  if (!raw) return '';
  const lines = raw.split('\n').map((l) => l.trim());
  let start = -1;
  lines.forEach((l, i) => {
    if (l.startsWith('--')) start = i;
  });
  if (start < 0) return '';
  const out: string[] = [];
  for (let i = start; i < lines.length && lines[i] !== ''; i++) out.push(i === start ? lines[i].replace(/^--\s*/, '') : lines[i]);
  return out.join(' ').trim();
}

/** Every key of values.yaml in file order, with its `# --` description (empty when missing). */
export function valueEntries(file = VALUES_FILE): ValueEntry[] {
  const doc = YAML.parseDocument(readFileSync(file, 'utf8'));
  const entries: ValueEntry[] = [];
  const walk = (map: YAMLMap, prefix: string, first: string | null | undefined) => {
    map.items.forEach((pair: Pair, i: number) => {
      const k = String((pair.key as { value: unknown }).value);
      const p = prefix ? `${prefix}.${k}` : k;
      const key = pair.key as { commentBefore?: string | null };
      const description = commentOf(key.commentBefore) || (i === 0 ? commentOf(first) : '');
      const value = pair.value;
      const isParent = isMap(value) && value.items.length > 0;
      entries.push({ path: p, description, value: isNode(value) ? value.toJSON() : value, isParent });
      if (isParent) walk(value as YAMLMap, p, (value as YAMLMap).commentBefore);
    });
  };
  walk(doc.contents as YAMLMap, '', doc.commentBefore ?? (doc.contents as YAMLMap).commentBefore);
  return entries;
}

type Schema = Record<string, unknown>;

const ROLE = '(mcp|graphql|worker|speech)';
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const k8sList: Schema = { type: 'array', items: { type: 'object' } };
const stringList: Schema = { type: 'array', items: { type: 'string' } };
const k8sObject: Schema = { type: 'object' };
const duration: Schema = { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' };
const promDuration: Schema = { type: 'string', pattern: '^(0|([0-9]+(ms|s|m|h|d|w|y))+)$' };
const port: Schema = { type: 'integer', minimum: 1, maximum: 65535 };
const quantity: Schema = { type: ['string', 'number'], pattern: '^[0-9]+(\\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$' };
const intOrPercent: Schema = { type: ['integer', 'string'], pattern: '^[0-9]+%?$', minimum: 0 };
const percentOrNull: Schema = { type: ['integer', 'null'], minimum: 1, maximum: 100 };
const severity: Schema = { type: 'string', enum: ['critical', 'warning', 'info', 'none'] };

/**
 * Refinements of the inferred schema, keyed by a regular expression over the dotted path. The first
 * match wins. Empty maps and lists, and nulls, must be covered here (there is nothing to infer from).
 */
export const SCHEMA_OVERRIDES: [RegExp, Schema][] = [
  [/^global\.imagePullSecrets$|^image\.pullSecrets$/, stringList],
  [/^(commonLabels|commonAnnotations|.*\.annotations|.*\.labels|.*\.additionalLabels|.*\.podAnnotations|.*\.podLabels|.*\.nodeSelector)$/, stringMap],
  [/^image\.digest$/, { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' }],
  [/^image\.tag$/, { type: 'string', pattern: '^([\\w][\\w.-]{0,127})?$' }],
  [/^image\.pullPolicy$/, { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] }],
  [/^asr\.inCluster\.image\.digest$/, { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' }],
  [/^asr\.inCluster\.image\.tag$/, { type: 'string', pattern: '^[\\w][\\w.-]{0,127}$' }],
  [/^asr\.inCluster\.image\.pullPolicy$/, { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] }],
  [/^asr\.inCluster\.(image\.repository|model)$/, { type: 'string', minLength: 1, pattern: '^[^\\s]+$' }],
  [/^asr\.inCluster\.device$/, { type: 'string', enum: ['cpu', 'cuda', 'auto'] }],
  [/^asr\.inCluster\.computeType$/, { type: 'string', enum: ['default', 'int8', 'int8_float16', 'int8_bfloat16', 'int8_float32', 'int16', 'float16', 'bfloat16', 'float32'] }],
  [/^asr\.inCluster\.(replicaCount|cpuThreads|gpu\.count)$/, { type: 'integer', minimum: 0 }],
  [/^asr\.inCluster\.modelTtl$/, { type: 'integer', minimum: -1 }],
  [/^asr\.inCluster\.(containerPort|servicePort)$/, port],
  [/^asr\.inCluster\.gpu\.resourceName$/, { type: 'string', pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$' }],
  [/^asr\.inCluster\.resources\.(requests|limits)\.(cpu|memory)$/, quantity],
  [/^asr\.inCluster\.persistence\.size$/, quantity],
  [/^asr\.inCluster\.persistence\.accessMode$/, { type: 'string', enum: ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'] }],
  [/^asr\.inCluster\.preload\.timeoutSeconds$/, { type: 'integer', minimum: 1 }],
  [/^llm\.inCluster\.image\.digest$/, { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' }],
  [/^llm\.inCluster\.image\.tag$/, { type: 'string', pattern: '^[\\w][\\w.-]{0,127}$' }],
  [/^llm\.inCluster\.image\.pullPolicy$/, { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] }],
  [/^llm\.inCluster\.(image\.repository|alias|model\.file)$/, { type: 'string', minLength: 1, pattern: '^[^\\s]+$' }],
  [/^llm\.inCluster\.model\.url$/, { type: 'string', pattern: '^(https?://.+)?$' }],
  [/^llm\.inCluster\.(replicaCount)$/, { type: 'integer', minimum: 0 }],
  [/^llm\.inCluster\.(contextSize|parallel|threads)$/, { type: 'integer', minimum: 1 }],
  [/^llm\.inCluster\.extraArgs$/, stringList],
  [/^llm\.inCluster\.(containerPort|servicePort)$/, port],
  [/^llm\.inCluster\.resources\.(requests|limits)\.(cpu|memory)$/, quantity],
  [/^llm\.inCluster\.persistence\.size$/, quantity],
  [/^llm\.inCluster\.persistence\.accessMode$/, { type: 'string', enum: ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany', 'ReadOnlyMany'] }],
  [/^config\.llm\.timeout$/, duration],
  [/^config\.llm\.maxTokens$/, { type: 'integer', minimum: 256 }],
  [/^config\.llm\.partChars$/, { type: 'integer', minimum: 2000 }],
  [/^config\.publicBaseUrl$/, { type: 'string', pattern: '^(https?://.+)?$' }],
  [/^config\.logLevel$/, { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }],
  [/^config\.speech\.diarization$/, { type: 'string', enum: ['auto', 'own', 'off'] }],
  [/^config\.(shutdownGraceMs|rateLimitPerMinute)$/, { type: 'integer', minimum: 0 }],
  [/^config\.(database\.poolMax|graphql\.maxDepth|media\.maxBytes)$/, { type: 'integer', minimum: 1 }],
  [/^config\.mcp\.maxTranscriptTokens$|^config\.graphql\.maxQueryBytes$/, { type: 'integer', minimum: 100 }],
  [/^config\.mcp\.(allowedHosts|allowedOrigins)$/, stringList],
  [/^config\.speech\.models$/, { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*(=(\\*|[a-z]{2,3}(\\+[a-z]{2,3})*))?$' } }],
  [/^config\.(media\.fetchTimeout|webhook\.timeout|webhook\.secretOverlap|live\.idleTimeout|oauth\.clockSkew|oauth\.accessTokenTtl|oauth\.refreshTokenTtl)$/, duration],
  [/^config\.oauth\.mode$/, { type: 'string', enum: ['none', 'external', 'builtin'] }],
  [/^config\.oauth\.signingAlg$/, { type: 'string', enum: ['ES256', 'RS256'] }],
  [/^config\.oauth\.(issuer|jwksUrl|oidc\.issuer)$/, { type: 'string', pattern: '^(https?://.+)?$' }],
  [/^config\.oauth\.userClaim$/, { type: 'string', minLength: 1 }],
  [/^config\.webhook\.retrySchedule$/, { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)(,\\s*[0-9]+(ms|s|m|h|d))*$' }],
  [/^config\.(asr|llm)\.url$/, { type: 'string', pattern: '^(https?://.+)?$' }],
  [/^config\.extra$/, { type: 'object', propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, additionalProperties: { type: ['string', 'number', 'boolean'] } }],
  [/^temporal\.address$/, { type: 'string', minLength: 1, pattern: '^(\\[[0-9a-fA-F:]+\\]|[^\\s:/\\[\\]]+):[0-9]+$' }],
  [/^temporal\.(namespace|taskQueue)$/, { type: 'string', minLength: 1 }],
  [/^secrets\.databaseUrl$/, { type: 'string', pattern: '^(postgres(ql)?://.+)?$' }],
  [/^secrets\.secretsKey$/, { type: 'string', pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)?$' }],
  [/^secrets\.keys\.\w+$/, { type: 'string', minLength: 1, pattern: '^[-._a-zA-Z0-9]+$' }],
  [/^externalSecret\.secretStoreRef\.kind$/, { type: 'string', enum: ['SecretStore', 'ClusterSecretStore'] }],
  [/^externalSecret\.refreshInterval$/, { type: 'string', pattern: '^(0|([0-9]+(s|m|h))+)$' }],
  [
    /^externalSecret\.data$/,
    {
      type: 'object',
      propertyNames: { pattern: '^[-._a-zA-Z0-9]+$' },
      additionalProperties: {
        type: 'object',
        required: ['key'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', minLength: 1 },
          property: { type: 'string' },
          version: { type: 'string' },
          conversionStrategy: { type: 'string', enum: ['Default', 'Unicode'] },
          decodingStrategy: { type: 'string', enum: ['Auto', 'Base64', 'Base64URL', 'None'] },
          metadataPolicy: { type: 'string', enum: ['None', 'Fetch'] },
        },
      },
    },
  ],
  [/^(extraEnv|extraEnvFrom|extraVolumes|extraVolumeMounts|.*\.extraEnv|.*\.tolerations|.*\.topologySpreadConstraints)$/, k8sList],
  [/^.*\.(affinity|behavior)$/, k8sObject],
  [/^tmpVolume\.medium$/, { type: 'string', enum: ['', 'Memory'] }],
  [/^tmpVolume\.sizeLimit$/, quantity],
  [/^(podSecurityContext|containerSecurityContext)\.(runAsUser|runAsGroup|fsGroup)$/, { type: 'integer', minimum: 1 }],
  [/^(podSecurityContext|containerSecurityContext)\.seccompProfile\.type$/, { type: 'string', enum: ['RuntimeDefault', 'Localhost'] }],
  [/^containerSecurityContext\.capabilities\.drop$/, stringList],
  [/^topologySpread\.whenUnsatisfiable$/, { type: 'string', enum: ['ScheduleAnyway', 'DoNotSchedule'] }],
  [/^topologySpread\.topologyKeys$/, stringList],
  [/^topologySpread\.maxSkew$/, { type: 'integer', minimum: 1 }],
  [new RegExp(`^${ROLE}\\.replicaCount$`), { type: 'integer', minimum: 0 }],
  [/^(worker|speech)\.concurrency\.maxActivities$/, { type: 'integer', minimum: 1 }],
  [/^worker\.concurrency\.maxEmbeddings$/, { type: 'integer', minimum: 1 }],
  [/^speech\.modelsVolume$/, { type: 'object', description: 'A pod volume source (persistentVolumeClaim, configMap, nfs, ...) without its name.', additionalProperties: true }],
  [/^(worker|speech)\.keda\.(minReplicaCount|activationTargetQueueSize)$/, { type: 'integer', minimum: 0 }],
  [/^(worker|speech)\.keda\.(maxReplicaCount|targetQueueSize|pollingInterval|cooldownPeriod)$/, { type: 'integer', minimum: 1 }],
  [/^config\.asr\.engine$/, { type: 'string', enum: ['', 'embedded', 'openai-compatible'] }],
  [/^config\.speech\.model$/, { type: 'string', minLength: 1, pattern: '^[^/\\s]+$' }],
  [/^config\.speech\.recognizers$/, { type: 'integer', minimum: 0 }],
  [/^worker\.concurrency\.maxWorkflowTasks$/, { type: 'integer', minimum: 2 }],
  [/^config\.trustProxy$/, { type: ['string', 'boolean', 'integer'], minLength: 1, minimum: 0 }],
  [new RegExp(`^${ROLE}\\.(containerPort|service\\.port|temporalMetrics\\.port)$`), port],
  [new RegExp(`^${ROLE}\\.service\\.type$`), { type: 'string', enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] }],
  [new RegExp(`^${ROLE}\\.resources\\.(requests|limits)\\.(cpu|memory)$`), quantity],
  [new RegExp(`^${ROLE}\\.\\w+Probe\\.(initialDelaySeconds)$`), { type: 'integer', minimum: 0 }],
  [new RegExp(`^${ROLE}\\.\\w+Probe\\.(periodSeconds|timeoutSeconds|failureThreshold|successThreshold)$`), { type: 'integer', minimum: 1 }],
  [new RegExp(`^${ROLE}\\.(preStopSleepSeconds)$`), { type: 'integer', minimum: 0, maximum: 120 }],
  [new RegExp(`^${ROLE}\\.(terminationGracePeriodSeconds)$`), { type: 'integer', minimum: 1 }],
  [new RegExp(`^${ROLE}\\.updateStrategy\\.type$`), { type: 'string', enum: ['RollingUpdate', 'Recreate'] }],
  [new RegExp(`^${ROLE}\\.updateStrategy\\.rollingUpdate\\.(maxSurge|maxUnavailable)$`), intOrPercent],
  [new RegExp(`^${ROLE}\\.autoscaling\\.(minReplicas|maxReplicas)$`), { type: 'integer', minimum: 1 }],
  [new RegExp(`^${ROLE}\\.autoscaling\\.target(CPU|Memory)UtilizationPercentage$`), percentOrNull],
  [new RegExp(`^${ROLE}\\.pdb\\.(minAvailable|maxUnavailable)$`), { ...intOrPercent, type: ['integer', 'string', 'null'] }],
  [new RegExp(`^${ROLE}\\.pdb\\.unhealthyPodEvictionPolicy$`), { type: 'string', enum: ['', 'IfHealthyBudget', 'AlwaysAllow'] }],
  [/^migrations\.hookWeights\.\w+$/, { type: 'integer' }],
  [/^migrations\.jobNameSuffix$/, { type: 'string', pattern: '^([a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?)?$' }],
  [/^migrations\.(backoffLimit)$/, { type: 'integer', minimum: 0 }],
  [/^migrations\.(activeDeadlineSeconds)$/, { type: 'integer', minimum: 1 }],
  [/^migrations\.ttlSecondsAfterFinished$/, { type: ['integer', 'null'], minimum: 0 }],
  [/^migrations\.resources\.(requests|limits)\.(cpu|memory)$/, quantity],
  [/^migrations\.tolerations$/, k8sList],
  [/^ingress\.hosts$|^httpRoute\.hostnames$/, { type: 'array', items: { type: 'string', pattern: '^(\\*\\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' } }],
  [/^ingress\.pathType$/, { type: 'string', enum: ['Prefix', 'ImplementationSpecific'] }],
  [/^httpRoute\.parentRefs$/, k8sList],
  [/^networkPolicy\.(ingressFrom|metricsFrom|extraIngress|extraEgress)$/, k8sList],
  [/^metrics\.serviceMonitor\.(interval|scrapeTimeout)$/, promDuration],
  [/^metrics\.serviceMonitor\.(relabelings|metricRelabelings)$/, k8sList],
  [/^metrics\.prometheusRule\.additionalRules$/, k8sList],
  [/^metrics\.prometheusRule\.alerts\.\w+\.threshold$/, { type: 'number', minimum: 0 }],
  [/^metrics\.prometheusRule\.alerts\.\w+\.for$/, promDuration],
  [/^metrics\.prometheusRule\.alerts\.\w+\.severity$/, severity],
  [/^dashboards\.label$/, { type: 'string', minLength: 1 }],
  [/^dashboards\.labelValue$/, { type: 'string' }],
];

function inferred(entry: ValueEntry): Schema {
  const v = entry.value;
  if (typeof v === 'string') return { type: 'string' };
  if (typeof v === 'boolean') return { type: 'boolean' };
  if (typeof v === 'number') return Number.isInteger(v) ? { type: 'integer' } : { type: 'number' };
  throw new Error(`values.yaml: cannot infer a schema for ${entry.path} (${JSON.stringify(v)}); add it to SCHEMA_OVERRIDES`);
}

/** The chart's values.schema.json (draft-07), generated from values.yaml. */
export function buildSchema(entries = valueEntries()): Schema {
  const root: Schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment: 'Generated by scripts/k8s-generate.ts from values.yaml; edit values.yaml or test/support/k8s/values-doc.ts instead.',
    title: 'meeting-intelligence chart values',
    type: 'object',
    additionalProperties: false,
    properties: {},
  };
  const nodes = new Map<string, Schema>([['', root]]);
  for (const e of entries) {
    const parentPath = e.path.includes('.') ? e.path.slice(0, e.path.lastIndexOf('.')) : '';
    const parent = nodes.get(parentPath)!;
    let schema: Schema;
    if (e.isParent) {
      // `global` is shared with a parent chart, which may add its own keys: the one open object.
      schema = { type: 'object', additionalProperties: e.path === 'global', properties: {} };
    } else {
      const override = SCHEMA_OVERRIDES.find(([re]) => re.test(e.path));
      schema = override ? { ...override[1] } : inferred(e);
    }
    if (e.description) schema = { description: e.description, ...schema };
    (parent.properties as Record<string, Schema>)[e.path.split('.').pop()!] = schema;
    nodes.set(e.path, schema);
  }
  return root;
}

export function renderSchema(): string {
  return `${JSON.stringify(buildSchema(), null, 2)}\n`;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export const README_START = '<!-- values:start (generated by scripts/k8s-generate.ts from values.yaml) -->';
export const README_END = '<!-- values:end -->';

/** The values table of the chart README: every leaf key with type, default and description. */
export function valuesTable(entries = valueEntries()): string {
  const rows = entries
    .filter((e) => !e.isParent)
    .map((e) => `| \`${e.path}\` | ${typeName(e.value)} | \`${cell(JSON.stringify(e.value))}\` | ${cell(e.description)} |`);
  return ['| Key | Type | Default | Description |', '|-----|------|---------|-------------|', ...rows].join('\n');
}

export function renderReadme(current: string): string {
  const start = current.indexOf(README_START);
  const end = current.indexOf(README_END);
  if (start < 0 || end < start) throw new Error(`${README_FILE} needs the markers ${README_START} and ${README_END}`);
  return `${current.slice(0, start + README_START.length)}\n${valuesTable()}\n${current.slice(end)}`;
}
