/**
 * Which metric names a PromQL expression uses, and which names exist: the service's registry
 * (services/platform/metrics.ts, with prom-client's default process/nodejs metrics), the Temporal SDK's
 * temporal_* metrics, kube-state-metrics / cAdvisor / Prometheus' own `up`, and what running roles
 * expose on /metrics (parseExposition; test/integration/k8s/image-roles.test.ts starts and scrapes them).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './tools';

const FUNCTIONS_AND_KEYWORDS = new Set([
  // binary operators and modifiers
  'and', 'or', 'unless', 'bool', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'atan2',
  // number literals
  'inf', 'nan', 'Inf', 'NaN',
]);

/** Metric names referenced by one PromQL expression (Grafana variables such as $__rate_interval allowed). */
export function metricNamesIn(expr: string): string[] {
  let s = expr;
  // Grafana's label_values(metric{...}, label) / label_values(label): keep the metric only.
  s = s.replace(/label_values\(\s*([^,()]*?)\s*,\s*[A-Za-z_]\w*\s*\)/g, ' $1 ').replace(/label_values\(\s*[A-Za-z_]\w*\s*\)/g, ' ');
  s = s.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ""');
  s = s.replace(/\$\{[^}]*\}|\$\w+/g, ' ');
  s = s.replace(/\{[^}]*\}/g, ' ');
  s = s.replace(/\[[^\]]*\]/g, ' ');
  s = s.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  s = s.replace(/\boffset\s+-?[0-9a-z]+/g, ' ');
  const names = new Set<string>();
  const re = /(?<![\w.:])([A-Za-z_:][\w:]*)(\s*\()?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    const [, word, call] = m;
    if (call) continue; // a function or aggregation
    if (FUNCTIONS_AND_KEYWORDS.has(word)) continue;
    names.add(word);
  }
  return [...names];
}

/**
 * Temporal SDK (sdk-core) metrics as exported by the Prometheus exporter with its defaults: the
 * `temporal_` prefix, no `_total` suffix on counters, durations in milliseconds without a unit suffix.
 */
export const TEMPORAL_COUNTERS = [
  'workflow_completed', 'workflow_failed', 'workflow_canceled', 'workflow_continue_as_new',
  'workflow_task_execution_failed', 'workflow_task_queue_poll_empty', 'workflow_task_queue_poll_succeed',
  'activity_execution_failed', 'activity_poll_no_task', 'activity_task_received',
  'local_activity_execution_failed', 'local_activity_execution_cancelled', 'local_activity_total',
  'sticky_cache_hit', 'sticky_cache_miss', 'sticky_cache_total_forced_eviction', 'worker_start',
  'request', 'request_failure', 'long_request', 'long_request_failure',
];
export const TEMPORAL_GAUGES = ['worker_task_slots_available', 'worker_task_slots_used', 'num_pollers', 'sticky_cache_size'];
export const TEMPORAL_HISTOGRAMS = [
  'workflow_endtoend_latency', 'workflow_task_schedule_to_start_latency', 'workflow_task_replay_latency',
  'workflow_task_execution_latency', 'activity_schedule_to_start_latency', 'activity_execution_latency',
  'activity_succeed_endtoend_latency', 'local_activity_execution_latency', 'local_activity_succeed_endtoend_latency',
  'request_latency', 'long_request_latency',
];

export function temporalMetricNames(): Set<string> {
  const names = new Set<string>();
  for (const n of [...TEMPORAL_COUNTERS, ...TEMPORAL_GAUGES]) names.add(`temporal_${n}`);
  for (const n of TEMPORAL_HISTOGRAMS) for (const suffix of ['_bucket', '_sum', '_count']) names.add(`temporal_${n}${suffix}`);
  return names;
}

/** Metrics of the cluster around the service: Prometheus' `up`, kube-state-metrics, cAdvisor. */
export const CLUSTER_METRICS = [
  'up',
  'kube_pod_status_ready',
  'kube_pod_container_status_restarts_total',
  'kube_deployment_spec_replicas',
  'kube_deployment_status_replicas_available',
  'kube_horizontalpodautoscaler_status_current_replicas',
  'container_cpu_usage_seconds_total',
  'container_memory_working_set_bytes',
];

const SDK_CORE_CRATES = path.join(REPO_ROOT, 'node_modules', '@temporalio', 'core-bridge', 'sdk-core', 'crates');
let sdkCoreText: string | undefined;

