/**
 * Debian's Prometheus against the running roles: mcp, graphql and worker run as child processes from
 * the sources (`bin/meeting-intel serve <role>`, with their Deployment's env and ConfigMap from the
 * chart), a real `prometheus` scrapes them every second (the worker on both its /metrics and the
 * Temporal SDK exporter) with the labels the chart's ServiceMonitors give (namespace, job, role, pod),
 * and loads the chart's alerts as a rule file. After a short workload (MCP tool calls, a rate-limited
 * burst, GraphQL uploads of caption files that transcribe or fail, webhook deliveries delivered and
 * failed, an OAuth sign-in with a wrong API key, a token issued, a refused token), every dashboard
 * query (Grafana variables substituted) and every alert expression is sent to Prometheus' HTTP API:
 * each parses, and each panel query returns data unless NO_DATA_IN_SHORT_RUN lists it with the reason
 * (and then its metrics are proven exported by a role's /metrics, the Temporal SDK's sources, or the
 * cluster's exporters).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { freePort } from '../../../services/devstack/ports';
import { alertNames, chartRuleGroups, PROMETHEUS, RuleGroup, ruleFileText } from '../../support/k8s/alert-rules';
import { dashboardExpressions } from '../../support/k8s/dashboards';
import { chartContainer, RoleProcess, startRole } from '../../support/k8s/image';
import { CLUSTER_METRICS, emptyExposition, Exposition, metricNamesIn, parseExposition, sdkCoreMissing } from '../../support/k8s/promql';
import { CHART_DIR, helmTemplate, K8sObject, NAMESPACE, RELEASE, REPO_ROOT } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { UPLOAD_AUDIO } from '../../support/graphql';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { RECEIVER_CERT_PATH, startWebhookReceiver, WebhookReceiver } from '../../support/webhook-receiver';
import { MediaServer, startMediaServer } from '../core/ingest/media-server';
import { authorizationUrl, parseForm, pkcePair, REDIRECT_URI, registerTestClient, signInAndConsent, TestBrowser, tokenRequest } from '../oauth/support';
import { reportTiming } from '../../support/timings';

const ROLES = ['mcp', 'graphql', 'worker'] as const;
type RoleName = (typeof ROLES)[number];

/**
 * Panel queries (dashboard uid / panel title / refId) that cannot have data after a short, healthy
 * run, with the reason. Their metric names must still be exported (checked below).
 */
const NO_DATA_IN_SHORT_RUN: Record<string, string> = {
  'mi-service-overview / Server errors (5xx) by role / A': 'no request of a healthy run is answered 5xx (the numerator has no series)',
  'mi-service-overview / Pods ready / A': 'kube-state-metrics is not part of this run (no cluster)',
  'mi-service-overview / Container restarts (1h) / A': 'kube-state-metrics is not part of this run (no cluster)',
  'mi-pipeline-webhooks / Rule executions failed (1h) / A': 'this run defines no automation rule',
  'mi-pipeline-webhooks / Rule executions by status / A': 'this run defines no automation rule',
  'mi-pipeline-webhooks / Rule execution failure ratio / A': 'this run defines no automation rule',
  'mi-pipeline-webhooks / Live meetings now / A': 'this run starts no live meeting (the gauge has a series once one is counted)',
  'mi-pipeline-webhooks / Live meetings by state / A': 'this run starts no live meeting (the gauge has a series once one is counted)',
  'mi-temporal-worker / Workflow runs closed by result / C': 'no workflow is cancelled in this run',
  'mi-temporal-worker / Workflow runs closed by result / D': 'no workflow continues as new in this run',
  'mi-temporal-worker / Workflow task failures / A': 'a workflow task fails only on non-determinism or a bug in workflow code',
  'mi-temporal-worker / Workflow task replay p95 (ms) / A': 'histories are replayed only after a sticky cache eviction or on another worker (some runs do, some do not)',
  'mi-temporal-worker / Sticky cache / C': 'a sticky cache miss needs an eviction',
  'mi-temporal-worker / Temporal client request failures / A': 'no Temporal frontend call fails in a healthy run',
  'mi-temporal-worker / Temporal client request failures / B': 'no Temporal long poll fails in a healthy run',
  'mi-temporal-worker / Empty polls per second / A': 'a workflow long poll ends empty only after about a minute idle',
  'mi-temporal-worker / Empty polls per second / B': 'an activity long poll ends empty only after about a minute idle',
};

