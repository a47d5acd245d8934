/**
 * Every PromQL expression in the dashboards and the alerts names only metrics that exist, offline: the
 * service's registry (services/platform/metrics.ts, with prom-client's default metrics), the Temporal
 * SDK's temporal_* metrics (checked against sdk-core's sources), and the cluster's (up,
 * kube-state-metrics, cAdvisor). A fast check without PostgreSQL or Temporal; image-roles.test.ts
 * checks the same expressions against what running mcp, graphql and worker processes really expose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dashboardExpressions } from '../../support/k8s/dashboards';
import {
  CLUSTER_METRICS,
  labelNamesIn,
  metricNamesIn,
  namesFromExposition,
  parseExposition,
  registryMetricNames,
  temporalMetricNames,
  temporalNamesInSdkSources,
} from '../../support/k8s/promql';
import { CHART_DIR, helmTemplate, K8sObject, VALUES_ALL } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

const DASHBOARD_DIR = path.join(CHART_DIR, 'dashboards');

let known: Set<string>;
let alerts: { where: string; expr: string }[];

beforeAll(async () => {
  await ensureTool('helm');
  const [registry, rendered] = await Promise.all([
    registryMetricNames(),
    helmTemplate({ valuesFiles: [VALUES_ALL], set: { 'metrics.prometheusRule.additionalRules': 'null' } }),
  ]);
  known = new Set([...registry, ...temporalMetricNames(), ...CLUSTER_METRICS]);
  const rule = rendered.find((o: K8sObject) => o.kind === 'PrometheusRule') as K8sObject & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
  alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })));
}, 20 * 60_000);

const dashboards = () =>
  readdirSync(DASHBOARD_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: f, json: JSON.parse(readFileSync(path.join(DASHBOARD_DIR, f), 'utf8')) as Record<string, unknown> }));

function unknownNames(exprs: { where: string; expr: string }[]): string[] {
  const problems: string[] = [];
  for (const { where, expr } of exprs) {
    const names = metricNamesIn(expr);
    if (names.length === 0) problems.push(`${where}: no metric in ${expr}`);
    for (const n of names) if (!known.has(n)) problems.push(`${where}: unknown metric ${n}`);
  }
  return problems;
}

describe('metric name extraction', () => {
  it.each([
    ['sum by (role) (rate(http_requests_total{namespace="$namespace",status=~"5.."}[$__rate_interval]))', ['http_requests_total']],
    ['histogram_quantile(0.99, sum by (namespace, le) (rate(mcp_tool_duration_seconds_bucket{job=~"a-(b|c)"}[5m]))) > 5', ['mcp_tool_duration_seconds_bucket']],
    ['a_total / on (pod) group_left (node) b_info offset 1h', ['a_total', 'b_info']],
    ['sum(rate(x[5m])) without (le) > bool 1e3 and up == 0', ['x', 'up']],
    ['label_values(temporal_num_pollers{namespace="x"}, poller_type)', ['temporal_num_pollers']],
    ['label_values(namespace)', []],
    ['topk(10, sum by (tool) (increase(mcp_tool_calls_total{tool=~"$tool"}[$__range])))', ['mcp_tool_calls_total']],
  ])('%s', (expr, names) => {
    expect(metricNamesIn(expr).sort()).toEqual([...names].sort());
  });

  it('reads names from a text exposition', () => {
    const text = '# HELP a_seconds x\n# TYPE a_seconds histogram\na_seconds_bucket{le="1"} 1\n# TYPE temporal_request counter\ntemporal_request{operation="x"} 3\nup 1\n';
    expect([...namesFromExposition(text)].sort()).toEqual(['a_seconds_bucket', 'a_seconds_count', 'a_seconds_sum', 'temporal_request', 'up']);
  });

  it('tells series from declared-only families, with the labels of each series', () => {
    const text = '# TYPE b_total counter\n# TYPE a_seconds histogram\na_seconds_bucket{le="1",stage="x"} 1\na_seconds_count{stage="x",note="a,b=\\"c\\""} 1\nup 1\n';
    const e = parseExposition(text);
    expect([...e.sampled].sort()).toEqual(['a_seconds_bucket', 'a_seconds_count', 'up']);
    expect(e.declared).toContain('b_total');
    expect(e.sampled).not.toContain('b_total');
    expect([...e.labels.get('a_seconds_count')!].sort()).toEqual(['note', 'stage']);
    expect([...e.labels.get('up')!]).toEqual([]);
  });

  it.each([
    ['sum by (role, le) (rate(x_bucket{namespace="$namespace",status=~"5.."}[5m]))', ['le', 'namespace', 'role', 'status']],
    ['a / on (pod) group_left (node) b{k!="v,w"}', ['k', 'node', 'pod']],
    ['label_values(temporal_num_pollers{namespace="x"}, poller_type)', ['namespace', 'poller_type']],
    ['up{job=~"a|b"} <= 0', ['job']],
  ])('reads the labels of %s', (expr, labels) => {
    expect(labelNamesIn(expr).sort()).toEqual(labels);
  });
});

describe('known metric names', () => {
  it('include the service registry, with histogram series and prom-client defaults', () => {
    for (const n of ['http_requests_total', 'http_request_duration_seconds_bucket', 'mcp_tool_calls_total', 'webhook_deliveries_total', 'pipeline_stage_duration_seconds_count', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes'])
      expect(known).toContain(n);
  });

  it('list only Temporal SDK metrics that sdk-core declares', () => {
    const { sourcesFound, missing } = temporalNamesInSdkSources();
    if (!sourcesFound) return; // the package may ship without sources one day; the allowlist stays
    expect(missing).toEqual([]);
  });
});

describe('dashboards', () => {
  it('are the four expected, with stable unique uids and a datasource variable', () => {
    const ds = dashboards();
    expect(ds.map((d) => d.json.uid).sort()).toEqual(['mi-mcp-tools', 'mi-pipeline-webhooks', 'mi-service-overview', 'mi-temporal-worker']);
    for (const { file, json } of ds) {
      const vars = (json.templating as { list: { name: string; type: string; query: unknown }[] }).list;
      expect([file, vars.find((v) => v.name === 'datasource')]).toEqual([file, expect.objectContaining({ type: 'datasource', query: 'prometheus' })]);
    }
  });

  it('query the datasource variable in every panel and target', () => {
    for (const { file, json } of dashboards()) {
      for (const p of json.panels as { type: string; title: string; datasource?: { uid: string }; targets?: { datasource: { uid: string } }[] }[]) {
        if (p.type === 'row') continue;
        expect([file, p.title, p.datasource?.uid]).toEqual([file, p.title, '${datasource}']);
        for (const t of p.targets ?? []) expect([file, p.title, t.datasource.uid]).toEqual([file, p.title, '${datasource}']);
      }
    }
  });

  it('use only metric names that exist', () => {
    const exprs = dashboards().flatMap(({ json }) => dashboardExpressions(json));
    expect(exprs.length).toBeGreaterThan(50);
    expect(unknownNames(exprs)).toEqual([]);
  });

  it('cover the service overview, MCP tools, pipeline, webhooks, automation rules, live meetings and Temporal worker metrics', () => {
    const used = new Set(dashboards().flatMap(({ json }) => dashboardExpressions(json)).flatMap((e) => metricNamesIn(e.expr)));
    for (const n of [
      'http_requests_total', 'http_request_duration_seconds_bucket', 'graphql_operations_total', 'mcp_tool_calls_total', 'mcp_tool_duration_seconds_bucket',
      'pipeline_stage_duration_seconds_bucket', 'webhook_deliveries_total', 'webhook_attempts_total', 'webhook_ready_to_delivered_seconds_bucket',
      'rule_executions_total', 'live_meetings', 'live_sentences_ingested_total', 'temporal_workflow_failed', 'temporal_worker_task_slots_available',
    ])
      expect([n, used.has(n)]).toEqual([n, true]);
  });
});

describe('alerts', () => {
  it('a name that does not exist is reported', () => {
    expect(unknownNames([{ where: 'x', expr: 'sum(rate(mcp_tool_call_total[5m]))' }])).toEqual(['x: unknown metric mcp_tool_call_total']);
  });

  it('use only metric names that exist', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    expect(unknownNames(alerts)).toEqual([]);
  });

});
