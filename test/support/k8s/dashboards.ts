/**
 * The Grafana dashboards, written as data and rendered to JSON (charts/meeting-intelligence/dashboards/
 * and k8s/dashboards/ by generate.ts). Stable uids, a `datasource` variable on every dashboard, and
 * only metric names the service, prom-client, the Temporal SDK or kube-state-metrics export (checked
 * by test/integration/k8s/promql.test.ts).
 */

interface Target {
  expr: string;
  legend?: string;
}

interface Panel {
  title: string;
  description?: string;
  type?: 'timeseries' | 'stat' | 'bargauge';
  unit?: string;
  targets: Target[];
  width?: number;
  stack?: boolean;
}

interface Row {
  row: string;
  panels: Panel[];
}

interface Variable {
  name: string;
  label: string;
  query: string;
  multi?: boolean;
}

interface DashboardSpec {
  file: string;
  uid: string;
  title: string;
  description: string;
  variables: Variable[];
  rows: Row[];
}

const DS = { type: 'prometheus', uid: '${datasource}' };
const NS = 'namespace="$namespace"';
const RI = '$__rate_interval';

const namespaceVar = (metric: string): Variable => ({ name: 'namespace', label: 'Namespace', query: `label_values(${metric}, namespace)` });

const quantiles = (metric: string, by: string, sel: string, unitLabel = ''): Target[] =>
  ['0.5', '0.95', '0.99'].map((q) => ({
    expr: `histogram_quantile(${q}, sum by (${by ? `${by}, ` : ''}le) (rate(${metric}_bucket{${sel}}[${RI}])))`,
    legend: `${by ? `{{${by}}} ` : ''}p${Number(q) * 100}${unitLabel}`,
  }));

