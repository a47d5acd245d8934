/**
 * A run decides its voiceprint names once. Through the real activities on the real database: the
 * stitch (on one worker's stage) matches a diarized recording's voices, and the steps after it on
 * workers without the staged sentences stitch the chunks again and give the same names, write no
 * second `speaker_profile.matched` row and keep meeting_info.inferred_speakers equal to the names the
 * sentences carry, also when the profile was forgotten or voiceprints turned off in between (names
 * are words; the voices deleted stay deleted). A new stitch decides afresh; one run's retried stitch
 * takes its first decision; a stitch racing the switch turned off neither deadlocks nor keeps a voice.
 * Voices are made-up vectors, the chunks stored as transcribeChunk stores them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveChunk, setProgress } from '../../../../services/core/ingest';
import { newId } from '../../../../services/core/input';
import { forgetSpeakerProfile, recogniseMeetingVoices, setVoiceprints } from '../../../../services/core/voiceprints';
import { analyzeActivity } from '../../../../workflows/activities/analyze';
import { stitchTranscriptActivity } from '../../../../workflows/activities/chunks';
import type { ActivityDeps } from '../../../../workflows/activities/context';
import { persistActivity } from '../../../../workflows/activities/persist';
import type { AudioPlan, MediaRef, TranscriptRef } from '../../../../workflows/activities/types';
import { testConfig } from '../../../support/config';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

const DIM = 192;

/** A made-up voice along axis `k`, a little of axis k+1 (`tilt`). */
function voice(k: number, tilt = 0): number[] {
  const v = new Array<number>(DIM).fill(0);
  v[k] = 1;
  v[k + 1] = tilt;
  return v;
}

const PLAN: AudioPlan = {
  plan: 'rederive-plan',
  durationSeconds: 9,
  channels: [-1],
  channelLabels: [''],
  chunks: [[{ index: 0, start: 0, end: 9, ownStart: 0, ownEnd: 9 }]],
  concurrency: 1,
};
const MEDIA: MediaRef = {
  contentType: 'audio/wav',
  fileName: 'call.wav',
  bytes: 288_044,
  sha256: 'a'.repeat(64),
  durationSeconds: 9,
  kind: 'audio',
};
/** The chunk's local speaker 0 is Alex's voice, 1 a voice no profile has. */
const SEGMENTS = [
  { start: 0, end: 2, text: 'Thanks for joining the call.', voice: 0 },
  { start: 2.5, end: 4.5, text: 'Happy to be here.', voice: 1 },
  { start: 5, end: 7, text: 'Let us look at the numbers.', voice: 0 },
  { start: 7.5, end: 9, text: 'Sounds good to me.', voice: 1 },
];
/** Diarization labels speakers in order of first appearance: voice 0 is "Speaker 1". */
const ALEX_LABEL = 'Speaker 1';

