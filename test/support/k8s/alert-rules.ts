/**
 * The chart's alerts as a plain Prometheus rule file, and the promtool unit tests that exercise them
 * (test/fixtures/alerts/*.test.yaml; run by test/integration/k8s/alert-rules.test.ts).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { MONITORING_SET } from '../../../scripts/k8s-generate';
import { helmTemplate, K8sObject, REPO_ROOT } from './render';

const run = promisify(execFile);

export const ALERT_TESTS_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'alerts');
/** The name the test files load (`rule_files: [rules.yaml]`), written next to copies of them. */
export const RULES_FILE_NAME = 'rules.yaml';

export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

/** Debian installs promtool and prometheus in /usr/bin; PROMTOOL_BIN / PROMETHEUS_BIN override. */
export const PROMTOOL = process.env.PROMTOOL_BIN ?? 'promtool';
export const PROMETHEUS = process.env.PROMETHEUS_BIN ?? 'prometheus';

/** The rule groups of the PrometheusRule the chart renders with the monitoring component's values (k8s/components/monitoring). */
export async function chartRuleGroups(set: Record<string, string | number | boolean> = {}): Promise<RuleGroup[]> {
  const objects = await helmTemplate({ set: { ...MONITORING_SET, ...set }, skipTests: true });
  const rule = objects.find((o: K8sObject) => o.kind === 'PrometheusRule') as (K8sObject & { spec: { groups: RuleGroup[] } }) | undefined;
  if (!rule) throw new Error('the chart rendered no PrometheusRule');
  return rule.spec.groups;
}

export function ruleFileText(groups: RuleGroup[]): string {
  return YAML.stringify({ groups }, { lineWidth: 0, blockQuote: 'literal' });
}

export function alertNames(groups: RuleGroup[]): string[] {
  return groups.flatMap((g) => g.rules.map((r) => r.alert).filter((a): a is string => Boolean(a)));
}

export interface AlertTestFile {
  file: string;
  text: string;
  doc: {
    rule_files: string[];
    tests: { alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: unknown[] | null }[] }[];
  };
}

export function alertTestFiles(): AlertTestFile[] {
  return readdirSync(ALERT_TESTS_DIR)
    .filter((f) => f.endsWith('.test.yaml'))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(ALERT_TESTS_DIR, file), 'utf8');
      return { file, text, doc: YAML.parse(text) as AlertTestFile['doc'] };
    });
}

/** Per alert name, how many checks expect it firing and how many expect it silent. */
export function alertCoverage(files: AlertTestFile[]): Map<string, { firing: number; silent: number }> {
  const cover = new Map<string, { firing: number; silent: number }>();
  for (const { doc } of files) {
    for (const t of doc.tests ?? []) {
      for (const a of t.alert_rule_test ?? []) {
        const c = cover.get(a.alertname) ?? { firing: 0, silent: 0 };
        if ((a.exp_alerts ?? []).length > 0) c.firing++;
        else c.silent++;
        cover.set(a.alertname, c);
      }
    }
  }
  return cover;
}

export async function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (typeof err.code !== 'number') throw new Error(`${PROMTOOL} could not run (${err.message}); install Debian's prometheus package (.ci/run does)`);
    return { code: err.code, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