/** Grafana's variables, as a dashboard with every option selected would send them. */
function substitute(expr: string): string {
  return expr
    .replace(/\$__rate_interval/g, '1m')
    .replace(/\$__range/g, '5m')
    .replace(/\$namespace\b/g, NAMESPACE)
    .replace(/\$(role|tool)\b/g, '.*')
    .replace(/^label_values\(\s*(.*?)\s*,\s*[A-Za-z_]\w*\s*\)$/, '$1'); // the variable's options: the series of that selector
}

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Rae>Ship the chart on Friday.\n\n00:00:03.500 --> 00:00:05.000\n<v Sol>Agreed, after the scrape test.\n';

let dir: string;
let t: TestDatabase;
let media: MediaServer;
let receiver: WebhookReceiver;
let admin: TestUser;
let burst: TestUser;
let groups: RuleGroup[];
let prometheus: ChildProcess | undefined;
let promOutput = '';
let promUrl = '';
const roles = new Map<RoleName, RoleProcess>();
const ports = { mcp: 0, graphql: 0, worker: 0, temporal: 0 };
const queue = `test-prom-${randomBytes(4).toString('hex')}`;
const base = (role: RoleName) => `http://127.0.0.1:${ports[role]}`;
const timings: Record<string, number> = {};

async function startRoles(rendered: K8sObject[]): Promise<void> {
  const secrets = { DATABASE_URL: t.url, SECRETS_KEY: randomBytes(32).toString('hex') };
  ports.mcp = await freePort();
  ports.temporal = await freePort();
  const start = async (role: RoleName) => {
    const { args, env } = chartContainer(rendered, `${RELEASE}-${role}`, secrets);
    const proc = startRole(
      role,
      { file: process.execPath, args: [path.join(REPO_ROOT, 'bin', 'meeting-intel'), ...args] },
      {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ...env,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        TEMPORAL_TASK_QUEUE: queue,
        HOST: '127.0.0.1',
        MCP_PORT: String(ports.mcp),
        GRAPHQL_PORT: '0',
        WORKER_METRICS_PORT: '0',
        TEMPORAL_METRICS_BIND_ADDRESS: `127.0.0.1:${ports.temporal}`,
        ALLOW_PRIVATE_NETWORK: 'true', // recordings and the webhook receiver are on 127.0.0.1
        NODE_EXTRA_CA_CERTS: RECEIVER_CERT_PATH, // the webhook receiver's self-signed certificate
        WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms',
        WEBHOOK_TIMEOUT: '2s',
        OAUTH_MODE: 'builtin',
        SECRETS_KEY: secrets.SECRETS_KEY, // the mcp role needs it in builtin mode
        PUBLIC_BASE_URL: `http://127.0.0.1:${ports.mcp}`,
        ...(role === 'mcp' ? { RATE_LIMIT_PER_MINUTE: '20' } : {}),
        SHUTDOWN_GRACE_MS: '1000',
        LOG_LEVEL: 'info',
      },
      REPO_ROOT,
    );
    roles.set(role, proc);
    const ready = await proc.waitForLog((l) => l.msg === 'ready' && Array.isArray(l.urls));
    ports[role] = Number(/^http:\/\/127\.0\.0\.1:(\d+)\//.exec((ready.urls as string[])[0])?.[1]);
    await proc.waitForOk(`${base(role)}/readyz`);
    timings[`${role} ready`] = Date.now() - proc.startedAt;
  };
  await Promise.all(ROLES.map(start));
}

async function startPrometheus(): Promise<void> {
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  const job = (role: RoleName, targets: string[]) => ({
    job_name: `${RELEASE}-${role}`,
    scrape_interval: '1s',
    scrape_timeout: '1s',
    static_configs: [{ targets, labels: { namespace: NAMESPACE, role, pod: `${RELEASE}-${role}-0`, service: `${RELEASE}-${role}` } }],
  });
  writeFileSync(path.join(dir, 'rules.yaml'), ruleFileText(groups));
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    YAML.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [path.join(dir, 'rules.yaml')],
      scrape_configs: [
        job('mcp', [`127.0.0.1:${ports.mcp}`]),
        job('graphql', [`127.0.0.1:${ports.graphql}`]),
        job('worker', [`127.0.0.1:${ports.worker}`, `127.0.0.1:${ports.temporal}`]),
      ],
    }),
  );
  const started = Date.now();
  prometheus = spawn(
    PROMETHEUS,
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout!.on('data', (d) => (promOutput += d));
  prometheus.stderr!.on('data', (d) => (promOutput += d));
  let exited = false;
  prometheus.once('exit', () => (exited = true));
  prometheus.once('error', (e) => (promOutput += `\n${e.message} (install Debian's prometheus package; .ci/run does)`));
  for (;;) {
    if (exited) throw new Error(`prometheus exited:\n${promOutput.slice(-3000)}`);
    if (Date.now() - started > 30_000) throw new Error(`prometheus not ready after 30 s:\n${promOutput.slice(-3000)}`);
    try {
      if ((await fetch(`${promUrl}/-/ready`, { signal: AbortSignal.timeout(1000) })).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  timings['prometheus ready'] = Date.now() - started;
}

async function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}): Promise<{ data?: any; errors?: { message: string }[] }> {
  const res = await fetch(`${base('graphql')}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string }[] };
}

async function gqlOk(user: TestUser, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const body = await graphql(user, query, variables);
  if (body.errors?.length) throw new Error(`GraphQL error: ${JSON.stringify(body.errors[0])}`);
  return body.data;
}

async function mcpCall(key: string, id: number, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base('mcp')}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
}

async function workload(): Promise<void> {
  // Webhooks: one user's deliveries are answered 200, the other's always 500 (failed after the retries).
  receiver.script('/fails', [500]);
  const saveUrl = `mutation S($url: String!) { saveWebhookUrl(url: $url) { url } }`;
  const secret = `mutation { setWebhookSecret(generate: true) { secret } }`;
  for (const [user, p] of [[admin, '/ok'], [burst, '/fails']] as const) {
    await gqlOk(user, saveUrl, { url: receiver.url(p) });
    await gqlOk(user, secret);
  }

  // Uploads through graphql: one per user transcribes, one fails to download (404).
  const okUrl = media.serve('/ok.vtt', { body: VTT, contentType: 'text/vtt' });
  await gqlOk(admin, UPLOAD_AUDIO, { input: { url: okUrl } });
  await gqlOk(burst, UPLOAD_AUDIO, { input: { url: okUrl } });
  await gqlOk(admin, UPLOAD_AUDIO, { input: { url: `${media.url}/missing.vtt` } });
  expect((await graphql(admin, '{ nope }')).errors?.length).toBeGreaterThan(0); // a failing operation

  // MCP: a call that works, one that fails, a 401, and a burst over the rate limit (20 a minute). The
  // limit counts in fixed clock minutes, so a burst can straddle two of them: 41 calls put at least 21
  // in one (22 did not when a minute turned mid-burst, and the rate-limited panel had no data).
  for (const [i, [tool, args]] of ([['svc_get_user', {}], ['svc_get_transcript', { transcriptId: 'does-not-exist' }]] as const).entries()) {
    expect((await mcpCall(admin.key, i + 1, tool, args)).status).toBe(200);
  }
  await Promise.all(Array.from({ length: 41 }, (_, i) => mcpCall(burst.key, 100 + i, 'svc_get_user').then((r) => r.text())));

  // Pages: a signed-out visit to the meetings is sent to sign in; the sign-in page itself.
  expect((await fetch(`${base('mcp')}/meetings`, { redirect: 'manual' })).status).toBe(303);
  expect((await fetch(`${base('mcp')}/signin`)).status).toBe(200);

  // OAuth: a refused access token, a sign-in with a wrong API key, then a good one and a token.
  expect((await mcpCall('not-a-token', 200, 'svc_get_user')).status).toBe(401);
  const client = await registerTestClient(base('mcp'));
  expect(client.status).toBe(201);
  const pkce = pkcePair();
  const authUrl = authorizationUrl(base('mcp'), {
    response_type: 'code',
    client_id: client.body.client_id as string,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    scope: 'meetings:read meetings:write',
    resource: `${base('mcp')}/mcp`,
    state: 'st',
  });
  const browser = new TestBrowser();
  const page = await browser.get(authUrl);
  expect(page.status).toBe(200);
  const form = parseForm(await page.text());
  expect((await browser.post(form.action, { ...form.fields, api_key: 'mi_wrong_key' })).status).toBe(401);
  const landed = await signInAndConsent(new TestBrowser(), authUrl, admin.key);
  const token = await tokenRequest(base('mcp'), {
    grant_type: 'authorization_code',
    code: landed.searchParams.get('code')!,
    code_verifier: pkce.verifier,
    client_id: client.body.client_id as string,
    redirect_uri: REDIRECT_URI,
    resource: `${base('mcp')}/mcp`,
  });
  expect(token.status).toBe(200);

  // Wait for the pipeline and the deliveries (user and team, for both uploads' outcomes).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await t.db('webhook_deliveries').select('status', 'url', 'last_error');
    const settled = rows.filter((r) => r.status !== 'pending').length;
    const meetings = await t.db('meetings').whereIn('status', ['completed', 'failed']).count<{ n: string }[]>({ n: '*' });
    if (settled >= 2 && rows.some((r) => r.status === 'failed') && rows.some((r) => r.status === 'delivered') && Number(meetings[0].n) >= 3) break;
    if (Date.now() > deadline || (rows.length >= 2 && settled === rows.length && Number(meetings[0].n) >= 3)) throw new Error(`the workload did not settle: deliveries ${JSON.stringify(rows)}, meetings done ${meetings[0].n}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function query(expr: string): Promise<{ status: string; error?: string; data?: { resultType: string; result: unknown[] } }> {
  const res = await fetch(`${promUrl}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: expr }) });
  return (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: unknown[] } };
}

let exposed: Exposition;
let panelExprs: { where: string; expr: string }[];
let alertExprs: { where: string; expr: string }[];

beforeAll(async () => {
  const t0 = Date.now();
  await ensureTool('helm');
  dir = mkdtempSync(path.join(os.tmpdir(), 'mi-prometheus-'));
  let rendered: K8sObject[];
  [t, media, receiver, rendered, groups] = await Promise.all([
    createTestDatabase(),
    startMediaServer(),
    startWebhookReceiver(),
    helmTemplate({ set: { 'metrics.serviceMonitor.enabled': true, 'metrics.prometheusRule.enabled': true }, skipTests: true }),
    chartRuleGroups(),
  ]);
  const team = await makeTeam(t.db);
  admin = await makeUser(t.db, team, { name: 'Rae' });
  burst = await makeUser(t.db, team, { name: 'Burst' });
  await startRoles(rendered);
  await startPrometheus();
  const w0 = Date.now();
  await workload();
  timings.workload = Date.now() - w0;
  // A few scrapes after the last event, so every counter has two samples in the window.
  await new Promise((r) => setTimeout(r, 4000));

  exposed = emptyExposition();
  for (const url of [`${base('mcp')}/metrics`, `${base('graphql')}/metrics`, `${base('worker')}/metrics`, `http://127.0.0.1:${ports.temporal}/metrics`]) {
    parseExposition(await (await fetch(url)).text(), exposed);
  }
  panelExprs = readdirSync(path.join(CHART_DIR, 'dashboards'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => dashboardExpressions(JSON.parse(readFileSync(path.join(CHART_DIR, 'dashboards', f), 'utf8')) as Record<string, unknown>));
  alertExprs = groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert ?? r.record}`, expr: r.expr })));
  timings.total = Date.now() - t0;
  reportTiming(`[prometheus] ${Object.entries(timings).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
}, 150_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((r) => prometheus!.once('exit', r));
    prometheus.kill('SIGTERM');
    // The grace timer is cleared once Prometheus is gone: left pending, it kept the jest worker alive.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 5000)))]);
    clearTimeout(grace);
    if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
  }
  await Promise.all([...roles.values()].map((r) => r.stop()));
  await media?.close();
  await receiver?.close();
  await t?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('Prometheus scraping the running roles', () => {
  it('scrapes every role (up == 1 for the four targets)', async () => {
    const up = await query(`up{namespace="${NAMESPACE}"}`);
    const result = (up.data?.result ?? []) as { metric: Record<string, string>; value: [number, string] }[];
    expect(result.map((r) => [r.metric.job, r.value[1]]).sort()).toEqual([
      [`${RELEASE}-graphql`, '1'],
      [`${RELEASE}-mcp`, '1'],
      [`${RELEASE}-worker`, '1'],
      [`${RELEASE}-worker`, '1'],
    ]);
  });

  it('loads the chart alerts and evaluates each without error', async () => {
    const body = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } };
    const rules = body.data.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual(alertNames(groups).sort());
    expect(rules.filter((r) => r.health === 'err').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
  });

  it('parses every alert expression', async () => {
    expect(alertExprs.length).toBeGreaterThanOrEqual(13);
    const problems: string[] = [];
    for (const { where, expr } of alertExprs) {
      const r = await query(expr);
      if (r.status !== 'success') problems.push(`${where}: ${r.error}`);
    }
    expect(problems).toEqual([]);
  });

  it('parses every dashboard query, and each returns data (unless listed in NO_DATA_IN_SHORT_RUN)', async () => {
    expect(panelExprs.length).toBeGreaterThan(50);
    const problems: string[] = [];
    const listedWithData: string[] = [];
    for (const { where, expr } of panelExprs) {
      const r = await query(substitute(expr));
      if (r.status !== 'success') {
        problems.push(`${where}: does not parse: ${r.error}`);
        continue;
      }
      const hasData = (r.data?.result.length ?? 0) > 0;
      if (!hasData && !(where in NO_DATA_IN_SHORT_RUN)) problems.push(`${where}: no data for ${substitute(expr)}`);
      if (hasData && where in NO_DATA_IN_SHORT_RUN) listedWithData.push(where);
    }
    expect(problems).toEqual([]);
    if (listedWithData.length) reportTiming(`[prometheus] listed as without data but had data this run: ${listedWithData.join('; ')}`);
  });

  it('lists only panels that exist, each with its metrics exported by a role, the Temporal SDK or the cluster', () => {
    const byWhere = new Map(panelExprs.map((e) => [e.where, e.expr]));
    const problems: string[] = [];
    for (const [where, reason] of Object.entries(NO_DATA_IN_SHORT_RUN)) {
      expect(reason.length).toBeGreaterThan(10);
      const expr = byWhere.get(where);
      if (!expr) {
        problems.push(`${where}: no such panel query`);
        continue;
      }
      for (const n of metricNamesIn(expr)) {
        if (exposed.declared.has(n) || exposed.sampled.has(n) || CLUSTER_METRICS.includes(n)) continue;
        if (n.startsWith('temporal_') && sdkCoreMissing([n]).length === 0) continue;
        problems.push(`${where}: ${n} is exported by no role`);
      }
    }
    expect(problems).toEqual([]);
  });
});