export const DASHBOARDS: DashboardSpec[] = [
  {
    file: 'service-overview.json',
    uid: 'mi-service-overview',
    title: 'Meeting Intelligence / Service overview',
    description: 'Request rate, errors and latency per role (mcp, graphql, worker), and the health of their processes.',
    variables: [namespaceVar('http_requests_total'), { name: 'role', label: 'Role', query: `label_values(http_requests_total{${NS}}, role)`, multi: true }],
    rows: [
      {
        row: 'Traffic',
        panels: [
          { title: 'Requests per second by role', unit: 'reqps', targets: [{ expr: `sum by (role) (rate(http_requests_total{${NS},role=~"$role"}[${RI}]))`, legend: '{{role}}' }] },
          {
            title: 'Server errors (5xx) by role',
            unit: 'percentunit',
            targets: [
              {
                expr: `sum by (role) (rate(http_requests_total{${NS},role=~"$role",status=~"5.."}[${RI}])) / sum by (role) (rate(http_requests_total{${NS},role=~"$role"}[${RI}]))`,
                legend: '{{role}}',
              },
            ],
          },
          {
            title: 'Client errors (4xx) by role',
            unit: 'percentunit',
            targets: [
              {
                expr: `sum by (role) (rate(http_requests_total{${NS},role=~"$role",status=~"4.."}[${RI}])) / sum by (role) (rate(http_requests_total{${NS},role=~"$role"}[${RI}]))`,
                legend: '{{role}}',
              },
            ],
          },
          { title: 'Latency p95 by role', unit: 's', targets: [{ expr: `histogram_quantile(0.95, sum by (role, le) (rate(http_request_duration_seconds_bucket{${NS},role=~"$role"}[${RI}])))`, legend: '{{role}}' }] },
          { title: 'Latency by route (p50 / p95 / p99)', unit: 's', width: 24, targets: quantiles('http_request_duration_seconds', 'route', `${NS},role=~"$role"`) },
          { title: 'Requests by route and status', unit: 'reqps', width: 24, stack: true, targets: [{ expr: `sum by (route, status) (rate(http_requests_total{${NS},role=~"$role"}[${RI}]))`, legend: '{{route}} {{status}}' }] },
        ],
      },
      {
        row: 'GraphQL',
        panels: [
          { title: 'Operations per second by outcome', unit: 'ops', stack: true, targets: [{ expr: `sum by (operation, outcome) (rate(graphql_operations_total{${NS}}[${RI}]))`, legend: '{{operation}} {{outcome}}' }] },
          { title: 'Operation latency p95', unit: 's', targets: [{ expr: `histogram_quantile(0.95, sum by (operation, le) (rate(graphql_operation_duration_seconds_bucket{${NS}}[${RI}])))`, legend: '{{operation}}' }] },
        ],
      },
      {
        row: 'Processes',
        panels: [
          { title: 'Scrape targets up', unit: 'short', targets: [{ expr: `sum by (role) (up{${NS},role=~"$role"})`, legend: '{{role}}' }] },
          { title: 'CPU (cores) by pod', unit: 'short', targets: [{ expr: `sum by (pod) (rate(process_cpu_seconds_total{${NS},role=~"$role"}[${RI}]))`, legend: '{{pod}}' }] },
          { title: 'Resident memory by pod', unit: 'bytes', targets: [{ expr: `sum by (pod) (process_resident_memory_bytes{${NS},role=~"$role"})`, legend: '{{pod}}' }] },
          { title: 'Heap used by pod', unit: 'bytes', targets: [{ expr: `sum by (pod) (nodejs_heap_size_used_bytes{${NS},role=~"$role"})`, legend: '{{pod}}' }] },
          { title: 'Event loop lag p99 by pod', unit: 's', targets: [{ expr: `max by (pod) (nodejs_eventloop_lag_p99_seconds{${NS},role=~"$role"})`, legend: '{{pod}}' }] },
          { title: 'PostgreSQL pool connections by state', unit: 'short', stack: true, targets: [{ expr: `sum by (role, state) (db_pool_connections{${NS},role=~"$role"})`, legend: '{{role}} {{state}}' }] },
          { title: 'Pods ready', unit: 'short', targets: [{ expr: `sum(kube_pod_status_ready{${NS},condition="true",pod=~".*-(mcp|graphql|worker)-.*"})`, legend: 'ready' }] },
          { title: 'Container restarts (1h)', unit: 'short', targets: [{ expr: `sum by (pod) (increase(kube_pod_container_status_restarts_total{${NS},pod=~".*-(mcp|graphql|worker)-.*"}[1h]))`, legend: '{{pod}}' }] },
        ],
      },
    ],
  },
  {
    file: 'mcp-tools.json',
    uid: 'mi-mcp-tools',
    title: 'Meeting Intelligence / MCP tools',
    description: 'MCP tool calls: rate, outcomes (ok or the error code) and latency per tool; OAuth sign-ins, tokens and refusals of the /mcp endpoint.',
    variables: [namespaceVar('mcp_tool_calls_total'), { name: 'tool', label: 'Tool', query: `label_values(mcp_tool_calls_total{${NS}}, tool)`, multi: true }],
    rows: [
      {
        row: 'Overview',
        panels: [
          { title: 'Tool calls per second', type: 'stat', unit: 'reqps', width: 6, targets: [{ expr: `sum(rate(mcp_tool_calls_total{${NS},tool=~"$tool"}[${RI}]))` }] },
          {
            title: 'Error ratio',
            type: 'stat',
            unit: 'percentunit',
            width: 6,
            targets: [{ expr: `sum(rate(mcp_tool_calls_total{${NS},tool=~"$tool",outcome!="ok"}[${RI}])) / sum(rate(mcp_tool_calls_total{${NS},tool=~"$tool"}[${RI}]))` }],
          },
          { title: 'Latency p99', type: 'stat', unit: 's', width: 6, targets: [{ expr: `histogram_quantile(0.99, sum by (le) (rate(mcp_tool_duration_seconds_bucket{${NS},tool=~"$tool"}[${RI}])))` }] },
          { title: 'Rate limited calls per second', type: 'stat', unit: 'reqps', width: 6, targets: [{ expr: `sum(rate(mcp_tool_calls_total{${NS},tool=~"$tool",outcome="too_many_requests"}[${RI}]))` }] },
        ],
      },
      {
        row: 'Per tool',
        panels: [
          { title: 'Calls per second by tool', unit: 'reqps', stack: true, targets: [{ expr: `sum by (tool) (rate(mcp_tool_calls_total{${NS},tool=~"$tool"}[${RI}]))`, legend: '{{tool}}' }] },
          {
            title: 'Error ratio by tool',
            unit: 'percentunit',
            targets: [
              {
                expr: `sum by (tool) (rate(mcp_tool_calls_total{${NS},tool=~"$tool",outcome!="ok"}[${RI}])) / sum by (tool) (rate(mcp_tool_calls_total{${NS},tool=~"$tool"}[${RI}]))`,
                legend: '{{tool}}',
              },
            ],
          },
          { title: 'Errors by code', unit: 'reqps', stack: true, targets: [{ expr: `sum by (outcome) (rate(mcp_tool_calls_total{${NS},tool=~"$tool",outcome!="ok"}[${RI}]))`, legend: '{{outcome}}' }] },
          { title: 'Latency p95 by tool', unit: 's', targets: [{ expr: `histogram_quantile(0.95, sum by (tool, le) (rate(mcp_tool_duration_seconds_bucket{${NS},tool=~"$tool"}[${RI}])))`, legend: '{{tool}}' }] },
          { title: 'Latency (p50 / p95 / p99)', unit: 's', targets: quantiles('mcp_tool_duration_seconds', '', `${NS},tool=~"$tool"`) },
          { title: 'Most called tools (range)', type: 'bargauge', unit: 'short', targets: [{ expr: `topk(10, sum by (tool) (increase(mcp_tool_calls_total{${NS},tool=~"$tool"}[$__range])))`, legend: '{{tool}}' }] },
          { title: '/mcp HTTP responses by status', unit: 'reqps', width: 24, stack: true, targets: [{ expr: `sum by (status) (rate(http_requests_total{${NS},route="/mcp"}[${RI}]))`, legend: '{{status}}' }] },
        ],
      },
      {
        row: 'Meeting and soundbite pages (/meetings, /soundbites, served by the mcp role)',
        panels: [
          {
            title: 'Page requests by route and status',
            unit: 'reqps',
            stack: true,
            targets: [{ expr: `sum by (route, status) (rate(http_requests_total{${NS},route=~"/(meetings|soundbites|signin|signout).*"}[${RI}]))`, legend: '{{route}} {{status}}' }],
          },
          {
            title: 'Page latency p95 by route',
            unit: 's',
            targets: [{ expr: `histogram_quantile(0.95, sum by (route, le) (rate(http_request_duration_seconds_bucket{${NS},route=~"/(meetings|soundbites|signin|signout).*"}[${RI}])))`, legend: '{{route}}' }],
          },
        ],
      },
      {
        row: 'OAuth (sign-in to /mcp)',
        panels: [
          {
            title: 'Sign-ins by outcome',
            description: 'Sign-ins on the built-in authorization server (config.oauth.mode=builtin): ok, bad_credentials (a wrong API key), unknown_user, provider_error.',
            unit: 'ops',
            stack: true,
            targets: [{ expr: `sum by (outcome) (rate(oauth_sign_ins_total{${NS}}[${RI}]))`, legend: '{{outcome}}' }],
          },
          { title: 'Access tokens issued by grant type', unit: 'ops', stack: true, targets: [{ expr: `sum by (grant_type) (rate(oauth_tokens_issued_total{${NS}}[${RI}]))`, legend: '{{grant_type}}' }] },
          {
            title: 'Refusals by reason',
            description: 'Access tokens refused at /mcp and requests refused by the authorization server. missing_token is the normal first request of an MCP client; expired precedes a refresh.',
            unit: 'ops',
            stack: true,
            targets: [{ expr: `sum by (reason) (rate(oauth_refusals_total{${NS}}[${RI}]))`, legend: '{{reason}}' }],
          },
          {
            title: 'Suspicious refusals and failed sign-ins',
            description: 'What the MeetingIntelOAuthRefusalBurst alert counts: refusals other than missing_token and expired, plus sign-ins with a wrong API key or an unknown user. A burst suggests credential stuffing or token guessing.',
            unit: 'ops',
            targets: [
              {
                expr: `sum(rate(oauth_refusals_total{${NS},reason!~"missing_token|expired"}[${RI}]) or rate(oauth_sign_ins_total{${NS},outcome=~"bad_credentials|unknown_user"}[${RI}]))`,
                legend: 'per second',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    file: 'pipeline-webhooks.json',
    uid: 'mi-pipeline-webhooks',
    title: 'Meeting Intelligence / Pipeline and webhooks',
    description: 'Transcription pipeline stages (fetch, transcribe, analyze, summarize, persist), webhook deliveries, automation rules and live meetings.',
    variables: [namespaceVar('pipeline_stage_duration_seconds_count')],
    rows: [
      {
        row: 'Pipeline',
        panels: [
          { title: 'Stage runs per second by outcome', unit: 'ops', stack: true, targets: [{ expr: `sum by (stage, outcome) (rate(pipeline_stage_duration_seconds_count{${NS}}[${RI}]))`, legend: '{{stage}} {{outcome}}' }] },
          {
            title: 'Stage failure ratio',
            unit: 'percentunit',
            targets: [
              {
                expr: `sum by (stage) (rate(pipeline_stage_duration_seconds_count{${NS},outcome!="ok"}[${RI}])) / sum by (stage) (rate(pipeline_stage_duration_seconds_count{${NS}}[${RI}]))`,
                legend: '{{stage}}',
              },
            ],
          },
          { title: 'Stage duration p50', unit: 's', targets: [{ expr: `histogram_quantile(0.5, sum by (stage, le) (rate(pipeline_stage_duration_seconds_bucket{${NS}}[${RI}])))`, legend: '{{stage}}' }] },
          { title: 'Stage duration p95', unit: 's', targets: [{ expr: `histogram_quantile(0.95, sum by (stage, le) (rate(pipeline_stage_duration_seconds_bucket{${NS}}[${RI}])))`, legend: '{{stage}}' }] },
          {
            title: 'Average stage duration',
            unit: 's',
            width: 24,
            targets: [{ expr: `sum by (stage) (rate(pipeline_stage_duration_seconds_sum{${NS}}[${RI}])) / sum by (stage) (rate(pipeline_stage_duration_seconds_count{${NS}}[${RI}]))`, legend: '{{stage}}' }],
          },
          {
            // A recording's way through ffmpeg and the speech server: download, extract and plan, each chunk, stitch.
            title: 'Recording stages p95 (download, prepare audio, per chunk, stitch)',
            unit: 's',
            width: 24,
            targets: [
              {
                expr: `histogram_quantile(0.95, sum by (stage, le) (rate(pipeline_stage_duration_seconds_bucket{${NS},stage=~"fetch_media|prepare_audio|transcribe_chunk|stitch_transcript"}[${RI}])))`,
                legend: '{{stage}}',
              },
            ],
          },
        ],
      },
      {
        row: 'Webhooks',
        panels: [
          { title: 'Deliveries by final outcome', unit: 'ops', stack: true, targets: [{ expr: `sum by (outcome) (rate(webhook_deliveries_total{${NS}}[${RI}]))`, legend: '{{outcome}}' }] },
          { title: 'Attempts by result', unit: 'ops', stack: true, targets: [{ expr: `sum by (result) (rate(webhook_attempts_total{${NS}}[${RI}]))`, legend: '{{result}}' }] },
          {
            title: 'Delivery failure ratio',
            unit: 'percentunit',
            targets: [{ expr: `sum(rate(webhook_deliveries_total{${NS},outcome="failed"}[${RI}])) / sum(rate(webhook_deliveries_total{${NS}}[${RI}]))`, legend: 'failed' }],
          },
          { title: 'Transcript ready to delivered (p50 / p95 / p99)', unit: 's', targets: quantiles('webhook_ready_to_delivered_seconds', '', NS) },
        ],
      },
      {
        row: 'Rules and live meetings',
        panels: [
          {
            title: 'Live meetings now',
            description: 'Active and paused live meetings, as last counted from the database (every pod counts the same rows, hence max).',
            type: 'stat',
            unit: 'short',
            width: 8,
            targets: [{ expr: `sum(max by (state) (live_meetings{${NS}}))` }],
          },
          {
            title: 'Rule executions failed (1h)',
            type: 'stat',
            unit: 'short',
            width: 8,
            targets: [{ expr: `sum(increase(rule_executions_total{${NS},status="failed"}[1h]))` }],
          },
          { title: 'Live sentences ingested (1h)', type: 'stat', unit: 'short', width: 8, targets: [{ expr: `sum(increase(live_sentences_ingested_total{${NS}}[1h]))` }] },
          { title: 'Rule executions by status', unit: 'ops', stack: true, targets: [{ expr: `sum by (status) (rate(rule_executions_total{${NS}}[${RI}]))`, legend: '{{status}}' }] },
          {
            title: 'Rule execution failure ratio',
            description: 'Executions that ended failed among all (success, partial, failed, skipped).',
            unit: 'percentunit',
            targets: [{ expr: `sum(rate(rule_executions_total{${NS},status="failed"}[${RI}])) / sum(rate(rule_executions_total{${NS}}[${RI}]))`, legend: 'failed' }],
          },
          { title: 'Live meetings by state', unit: 'short', targets: [{ expr: `max by (state) (live_meetings{${NS}})`, legend: '{{state}}' }] },
          { title: 'Live sentences ingested per second', unit: 'ops', targets: [{ expr: `sum(rate(live_sentences_ingested_total{${NS}}[${RI}]))`, legend: 'sentences' }] },
        ],
      },
    ],
  },
  {
    file: 'temporal-worker.json',
    uid: 'mi-temporal-worker',
    title: 'Meeting Intelligence / Temporal worker',
    description:
      'Temporal SDK metrics of the worker role (temporal_*). Latency histograms are in milliseconds unless the worker sets useSecondsForDurations.',
    variables: [namespaceVar('temporal_worker_task_slots_available')],
    rows: [
      {
        row: 'Workflows',
        panels: [
          {
            title: 'Workflow runs closed by result',
            unit: 'ops',
            stack: true,
            targets: [
              { expr: `sum by (workflow_type) (rate(temporal_workflow_completed{${NS}}[${RI}]))`, legend: '{{workflow_type}} completed' },
              { expr: `sum by (workflow_type) (rate(temporal_workflow_failed{${NS}}[${RI}]))`, legend: '{{workflow_type}} failed' },
              { expr: `sum by (workflow_type) (rate(temporal_workflow_canceled{${NS}}[${RI}]))`, legend: '{{workflow_type}} canceled' },
              { expr: `sum by (workflow_type) (rate(temporal_workflow_continue_as_new{${NS}}[${RI}]))`, legend: '{{workflow_type}} continued as new' },
            ],
          },
          {
            title: 'Workflow end-to-end latency p95 (ms)',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (workflow_type, le) (rate(temporal_workflow_endtoend_latency_bucket{${NS}}[${RI}])))`, legend: '{{workflow_type}}' }],
          },
          {
            title: 'Workflow task failures',
            description: 'Non-zero means workflows make no progress: non-determinism after a deploy or a bug in workflow code.',
            unit: 'ops',
            targets: [{ expr: `sum by (workflow_type, failure_reason) (rate(temporal_workflow_task_execution_failed{${NS}}[${RI}]))`, legend: '{{workflow_type}} {{failure_reason}}' }],
          },
          {
            title: 'Workflow task schedule-to-start p95 (ms)',
            description: 'Time a workflow task waits for a worker: grows when workers are too few or saturated.',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (le) (rate(temporal_workflow_task_schedule_to_start_latency_bucket{${NS}}[${RI}])))`, legend: 'p95' }],
          },
          {
            title: 'Workflow task execution p95 (ms)',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (workflow_type, le) (rate(temporal_workflow_task_execution_latency_bucket{${NS}}[${RI}])))`, legend: '{{workflow_type}}' }],
          },
          {
            title: 'Workflow task replay p95 (ms)',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (workflow_type, le) (rate(temporal_workflow_task_replay_latency_bucket{${NS}}[${RI}])))`, legend: '{{workflow_type}}' }],
          },
        ],
      },
      {
        row: 'Activities',
        panels: [
          { title: 'Activity failures', unit: 'ops', targets: [{ expr: `sum by (activity_type) (rate(temporal_activity_execution_failed{${NS}}[${RI}]))`, legend: '{{activity_type}}' }] },
          {
            title: 'Activity execution p95 (ms)',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (activity_type, le) (rate(temporal_activity_execution_latency_bucket{${NS}}[${RI}])))`, legend: '{{activity_type}}' }],
          },
          {
            title: 'Activity schedule-to-start p95 (ms)',
            description: 'Time an activity task waits for a free worker slot (WORKER_MAX_CONCURRENT_ACTIVITIES per pod): grows when workers are too few. The SDK records it per task queue, not per activity type.',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (task_queue, le) (rate(temporal_activity_schedule_to_start_latency_bucket{${NS}}[${RI}])))`, legend: '{{task_queue}}' }],
          },
          {
            title: 'Activity succeeded end-to-end p95 (ms)',
            unit: 'ms',
            targets: [{ expr: `histogram_quantile(0.95, sum by (activity_type, le) (rate(temporal_activity_succeed_endtoend_latency_bucket{${NS}}[${RI}])))`, legend: '{{activity_type}}' }],
          },
        ],
      },
      {
        row: 'Worker capacity',
        panels: [
          { title: 'Free task slots', unit: 'short', targets: [{ expr: `sum by (worker_type) (temporal_worker_task_slots_available{${NS}})`, legend: '{{worker_type}}' }] },
          { title: 'Used task slots', unit: 'short', targets: [{ expr: `sum by (worker_type) (temporal_worker_task_slots_used{${NS}})`, legend: '{{worker_type}}' }] },
          { title: 'Pollers', unit: 'short', targets: [{ expr: `sum by (poller_type) (temporal_num_pollers{${NS}})`, legend: '{{poller_type}}' }] },
          {
            title: 'Sticky cache',
            unit: 'short',
            targets: [
              { expr: `sum(temporal_sticky_cache_size{${NS}})`, legend: 'size' },
              { expr: `sum(rate(temporal_sticky_cache_hit{${NS}}[${RI}]))`, legend: 'hits/s' },
              { expr: `sum(rate(temporal_sticky_cache_miss{${NS}}[${RI}]))`, legend: 'misses/s' },
            ],
          },
          {
            title: 'Temporal client request failures',
            unit: 'ops',
            targets: [
              { expr: `sum by (operation) (rate(temporal_request_failure{${NS}}[${RI}]))`, legend: '{{operation}}' },
              { expr: `sum by (operation) (rate(temporal_long_request_failure{${NS}}[${RI}]))`, legend: '{{operation}} (long poll)' },
            ],
          },
          { title: 'Empty polls per second', unit: 'ops', targets: [
            { expr: `sum(rate(temporal_workflow_task_queue_poll_empty{${NS}}[${RI}]))`, legend: 'workflow' },
            { expr: `sum(rate(temporal_activity_poll_no_task{${NS}}[${RI}]))`, legend: 'activity' },
          ] },
          { title: 'Worker resident memory by pod', unit: 'bytes', targets: [{ expr: `sum by (pod) (process_resident_memory_bytes{${NS},role="worker"})`, legend: '{{pod}}' }] },
          { title: 'Worker CPU (cores) by pod', unit: 'short', targets: [{ expr: `sum by (pod) (rate(process_cpu_seconds_total{${NS},role="worker"}[${RI}]))`, legend: '{{pod}}' }] },
        ],
      },
    ],
  },
];

