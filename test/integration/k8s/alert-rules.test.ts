/**
 * Unit tests of every alert the chart renders, with promtool: the PrometheusRule's groups (chart
 * defaults with the monitoring component's values) go to a temporary rules.yaml next to copies of
 * test/fixtures/alerts/*.test.yaml, and `promtool test rules` runs them. Each alert needs at least one
 * check where it fires and one where it must not, so an alert added without tests fails here.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ALERT_TESTS_DIR,
  alertCoverage,
  alertNames,
  alertTestFiles,
  chartRuleGroups,
  promtool,
  RULES_FILE_NAME,
  RuleGroup,
  ruleFileText,
} from '../../support/k8s/alert-rules';
import { dashboardExpressions } from '../../support/k8s/dashboards';
import { metricNamesIn } from '../../support/k8s/promql';
import { CHART_DIR } from '../../support/k8s/render';
import { ensureTool } from '../../support/k8s/tools';

let dir: string;
let groups: RuleGroup[];

beforeAll(async () => {
  await ensureTool('helm');
  groups = await chartRuleGroups();
  dir = mkdtempSync(path.join(os.tmpdir(), 'mi-alert-rules-'));
  writeFileSync(path.join(dir, RULES_FILE_NAME), ruleFileText(groups));
  for (const { file } of alertTestFiles()) copyFileSync(path.join(ALERT_TESTS_DIR, file), path.join(dir, file));
}, 20 * 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('chart alerts', () => {
  it('are valid Prometheus rules (promtool check rules)', async () => {
    const { code, output } = await promtool(['check', 'rules', RULES_FILE_NAME], dir);
    expect([code, output]).toEqual([0, expect.stringContaining('SUCCESS')]);
    expect(alertNames(groups).length).toBeGreaterThanOrEqual(12);
  });

  it('each have a test where they fire and one where they do not', () => {
    const cover = alertCoverage(alertTestFiles());
    const missing: string[] = [];
    for (const name of alertNames(groups)) {
      const c = cover.get(name);
      if (!c?.firing) missing.push(`${name}: no test where it fires`);
      if (!c?.silent) missing.push(`${name}: no test where it must not fire`);
    }
    expect(missing).toEqual([]);
  });

  it('are the only alerts the tests name (no test of a removed or renamed alert)', () => {
    const known = new Set(alertNames(groups));
    expect([...alertCoverage(alertTestFiles()).keys()].filter((n) => !known.has(n))).toEqual([]);
  });

  it.each(alertTestFiles().map((f) => [f.file]))('pass their promtool unit tests: %s', async (file) => {
    const { code, output } = await promtool(['test', 'rules', file], dir);
    // promtool prints expected and got alerts side by side on failure.
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('fail when an expectation is wrong (the tests can fail)', async () => {
    const [first] = alertTestFiles();
    const broken = first.text.replace(/severity: (warning|critical|info)/, 'severity: none');
    expect(broken).not.toEqual(first.text);
    writeFileSync(path.join(dir, 'broken.test.yaml'), broken);
    const { code, output } = await promtool(['test', 'rules', 'broken.test.yaml'], dir);
    expect(code).toBe(1);
    expect(output).toContain('FAILED');
  });
});

describe('OAuth monitoring', () => {
  it('has an alert on refusals and failed sign-ins, and panels for every OAuth metric', () => {
    const oauthAlert = groups.flatMap((g) => g.rules).find((r) => r.alert === 'MeetingIntelOAuthRefusalBurst');
    expect(oauthAlert?.expr).toContain('oauth_refusals_total');
    expect(oauthAlert?.expr).toContain('oauth_sign_ins_total');
    const dashboard = JSON.parse(readFileSync(path.join(CHART_DIR, 'dashboards', 'mcp-tools.json'), 'utf8')) as Record<string, unknown>;
    const used = new Set(dashboardExpressions(dashboard).flatMap((e) => metricNamesIn(e.expr)));
    for (const n of ['oauth_sign_ins_total', 'oauth_tokens_issued_total', 'oauth_refusals_total']) expect([n, used.has(n)]).toEqual([n, true]);
  });
});
