/**
 * The three roles as a cluster runs them, without Docker or a cluster. The image's /app is built the
 * Dockerfile's way (compiled dist/, the workflow bundle prebuilt by scripts/build-workflow-bundle.ts),
 * and each role runs in its own process, like its Deployment: the image's entrypoint with the chart's
 * args (`serve mcp|graphql|worker`), the image's ENV and the chart's env and ConfigMap, against the test
 * PostgreSQL and Temporal (test/support/k8s/image.ts). Then:
 *
 *  - the worker loads the prebuilt bundle, never bundles at start, and runs uploads' workflows from it;
 *  - after a little traffic (MCP tool calls, GraphQL operations, uploads that complete, fail and are
 *    cancelled), every metric name in every dashboard and alert is one the roles expose on /metrics or
 *    the worker's Temporal SDK exporter exposes (TEMPORAL_METRICS_BIND_ADDRESS, on in the chart).
 *    Exceptions are explicit lists: the cluster's own metrics (kube-state-metrics, cAdvisor, `up`), the
 *    service's metrics whose series appear with features this run does not exercise (declared on
 *    /metrics all the same), and Temporal metrics that appear only on rare events (checked against
 *    sdk-core's sources). Every label the expressions match or group by exists on the scraped series.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { freePort } from '../../../services/devstack/ports';
import { createTemporalClient } from '../../../services/platform/temporal';
import { dashboardExpressions } from '../../support/k8s/dashboards';
import { chartContainer, ImageApp, imageContract, prepareImageApp, RoleProcess, startRole } from '../../support/k8s/image';
import { CLUSTER_METRICS, emptyExposition, Exposition, labelNamesIn, metricNamesIn, parseExposition, sdkCoreMissing } from '../../support/k8s/promql';
import { CHART_DIR, helmTemplate, K8sObject, RELEASE } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';
import { testConfig } from '../../support/config';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { TRANSCRIPT, UPLOAD_AUDIO } from '../../support/graphql';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { MediaServer, startMediaServer } from '../core/ingest/media-server';
import { reportTiming } from '../../support/timings';

const ROLES = ['mcp', 'graphql', 'worker'] as const;
type RoleName = (typeof ROLES)[number];

/**
 * Metrics of the service whose series appear only with features this run does not exercise. Each must
 * still be declared (# TYPE) on the roles' /metrics: prom-client prints a labelled metric's family
 * before its first observation, but no series.
 */
const SERVICE_AWAITING_EVENTS: Record<string, string> = {
  webhook_deliveries_total: 'a webhook delivery ends (this run configures no webhook)',
  webhook_attempts_total: 'a webhook attempt is answered (this run configures no webhook)',
  rule_executions_total: 'an automation rule runs (this run defines no rule)',
  live_meetings: 'the live-meeting gauge is counted (this run starts no live meeting)',
  // Exercised with the built-in OAuth server by test/integration/k8s/prometheus-scrape.test.ts.
  oauth_sign_ins_total: 'someone signs in at the built-in OAuth server (this run keeps OAUTH_MODE=none)',
  oauth_tokens_issued_total: 'the built-in OAuth server issues a token (this run keeps OAUTH_MODE=none)',
  oauth_refusals_total: 'an OAuth token or request is refused (this run keeps OAUTH_MODE=none)',
};

/**
 * Temporal SDK metrics that appear only on events a short, healthy run does not produce. sdk-core
 * registers a metric with the exporter on its first observation, so these are checked against
 * sdk-core's sources (shipped in node_modules/@temporalio/core-bridge) instead.
 */
const TEMPORAL_EVENT_ONLY: Record<string, string> = {
  temporal_workflow_task_execution_failed: 'a workflow task fails (non-determinism after a deploy, or a bug in workflow code)',
  temporal_workflow_continue_as_new: 'a workflow continues as new',
  temporal_workflow_task_replay_latency_bucket: 'a workflow history is replayed (after a sticky cache eviction or on another worker)',
  temporal_sticky_cache_miss: 'a workflow task finds its run evicted from the sticky cache',
  temporal_request_failure: 'a Temporal frontend call fails',
  temporal_long_request_failure: 'a long poll to the Temporal frontend fails',
  temporal_workflow_task_queue_poll_empty: 'a workflow long poll ends without a task (after about a minute idle)',
  temporal_activity_poll_no_task: 'an activity long poll ends without a task (after about a minute idle)',
};