type Json = Record<string, unknown>;

function panelJson(p: Panel, id: number, x: number, y: number, w: number, h: number): Json {
  const type = p.type ?? 'timeseries';
  const base: Json = {
    id,
    type,
    title: p.title,
    ...(p.description ? { description: p.description } : {}),
    datasource: DS,
    gridPos: { h, w, x, y },
    targets: p.targets.map((t, i) => ({
      datasource: DS,
      refId: String.fromCharCode(65 + i),
      expr: t.expr,
      ...(t.legend ? { legendFormat: t.legend } : {}),
      range: true,
      editorMode: 'code',
    })),
  };
  if (type === 'timeseries') {
    base.fieldConfig = {
      defaults: {
        unit: p.unit ?? 'short',
        min: 0,
        custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: p.stack ? 30 : 10, showPoints: 'never', stacking: { mode: p.stack ? 'normal' : 'none', group: 'A' } },
      },
      overrides: [],
    };
    base.options = { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } };
  } else if (type === 'stat') {
    base.fieldConfig = { defaults: { unit: p.unit ?? 'short', color: { mode: 'thresholds' }, thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] } }, overrides: [] };
    base.options = { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area', textMode: 'auto' };
  } else {
    base.fieldConfig = { defaults: { unit: p.unit ?? 'short', min: 0 }, overrides: [] };
    base.options = { orientation: 'horizontal', displayMode: 'gradient', reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false } };
  }
  return base;
}

