/**
 * A run's voiceprint names through Temporal, the worker and the embedded engines: an espeak-ng voice
 * named once is recognised in the next upload, whose stitch is retried after it decided (the worker
 * lost it), whose matched profile is forgotten right after the stitch, and whose every later step runs
 * without the staged sentences (as on another pod), so analyze, summarize and persist each stitch the
 * chunks again. The transcript keeps the names the stitch gave, meeting_info lists exactly them, and
 * the match is audited once.
 */
import { readFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure, type Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { renameSpeaker } from '../../../../services/core/meetings';
import { forgetSpeakerProfile, setVoiceprints } from '../../../../services/core/voiceprints';
import type { Conversation } from '../../../support/conversations';
import type { TestUser } from '../../../support/factory';
import { requireMediaTools } from '../../../support/media';
import type { McpHarness } from '../../../support/mcp';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import type { RecordingRig } from '../ingest/rig';
import { conversation, ENV, namesOf, startVoiceprintRig, type Said } from './conversations';

requireMediaTools();

const AFTER_STITCH = new Set(['analyze', 'summarize', 'persist']);

describe("a run's voiceprint names through the workflow", () => {
  let rig: RecordingRig;
  let worker: TestWorker;
  let mcp: McpHarness;
  let admin: TestUser;
  let close: (() => Promise<void>) | undefined;
  /** The meeting whose steps the worker disturbs, and what it did to them. */
  let target: string | undefined;
  const stitchAttempts: number[] = [];
  const stageLostBefore: string[] = [];

  /**
   * Around the real activities of `target`: the first stitch attempt fails after its work is done;
   * the stitch that succeeds is followed by the profile forgotten; each later step starts without
   * the staged sentences.
   */
  const disturb = (ctx: Context): { inbound: ActivityInboundCallsInterceptor } => ({
    inbound: {
      async execute(input, next) {
        const { meetingId } = input.args[0] as { meetingId: string };
        const step = ctx.info.activityType;
        if (meetingId !== target) return next(input);
        if (AFTER_STITCH.has(step)) {
          const staged = join(worker.stageRoot, meetingId, 'sentences.json');
          if (await stat(staged).catch(() => null)) stageLostBefore.push(step);
          await rm(staged, { force: true });
        }
        const out = await next(input);
        if (step === 'stitchTranscript') {
          stitchAttempts.push(ctx.info.attempt);
          if (ctx.info.attempt === 1) throw ApplicationFailure.retryable('the worker was lost after stitching');
          const profile = await rig.t.db('speaker_profiles').where({ name: 'Alex Doe' }).first('id');
          await forgetSpeakerProfile(rig.t.db, admin.principal, profile.id);
        }
        return out;
      },
    },
  });

  beforeAll(async () => {
    ({ rig, admin, mcp, close } = await startVoiceprintRig('rederive'));
    // The same worker, with the interceptor around its activities.
    await rig.worker.stop();
    worker = await startTestWorker(rig.t.db, {
      taskQueue: rig.worker.taskQueue,
      env: ENV,
      interceptors: { activity: [disturb] },
    });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await close?.();
  });

  /** Upload a conversation; the new meeting's id. */
  const upload = (c: Conversation, title: string) =>
    rig.upload({
      url: rig.media.serve(`/${title.replace(/\s+/g, '-')}.wav`, {
        body: readFileSync(c.wav),
        contentType: 'audio/wav',
      }),
      title,
    });

  it('keeps the names its stitch gave through a retried stitch, a forgotten profile and three re-derivations', async () => {
    await setVoiceprints(rig.t.db, admin.principal, true);
    const first = conversation(11);
    const firstId = await upload(first, 'First call');
    expect(await waitForRun(rig.gql.temporal, firstId, 240_000)).toMatchObject({ status: 'completed' });
    const firstSaid = (await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: firstId, format: 'json' }))
      .data.sentences as Said[];
    const [alex] = [...namesOf(firstSaid, first.turns, 'alex')];
    await renameSpeaker(rig.t.db, rig.owner.principal, { meetingId: firstId, from: alex, to: 'Alex Doe' });

    const second = conversation(12);
    const id = await upload(second, 'Second call');
    target = id;
    expect(await waitForRun(rig.gql.temporal, id, 240_000)).toMatchObject({ status: 'completed' });
    // The disturbances happened: the stitch ran twice in the run, and persist found the sentences an
    // earlier step staged and started without them.
    expect(stitchAttempts).toEqual([1, 2]);
    expect(stageLostBefore).toContain('persist');
    expect(await rig.t.db('speaker_profiles')).toHaveLength(0);

    const read = await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(read.isError).toBe(false);
    const sentences = read.data.sentences as Said[];
    expect(namesOf(sentences, second.turns, 'alex')).toEqual(new Set(['Alex Doe']));
    const bea = [...namesOf(sentences, second.turns, 'bea')];
    expect(bea).toHaveLength(1);
    expect(bea[0]).toMatch(/^Speaker \d$/);
    expect(read.data.meeting_info.inferred_speakers).toEqual([{ speaker: 'Alex Doe', confidence: expect.any(Number) }]);
    const matched = await rig.t.db('audit_log').where({ action: 'speaker_profile.matched' });
    expect(matched.map((a) => a.details.meeting_id)).toEqual([id]);
    // The forgotten profile's meeting voice stays deleted; the other speaker's voice is kept.
    expect((await rig.t.db('meeting_voices').where({ meeting_id: id })).map((v) => [v.speaker, v.profile_id])).toEqual([
      [bea[0], null],
    ]);
  }, 600_000);
});