/** Labels Prometheus adds to every scraped series (and the role label of the chart's ServiceMonitors). */
const TARGET_LABELS = ['namespace', 'pod', 'job', 'instance', 'service', 'endpoint', 'container', 'role'];

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Rae>Ship the chart on Friday.\n\n00:00:03.500 --> 00:00:05.000\n<v Sol>Agreed, after the scrape test.\n';

let app: ImageApp;
let t: TestDatabase;
let media: MediaServer;
let user: TestUser;
let rendered: K8sObject[];
const ports = { mcp: 0, graphql: 0, worker: 0, temporal: 0 };
let chartWorkerEnv: Record<string, string>;
const roles = new Map<RoleName, RoleProcess>();
const started = new Map<RoleName, { args: string[]; readyMs: number }>();
const queue = `test-image-${randomBytes(4).toString('hex')}`;
const temporal = createTemporalClient(testConfig({ TEMPORAL_TASK_QUEUE: queue }));

const base = (role: 'mcp' | 'graphql' | 'worker') => `http://127.0.0.1:${ports[role]}`;

beforeAll(async () => {
  await ensureTool('helm');
  let prepared: ImageApp | undefined;
  try {
    [prepared, t, media, rendered] = await Promise.all([
      prepareImageApp(),
      createTestDatabase(),
      startMediaServer(),
      helmTemplate({ set: { 'metrics.serviceMonitor.enabled': true, 'metrics.prometheusRule.enabled': true }, skipTests: true }),
    ]);
  } finally {
    if (prepared) app = prepared;
  }
  user = await makeUser(t.db, await makeTeam(t.db), { name: 'Rae' });

  const secrets = { DATABASE_URL: t.url, SECRETS_KEY: randomBytes(32).toString('hex') };
  const start = async (role: RoleName): Promise<void> => {
    const { args, env } = chartContainer(rendered, `${RELEASE}-${role}`, secrets);
    if (role === 'worker') chartWorkerEnv = env;
    // The HTTP servers take port 0 (the role logs where it listens). The Temporal SDK exporter names
    // no port it picked, so it gets a free one, and another if something takes it first.
    for (let attempt = 1; ; attempt++) {
      const temporalPort = role === 'worker' && env.TEMPORAL_METRICS_BIND_ADDRESS ? await freePort() : undefined;
      const proc = startRole(
        role,
        app.command(args),
        {
          PATH: process.env.PATH ?? '',
          ...app.env,
          ...env,
          // Where this run's services are, instead of the cluster's.
          TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
          TEMPORAL_TASK_QUEUE: queue,
          HOST: '127.0.0.1',
          MCP_PORT: '0',
          GRAPHQL_PORT: '0',
          WORKER_METRICS_PORT: '0',
          ...(temporalPort ? { TEMPORAL_METRICS_BIND_ADDRESS: `127.0.0.1:${temporalPort}` } : {}),
          ALLOW_PRIVATE_NETWORK: 'true', // the recordings come from a server on 127.0.0.1
          SHUTDOWN_GRACE_MS: '1000',
          LOG_LEVEL: 'info',
        },
        app.root,
      );
      roles.set(role, proc);
      try {
        const ready = await proc.waitForLog((l) => l.msg === 'ready' && Array.isArray(l.urls));
        ports[role] = Number(/^http:\/\/127\.0\.0\.1:(\d+)\//.exec((ready.urls as string[])[0])?.[1]);
        if (temporalPort) ports.temporal = temporalPort;
        const readyMs = await proc.waitForOk(`${base(role)}/readyz`);
        started.set(role, { args, readyMs });
        return;
      } catch (e) {
        if (attempt >= 3 || !proc.exited() || !/in use|EADDRINUSE|bind/i.test(proc.output())) throw e;
      }
    }
  };
  // The API roles need no workflow code: they start while the build stage's bundle step runs.
  await Promise.all([start('mcp'), start('graphql'), app.buildBundle().then(() => start('worker'))]);
}, 4 * 60_000);

afterAll(async () => {
  await Promise.all([...roles.values()].map((r) => r.stop()));
  await temporal.connection.close();
  await media?.close();
  await t?.drop();
  app?.remove();
}, 60_000);

async function graphql(query: string, variables: Record<string, unknown>): Promise<{ data?: any; errors?: { message: string }[] }> {
  const res = await fetch(`${base('graphql')}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string }[] };
}

async function upload(url: string): Promise<string> {
  const body = await graphql(UPLOAD_AUDIO, { input: { url } });
  expect(body.errors).toBeUndefined();
  return body.data.uploadAudio.meetingId as string;
}

const run = (meetingId: string) => temporal.client.workflow.getHandle(`transcription-${meetingId}`);

async function outcome(meetingId: string): Promise<{ status: 'completed'; result: any } | { status: 'failed' | 'canceled'; message: string }> {
  try {
    return { status: 'completed', result: await run(meetingId).result() };
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    return { status: e.cause instanceof CancelledFailure ? 'canceled' : 'failed', message: e.cause?.message ?? e.message };
  }
}

describe('the image, built as the Dockerfile builds it', () => {
  it('holds the compiled roles and the prebuilt workflow bundle where MI_WORKFLOW_BUNDLE points', () => {
    const contract = imageContract();
    expect(contract.env.MI_WORKFLOW_BUNDLE).toBe(path.posix.join(contract.workdir, 'dist/workflow-bundle.js'));
    expect(app.bundle).toBe(path.join(app.root, 'dist', 'workflow-bundle.js'));
    const code = readFileSync(app.bundle, 'utf8');
    expect(code.length).toBeGreaterThan(100_000);
    expect(code).toContain('TranscriptionWorkflow');
    if (app.typeErrors) {
      // `npm run build` would stop the image build here; the roles below still run from tsc's output.
      // eslint-disable-next-line no-console
      console.warn(`[image] npm run build reports type errors (the image would not build):\n${app.typeErrors.slice(0, 3000)}`);
    }
  });

  it("starts each role with the image's entrypoint and its Deployment's args", () => {
    const contract = imageContract();
    expect(contract.entrypoint.slice(-1)).toEqual([path.posix.join(contract.workdir, 'bin/meeting-intel')]);
    for (const role of ROLES) expect([role, started.get(role)?.args]).toEqual([role, ['serve', role]]);
    expect(chartWorkerEnv.TEMPORAL_METRICS_BIND_ADDRESS).toMatch(/^0\.0\.0\.0:\d+$/); // the chart turns the Temporal SDK exporter on
  });
});

describe('the worker role', () => {
  it('loads the prebuilt bundle and never bundles at start', async () => {
    const worker = roles.get('worker')!;
    const logs = worker.logs();
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'loading the prebuilt workflow bundle', workflowBundle: app.bundle, role: 'worker' }));
    expect(logs.filter((l) => /bundling workflow code/.test(String(l.msg)))).toEqual([]);
    expect(worker.output()).not.toMatch(/Workflow bundle created/); // the SDK's line when it runs webpack
    const ready = (await (await fetch(`${base('worker')}/readyz`)).json()) as { checks: { name: string; ok: boolean }[] };
    expect(ready.checks).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'worker', ok: true }), expect.objectContaining({ name: 'database', ok: true })]));
    reportTiming(`[image] tsc ${app.timings.compileMs} ms, bundle ${app.timings.bundleMs} ms; ready after ${ROLES.map((r) => `${r} ${started.get(r)?.readyMs} ms`).join(', ')}`);
  });

  it("runs an upload's TranscriptionWorkflow from the bundle to completed (uploaded and read through the graphql role)", async () => {
    const id = await upload(media.serve('/ok.vtt', { body: VTT, contentType: 'text/vtt' }));
    expect(await outcome(id)).toMatchObject({ status: 'completed', result: { sentences: 2, speakers: 2 } });
    const read = await graphql(TRANSCRIPT, { id });
    expect(read.data.transcript).toMatchObject({ status: 'completed', sentences: [expect.objectContaining({ speaker_name: 'Rae' }), expect.objectContaining({ speaker_name: 'Sol' })] });
  });

  it('ends a run whose media is gone as failed, and a run an operator cancels as canceled', async () => {
    const gone = await upload(`${media.url}/missing.vtt`);
    media.serve('/stalled.vtt', { body: VTT, contentType: 'text/vtt', stall: true });
    const stalled = await upload(`${media.url}/stalled.vtt`);
    await media.waitForHit('/stalled.vtt');
    await run(stalled).cancel();
    const [a, b] = await Promise.all([outcome(gone), outcome(stalled)]);
    media.release('/stalled.vtt');
    expect(a).toMatchObject({ status: 'failed', message: expect.stringContaining('404') });
    expect(b).toMatchObject({ status: 'canceled' });
  });
});

describe('dashboards and alerts against what the running roles expose', () => {
  let exposed: Exposition;
  const perEndpoint = new Map<string, Exposition>();
  let exprs: { where: string; expr: string }[];

  beforeAll(async () => {
    // A little traffic on the mcp role: a call that works and one that fails.
    const mcp = new McpClient({ name: 'k8s-image-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base('mcp')}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user.key}` } } }));
    try {
      expect(((await mcp.callTool({ name: 'svc_get_user', arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();
      expect(((await mcp.callTool({ name: 'svc_get_transcript', arguments: { transcriptId: 'does-not-exist' } })) as { isError?: boolean }).isError).toBe(true);
    } finally {
      await mcp.close();
    }
    const endpoints = {
      mcp: `${base('mcp')}/metrics`,
      graphql: `${base('graphql')}/metrics`,
      worker: `${base('worker')}/metrics`,
      'worker (Temporal SDK)': `http://127.0.0.1:${ports.temporal}/metrics`,
    };
    exposed = emptyExposition();
    for (const [name, url] of Object.entries(endpoints)) {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      expect([url, res.status]).toEqual([url, 200]);
      const text = await res.text();
      // MI_K8S_SCRAPE_DUMP=<dir> keeps what each endpoint answered, to read when a check fails.
      if (process.env.MI_K8S_SCRAPE_DUMP) writeFileSync(path.join(process.env.MI_K8S_SCRAPE_DUMP, `${name.replace(/\W+/g, '-')}.txt`), text);
      perEndpoint.set(name, parseExposition(text));
      parseExposition(text, exposed);
    }
    const rule = rendered.find((o) => o.kind === 'PrometheusRule') as K8sObject & { spec: { groups: { rules: { alert?: string; expr: string }[] }[] } };
    const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })));
    const dashboards = readdirSync(path.join(CHART_DIR, 'dashboards'))
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => dashboardExpressions(JSON.parse(readFileSync(path.join(CHART_DIR, 'dashboards', f), 'utf8'))));
    exprs = [...dashboards, ...alerts];
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    expect(dashboards.length).toBeGreaterThan(50);
  }, 60_000);

  it('each role serves its own metrics: HTTP everywhere, tool calls on mcp, operations on graphql, stages on the worker, temporal_* on the SDK port', () => {
    const sampled = (endpoint: string) => perEndpoint.get(endpoint)!.sampled;
    for (const endpoint of ['mcp', 'graphql', 'worker']) expect([endpoint, sampled(endpoint).has('process_resident_memory_bytes'), sampled(endpoint).has('db_pool_connections')]).toEqual([endpoint, true, true]);
    expect(sampled('mcp')).toContain('mcp_tool_calls_total');
    expect(sampled('mcp')).toContain('http_requests_total');
    expect(sampled('graphql')).toContain('graphql_operations_total');
    expect(sampled('graphql')).toContain('http_request_duration_seconds_bucket');
    expect(sampled('worker')).toContain('pipeline_stage_duration_seconds_bucket');
    const sdk = [...sampled('worker (Temporal SDK)')];
    expect(sdk.filter((n) => !n.startsWith('temporal_') && !/^(target_info|otel_scope_info)$/.test(n))).toEqual([]);
    expect(sdk).toEqual(expect.arrayContaining(['temporal_workflow_completed', 'temporal_workflow_failed', 'temporal_worker_task_slots_available', 'temporal_activity_execution_latency_bucket']));
  });

  it("bounds the worker's task slots with the chart's WORKER_MAX_CONCURRENT_* (not Temporal's 100 activities)", async () => {
    const expected = { activities: Number(chartWorkerEnv.WORKER_MAX_CONCURRENT_ACTIVITIES), workflowTasks: Number(chartWorkerEnv.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS) };
    let free: typeof expected | undefined;
    let embeddings: number | undefined;
    // Idle (the cancelled download may still be winding down): every slot is free but the one the life
    // events' dispatcher may be waiting in (WebhookEventsWorkflow's claim polls the outbox for a while).
    const idle = (f: typeof expected | undefined) =>
      f?.workflowTasks === expected.workflowTasks &&
      (f.activities === expected.activities || f.activities === expected.activities - 1);
    for (let i = 0; i < 40 && !idle(free); i++) {
      if (i) await new Promise((r) => setTimeout(r, 250));
      const text = await (await fetch(`http://127.0.0.1:${ports.temporal}/metrics`)).text();
      // The worker's own queue: the embedding worker beside it has its slots on `${queue}-embeddings`.
      const slots = (type: string, q = queue) => Number(new RegExp(`^temporal_worker_task_slots_available\\{(?=[^}]*worker_type="${type}")(?=[^}]*task_queue="${q}")[^}]*\\} (\\d+)`, 'm').exec(text)?.[1]);
      free = { activities: slots('ActivityWorker'), workflowTasks: slots('WorkflowWorker') };
      embeddings = slots('ActivityWorker', `${queue}-embeddings`);
    }
    expect(free?.workflowTasks).toBe(expected.workflowTasks);
    expect([expected.activities - 1, expected.activities]).toContain(free?.activities);
    expect(chartWorkerEnv.WORKER_MAX_CONCURRENT_ACTIVITIES).toBe('16');
    // The embedding activities' slots, apart: idle, all free (the live schedule's step may hold one).
    expect([0, 1].map((busy) => Number(chartWorkerEnv.WORKER_MAX_CONCURRENT_EMBEDDINGS) - busy)).toContain(embeddings);
  });

  it('every metric an expression names is exposed by a running role (or is the cluster\'s, or awaits a listed event)', () => {
    const problems: string[] = [];
    const awaiting = new Set<string>();
    for (const { where, expr } of exprs) {
      const names = metricNamesIn(expr);
      if (names.length === 0) problems.push(`${where}: no metric in ${expr}`);
      for (const n of names) {
        if (exposed.sampled.has(n) || CLUSTER_METRICS.includes(n)) continue;
        if (n in SERVICE_AWAITING_EVENTS) {
          if (!exposed.declared.has(n)) problems.push(`${where}: ${n} is not even declared on /metrics`);
          awaiting.add(n);
        } else if (n in TEMPORAL_EVENT_ONLY) {
          awaiting.add(n);
        } else {
          problems.push(`${where}: ${n} is not exposed by the running roles${exposed.declared.has(n) ? ' (declared, but no series: exercise it or list it in SERVICE_AWAITING_EVENTS with the event)' : ''}`);
        }
      }
    }
    expect(problems).toEqual([]);
    if (awaiting.size) reportTiming(`[image] used but without series in this run (listed events): ${[...awaiting].sort().join(', ')}`);
  });

  it('lists as event-only only Temporal metrics that sdk-core declares, with the exporter\'s naming', () => {
    expect(sdkCoreMissing(Object.keys(TEMPORAL_EVENT_ONLY))).toEqual([]);
    // The scraped ones are named the same way: sdk-core's name with the temporal_ prefix and nothing
    // added (no _total on counters, no unit on the millisecond histograms).
    const scraped = [...exposed.sampled].filter((n) => n.startsWith('temporal_'));
    expect(scraped.length).toBeGreaterThan(10);
    expect(sdkCoreMissing(scraped)).toEqual([]);
  });

  it('every label an expression matches or groups by exists on those series (or is a target label)', () => {
    const problems: string[] = [];
    for (const { where, expr } of exprs) {
      const names = metricNamesIn(expr).filter((n) => exposed.sampled.has(n));
      if (names.length === 0) continue; // the cluster's metrics, or no series in this run
      const have = new Set([...TARGET_LABELS, ...names.flatMap((n) => [...(exposed.labels.get(n) ?? [])])]);
      for (const l of labelNamesIn(expr)) if (!have.has(l)) problems.push(`${where}: label ${l} is on none of ${names.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('shutdown', () => {
  it('every role stops on SIGTERM, as Kubernetes stops a pod, with exit code 0', async () => {
    const results = await Promise.all(ROLES.map(async (role) => [role, (await roles.get(role)!.stop()).code] as const));
    expect(results).toEqual(ROLES.map((r) => [r, 0]));
  }, 60_000);
});
