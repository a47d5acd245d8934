/**
 * Replay tests: every recorded history in test/fixtures/histories (real runs of the workflows, recorded
 * by scripts/record-histories.ts into a folder per release: test/fixtures/histories/<release>/) replays
 * against today's workflow code without a determinism error. Every published release (releases.json)
 * has its folder: a worker of this release picks up workflows any of them started (docs/upgrades.md).
 * A workflow change that would break running workflows (an activity added, removed or reordered, a
 * child, timer or update handled differently) fails here instead of in production. Histories of
 * released versions stay: a change that is meant to break them needs patching (workflow.patched).
 *
 * No Temporal server is involved: the replay worker only runs the bundled workflow code against the
 * recorded events.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker, type ReplayResult, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { installTemporalRuntime } from '../../../services/platform/temporal-runtime';
import { WORKFLOWS_PATH } from '../../../services/worker/worker';
import { testConfig } from '../../support/config';
import { historyFromJSON } from './history-json';

const HISTORIES = join(__dirname, '..', '..', 'fixtures', 'histories');
const BROKEN = join(__dirname, '..', '..', 'fixtures', 'replay-broken');

// The Runtime production installs, logging to the service's logger, silent in tests: the broken
// replay below makes core log the nondeterminism it found, which is expected and not shown.
installTemporalRuntime(testConfig());

const noop = () => {};
const quiet = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop } as never;

const RELEASES: { version: string }[] = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'releases.json'), 'utf8'),
).releases;
/** Every history, as <release>/<name>.json (a history recorded before a release folder exists sits at the top). */
const files = readdirSync(HISTORIES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.split('\\').join('/'))
  .sort();
const load = (file: string) => ({
  workflowId: file.replace(/\.json$/, ''),
  history: historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8'))),
});

async function replayAll(workflowBundle: WorkflowBundleWithSourceMap, names: string[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle }, names.map(load))) results.push(r);
  return results;
}

describe('replay of recorded workflow histories', () => {
  let bundle: WorkflowBundleWithSourceMap;

  beforeAll(async () => {
    bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  });

  const typesOf = (names: string[]) =>
    [
      ...new Set(
        names.map((f) => load(f).history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
      ),
    ].sort();

  it('has a history of every workflow', () => {
    expect(typesOf(files)).toEqual([
      'EmbeddingBackfillWorkflow',
      'EmbeddingWorkflow',
      'LanguageReindexWorkflow',
      'LiveEmbeddingWorkflow',
      'LiveMeetingWorkflow',
      'ResummaryWorkflow',
      'RetentionWorkflow',
      'RuleExecutionWorkflow',
      'TranscriptionWorkflow',
      'WebhookDeliveryWorkflow',
      'WebhookEventsWorkflow',
    ]);
  });

  it('keeps the histories of every published release, each release with its own folder', () => {
    expect(RELEASES.length).toBeGreaterThan(0);
    for (const { version } of RELEASES) {
      expect({ version, folder: existsSync(join(HISTORIES, version)) }).toEqual({ version, folder: true });
      expect({ version, histories: files.filter((f) => f.startsWith(`${version}/`)).length > 0 }).toEqual({
        version,
        histories: true,
      });
    }
    // 0.1.0's workflows, recorded at its commit: each of them may still be running when 0.2.0 starts.
    expect(typesOf(files.filter((f) => f.startsWith('0.1.0/')))).toEqual([
      'LiveMeetingWorkflow',
      'RetentionWorkflow',
      'RuleExecutionWorkflow',
      'TranscriptionWorkflow',
      'WebhookDeliveryWorkflow',
    ]);
  });

  it("replays every history in test/fixtures/histories against today's workflows", async () => {
    const results = await replayAll(bundle, files);
    expect(results.map((r) => r.workflowId)).toEqual(files.map((f) => f.replace(/\.json$/, '')));
    // One line per history, so a failure names the history and the error.
    expect(results.map((r) => `${r.workflowId}: ${r.error ? `${r.error.name}: ${r.error.message}` : 'ok'}`)).toEqual(
      files.map((f) => `${f.replace(/\.json$/, '')}: ok`),
    );
  });

  it('bites: a TranscriptionWorkflow that schedules another activity first is refused with a determinism error', async () => {
    const broken = await bundleWorkflowCode({ workflowsPath: require.resolve(BROKEN), logger: quiet });
    const transcriptions = files.filter((f) => /(^|\/)transcription-/.test(f));
    expect(transcriptions.length).toBeGreaterThan(0);
    const results = await replayAll(broken, transcriptions);
    expect(results).toHaveLength(transcriptions.length);
    for (const r of results) {
      expect(r.error).toBeInstanceOf(DeterminismViolationError);
      expect(r.error!.message).toMatch(/fetchMedia|transcribe|nondetermin/i);
    }
  });
});