export function dashboardJson(d: DashboardSpec): Json {
  const panels: Json[] = [];
  let id = 1;
  let y = 0;
  for (const row of d.rows) {
    panels.push({ id: id++, type: 'row', title: row.row, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    let x = 0;
    let rowHeight = 0;
    for (const p of row.panels) {
      const w = p.width ?? 12;
      const h = p.type === 'stat' ? 4 : 8;
      if (x + w > 24) {
        x = 0;
        y += rowHeight;
        rowHeight = 0;
      }
      panels.push(panelJson(p, id++, x, y, w, h));
      x += w;
      rowHeight = Math.max(rowHeight, h);
    }
    y += rowHeight;
  }
  const variables: Json[] = [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', refresh: 1, regex: '', hide: 0, current: {}, options: [] },
    ...d.variables.map((v) => ({
      name: v.name,
      label: v.label,
      type: 'query',
      datasource: DS,
      definition: v.query,
      query: { query: v.query, refId: `${v.name}-variable` },
      refresh: 2,
      sort: 1,
      hide: 0,
      regex: '',
      multi: Boolean(v.multi),
      includeAll: Boolean(v.multi),
      ...(v.multi ? { allValue: '.*' } : {}),
      current: {},
      options: [],
    })),
  ];
  return {
    uid: d.uid,
    title: d.title,
    description: d.description,
    tags: ['meeting-intelligence'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    timezone: 'utc',
    fiscalYearStartMonth: 0,
    liveNow: false,
    weekStart: '',
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    links: [{ title: 'Meeting Intelligence', type: 'dashboards', tags: ['meeting-intelligence'], asDropdown: true, includeVars: true, keepTime: true }],
    templating: { list: variables },
    panels,
  };
}

/** file name → JSON text, exactly as written to disk. */
export function renderDashboards(): Map<string, string> {
  return new Map(DASHBOARDS.map((d) => [d.file, `${JSON.stringify(dashboardJson(d), null, 2)}\n`]));
}

/** Every PromQL expression of a dashboard JSON: panel targets and query variables. */
export function dashboardExpressions(json: Json): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  const panels = (json.panels as Json[]) ?? [];
  const all = panels.flatMap((p) => [p, ...(((p.panels as Json[]) ?? []) as Json[])]);
  for (const p of all) {
    for (const t of (p.targets as Json[]) ?? []) {
      if (typeof t.expr === 'string') out.push({ where: `${json.uid} / ${p.title} / ${t.refId}`, expr: t.expr });
    }
  }
  for (const v of ((json.templating as Json)?.list as Json[]) ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : ((v.query as Json)?.query as string);
    if (q) out.push({ where: `${json.uid} / $${v.name}`, expr: q });
  }
  return out;
}