/** sdk-core's Rust sources as shipped in node_modules/@temporalio/core-bridge (undefined if not shipped). */
function sdkCoreSources(): string | undefined {
  if (sdkCoreText !== undefined || !existsSync(SDK_CORE_CRATES)) return sdkCoreText;
  let text = '';
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const p = path.join(dir, entry);
      if (statSync(p).isDirectory()) {
        if (entry !== 'tests' && entry !== 'target') walk(p);
      } else if (entry.endsWith('.rs')) text += readFileSync(p, 'utf8');
    }
  };
  walk(SDK_CORE_CRATES);
  return (sdkCoreText = text);
}

/** The base names of the Temporal allowlist that sdk-core's sources (shipped in node_modules) declare. */
export function temporalNamesInSdkSources(): { sourcesFound: boolean; missing: string[] } {
  const text = sdkCoreSources();
  if (text === undefined) return { sourcesFound: false, missing: [] };
  const missing = [...TEMPORAL_COUNTERS, ...TEMPORAL_GAUGES, ...TEMPORAL_HISTOGRAMS].filter((n) => !text.includes(`"${n}"`));
  return { sourcesFound: true, missing };
}

/**
 * Exported Temporal names (temporal_x, temporal_x_bucket, ...) whose metric sdk-core's sources do not
 * declare. Throws when the sources are not shipped: the caller relies on them.
 */
export function sdkCoreMissing(exported: string[]): string[] {
  const text = sdkCoreSources();
  if (text === undefined) throw new Error(`sdk-core's sources are not in ${SDK_CORE_CRATES}`);
  return exported.filter((n) => !text.includes(`"${n.replace(/^temporal_/, '').replace(/_(bucket|sum|count)$/, '')}"`));
}

interface MetricJson {
  name: string;
  type: string;
}

/** Names the service's own registry exposes (histograms expanded to _bucket/_sum/_count). */
export async function registryMetricNames(): Promise<Set<string>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { registry } = require('../../../services/platform/metrics') as { registry: { getMetricsAsJSON(): Promise<MetricJson[]> } };
  const names = new Set<string>();
  for (const m of await registry.getMetricsAsJSON()) addName(names, m.name, m.type);
  return names;
}

function addName(names: Set<string>, name: string, type: string): void {
  if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
  else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(`${name}${s}`);
  else names.add(name);
}

/** Names in a Prometheus text exposition (`# TYPE` lines plus every sample). */
export function namesFromExposition(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([A-Za-z_:][\w:]*) (\w+)/.exec(line);
    if (type) {
      addName(names, type[1], type[2]);
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

/** What a text exposition holds: names with at least one sample, names only declared, and labels seen. */
export interface Exposition {
  /** Names with at least one sample line (a series exists). */
  sampled: Set<string>;
  /** Names of every `# TYPE` line (histograms expanded), with or without samples. */
  declared: Set<string>;
  /** Label names seen on each sampled name's series. */
  labels: Map<string, Set<string>>;
}

export function emptyExposition(): Exposition {
  return { sampled: new Set(), declared: new Set(), labels: new Map() };
}

export function parseExposition(text: string, into: Exposition = emptyExposition()): Exposition {
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([A-Za-z_:][\w:]*) (\w+)/.exec(line);
    if (type) {
      addName(into.declared, type[1], type[2]);
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)(\{(.*)\})?\s/.exec(line);
    if (!sample) continue;
    into.sampled.add(sample[1]);
    const labels = into.labels.get(sample[1]) ?? new Set<string>();
    for (const m of (sample[3] ?? '').matchAll(/([A-Za-z_]\w*)="(?:[^"\\]|\\.)*"/g)) labels.add(m[1]);
    into.labels.set(sample[1], labels);
  }
  return into;
}

/** Label names a PromQL expression matches on or groups by (label_values' label included). */
export function labelNamesIn(expr: string): string[] {
  const labels = new Set<string>();
  const s = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  for (const m of s.matchAll(/\{([^}]*)\}/g)) for (const l of m[1].matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(l[1]);
  for (const m of s.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g))
    for (const l of m[1].split(',').map((x) => x.trim()).filter(Boolean)) labels.add(l);
  for (const m of s.matchAll(/label_values\([^,()]*(?:\{[^}]*\})?\s*,\s*([A-Za-z_]\w*)\s*\)/g)) labels.add(m[1]);
  return [...labels];
}