describe('voiceprint names when a run re-derives its sentences', () => {
  let t: TestDatabase;
  const stages: string[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
    for (const dir of stages) rmSync(dir, { recursive: true, force: true });
  });

  /** The activities of one worker with a stage of its own (a pod without a shared volume). */
  function worker(): ActivityDeps {
    const stageRoot = mkdtempSync(join(tmpdir(), 'mi-rederive-'));
    stages.push(stageRoot);
    return {
      db: t.db,
      config: testConfig({ ASR_URL: 'http://127.0.0.1:9/v1', DIARIZATION: 'auto' }, 'worker'),
      stageRoot,
    };
  }

  /**
   * A team with voiceprints on and a profile of Alex's voice, and a processing meeting of its whose
   * one diarized chunk is stored (segments with their local speakers, each local speaker's voice).
   */
  async function processingMeeting(): Promise<{ admin: TestUser; meetingId: string; profileId: string }> {
    const team = await makeTeam(t.db);
    const admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada Admin' });
    await setVoiceprints(t.db, admin.principal, true);
    const profileId = newId();
    await t.db('speaker_profiles').insert({
      id: profileId,
      team_id: team.id,
      name: 'Alex Doe',
      email: 'alex@example.test',
      embedding: voice(0),
      voices: 1,
    });
    const { id: meetingId } = await makeMeeting(t.db, { organizer: admin, status: 'processing', sentences: [] });
    await saveChunk(t.db, { meetingId, plan: PLAN.plan, channel: -1, index: 0 }, SEGMENTS, {
      '0': voice(0, 0.1),
      '1': voice(30),
    });
    return { admin, meetingId, profileId };
  }

  const stitch = (deps: ActivityDeps, meetingId: string) =>
    stitchTranscriptActivity(deps)({ meetingId, media: MEDIA, plan: PLAN });

  /** analyze and persist, each on a worker of its own without the staged sentences. */
  async function finishElsewhere(meetingId: string, transcript: TranscriptRef) {
    const step = { meetingId, media: MEDIA, transcript };
    const analysed = await analyzeActivity(worker())(step);
    await persistActivity(worker())(step);
    return analysed;
  }

  async function persisted(meetingId: string) {
    const sentences = await t.db('sentences').where({ meeting_id: meetingId }).orderBy('idx');
    const m = await t.db('meetings').where({ id: meetingId }).first('status', 'progress', 'voiceprint_names');
    const matched = await t.db('audit_log').where({ action: 'speaker_profile.matched' });
    return {
      names: sentences.map((s) => s.speaker_name as string),
      status: m.status as string,
      inferred: (m.progress?.inferred_speakers ?? []) as { speaker: string; confidence: number }[],
      kept: m.voiceprint_names,
      matched: matched.filter((a) => a.details.meeting_id === meetingId).length,
      analytics: (await t.db('speaker_analytics').where({ meeting_id: meetingId }).orderBy('name')).map((a) => [
        a.name,
        a.email,
      ]),
      voices: (await t.db('meeting_voices').where({ meeting_id: meetingId }).orderBy('speaker')).map((v) => [
        v.speaker,
        v.profile_id,
      ]),
    };
  }

  /** Every name inferred_speakers lists is a name the sentences carry, and the other way round for names not labels. */
  function expectAgreement(read: Awaited<ReturnType<typeof persisted>>) {
    const named = [...new Set(read.names.filter((n) => !/^Speaker \d+$/.test(n)))].sort();
    expect(read.inferred.map((x) => x.speaker).sort()).toEqual(named);
  }

  /** The names the first stitch gave (Alex's voice matched), in the sentences and meeting_info, audited once. */
  function expectStitchNames(read: Awaited<ReturnType<typeof persisted>>) {
    expect(read.names).toEqual(['Alex Doe', 'Speaker 2', 'Alex Doe', 'Speaker 2']);
    expect(read.inferred).toEqual([{ speaker: 'Alex Doe', confidence: 1 }]);
    expectAgreement(read);
    expect(read.matched).toBe(1);
  }

  it('gives the names the stitch decided on a worker without the staged sentences, with one audit row', async () => {
    const { meetingId, profileId } = await processingMeeting();
    const ref = await stitch(worker(), meetingId);
    expect(ref.speakers).toBe(2);
    expect((await t.db('meetings').where({ id: meetingId }).first('voiceprint_names')).voiceprint_names).toEqual({
      run: null,
      speakers: [{ speaker: 'Alex Doe', label: ALEX_LABEL, email: 'alex@example.test', confidence: 1 }],
    });

    const analysed = await finishElsewhere(meetingId, ref);
    // The same sentences as the stitch staged: the digest ties analytics and summary to them.
    expect(analysed.digest).toBe(ref.digest);
    const read = await persisted(meetingId);
    expect(read.status).toBe('completed');
    expectStitchNames(read);
    expect(read.analytics).toEqual([
      ['Alex Doe', 'alex@example.test'],
      ['Speaker 2', null],
    ]);
    expect(read.voices).toEqual([
      ['Alex Doe', profileId],
      ['Speaker 2', null],
    ]);
    // The decision goes with the chunks it named once the transcript is saved.
    expect(read.kept).toBeNull();
  });

  it('keeps the names of a profile forgotten after the stitch, and does not bring its voice back', async () => {
    const { admin, meetingId, profileId } = await processingMeeting();
    const ref = await stitch(worker(), meetingId);
    const forgot = await forgetSpeakerProfile(t.db, admin.principal, profileId);
    expect(forgot).toMatchObject({ name: 'Alex Doe', voices_deleted: 1 });

    expect((await finishElsewhere(meetingId, ref)).digest).toBe(ref.digest);
    const read = await persisted(meetingId);
    expectStitchNames(read);
    // The email was the forgotten profile's: it is not looked up again.
    expect(read.analytics).toEqual([
      ['Alex Doe', null],
      ['Speaker 2', null],
    ]);
    expect(read.voices).toEqual([['Speaker 2', null]]);
  });

  it('keeps the names when voiceprints are turned off after the stitch, and keeps no voice', async () => {
    const { admin, meetingId } = await processingMeeting();
    const ref = await stitch(worker(), meetingId);
    const off = await setVoiceprints(t.db, admin.principal, false);
    expect(off).toMatchObject({ enabled: false, profiles_deleted: 1, voices_deleted: 2 });

    expect((await finishElsewhere(meetingId, ref)).digest).toBe(ref.digest);
    const read = await persisted(meetingId);
    expectStitchNames(read);
    expect(read.voices).toEqual([]);
  });

  it('lists the names the sentences carry even when a late progress write dropped them', async () => {
    const { meetingId } = await processingMeeting();
    const ref = await stitch(worker(), meetingId);
    // A chunk's attempt that outlived its retry reports its progress after the stitch.
    await setProgress(t.db, meetingId, { stage: 'transcribing', percent: 90, chunks_done: 1, chunks_total: 1 });
    await finishElsewhere(meetingId, ref);
    expectStitchNames(await persisted(meetingId));
  });

  it('decides afresh when the recording is stitched again: the forgotten name is gone everywhere', async () => {
    const { admin, meetingId, profileId } = await processingMeeting();
    await stitch(worker(), meetingId);
    await forgetSpeakerProfile(t.db, admin.principal, profileId);
    // A new run's stitch (outside a workflow run, every stitch is a new decision).
    const again = await stitch(worker(), meetingId);
    expect((await t.db('meetings').where({ id: meetingId }).first('progress')).progress).not.toHaveProperty(
      'inferred_speakers',
    );

    expect((await finishElsewhere(meetingId, again)).digest).toBe(again.digest);
    const read = await persisted(meetingId);
    expect(read.names).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 1', 'Speaker 2']);
    expect(read.inferred).toEqual([]);
    expectAgreement(read);
    // The first stitch's match only.
    expect(read.matched).toBe(1);
    expect(read.voices).toEqual([
      ['Speaker 1', null],
      ['Speaker 2', null],
    ]);
  });

  it('lets voiceprints be turned off while a stitch waits to recognise: the stitch keeps nothing', async () => {
    const { admin, meetingId } = await processingMeeting();
    await recogniseMeetingVoices(t.db, meetingId, [{ speaker: 'Speaker 1', embedding: voice(0) }], 'run-a');
    // The switch's transaction as setVoiceprints runs it, held open: the team locked, then its voices deleted.
    const off = await t.db.transaction();
    try {
      await off('teams').where({ id: admin.teamId }).forUpdate().first('id');
      const stitching = recogniseMeetingVoices(
        t.db,
        meetingId,
        [{ speaker: 'Speaker 1', embedding: voice(0) }],
        'run-b',
      );
      const waiting = async () => {
        const [{ n }] = await t
          .db('pg_stat_activity')
          .where({ datname: t.db.raw('current_database()'), wait_event_type: 'Lock' })
          .count({ n: '*' });
        return Number(n);
      };
      for (let i = 0; (await waiting()) === 0; i++) {
        if (i > 200) throw new Error('the stitch never waited for the team');
        await new Promise((r) => setTimeout(r, 10));
      }
      await off('meeting_voices').where({ team_id: admin.teamId }).delete();
      await off('speaker_profiles').where({ team_id: admin.teamId }).delete();
      await off('teams').where({ id: admin.teamId }).update({ voiceprints_enabled: false });
      await off.commit();
      expect(await stitching).toEqual([]);
    } finally {
      if (!off.isCompleted()) await off.rollback();
    }
    expect(await t.db('meeting_voices').where({ meeting_id: meetingId })).toHaveLength(0);
  });

  it("takes one run's decision again when its stitch is retried, and decides afresh for another run", async () => {
    const { admin, meetingId, profileId } = await processingMeeting();
    const voices = [
      { speaker: 'Speaker 1', embedding: voice(0, 0.1) },
      { speaker: 'Speaker 2', embedding: voice(30) },
    ];
    const first = await recogniseMeetingVoices(t.db, meetingId, voices, 'run-a');
    expect(first).toEqual([{ speaker: 'Alex Doe', label: 'Speaker 1', email: 'alex@example.test', confidence: 1 }]);
    await forgetSpeakerProfile(t.db, admin.principal, profileId);
    // The retried attempt of run-a: the same decision, no second audit row, no voice written again.
    expect(await recogniseMeetingVoices(t.db, meetingId, voices, 'run-a')).toEqual(first);
    const matched = () =>
      t
        .db('audit_log')
        .where({ action: 'speaker_profile.matched' })
        .whereRaw("details->>'meeting_id' = ?", [meetingId]);
    expect(await matched()).toHaveLength(1);
    expect((await t.db('meeting_voices').where({ meeting_id: meetingId })).map((v) => v.speaker)).toEqual([
      'Speaker 2',
    ]);

    // Another run of the meeting matches again: the profile is gone, so no one is named.
    expect(await recogniseMeetingVoices(t.db, meetingId, voices, 'run-b')).toEqual([]);
    expect(await matched()).toHaveLength(1);
    expect(
      (await t.db('meeting_voices').where({ meeting_id: meetingId }).orderBy('speaker')).map((v) => v.speaker),
    ).toEqual(['Speaker 1', 'Speaker 2']);
    expect((await t.db('meetings').where({ id: meetingId }).first('voiceprint_names')).voiceprint_names).toEqual({
      run: 'run-b',
      speakers: [],
    });
  });
});
