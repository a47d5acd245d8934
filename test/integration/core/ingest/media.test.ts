/**
 * Real recordings end to end: speech made by espeak-ng in two voices, encoded by ffmpeg as wav, mp3,
 * m4a, ogg/opus, webm and mp4 (with a video track), through the real worker (ffmpeg extracts and
 * normalises the audio, chunks it, stitches it) to a speech-server stand-in that speaks OpenAI's wire
 * formats and derives its segments from the audio it receives (ffmpeg silencedetect), so the stored
 * timestamps are checked against where the speech really is in the original file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDatabase } from '../../../support/testDb';
import type { TestUser } from '../../../support/factory';
import type { AsrStandin } from '../../../support/asr-standin';
import { GraphqlHarness, TRANSCRIPT } from '../../../support/graphql';
import { TestWorker, waitForRun } from '../../../support/worker';
import {
  conversationWav,
  corruptMp3,
  durationOf,
  encoded,
  longRecording,
  requireMediaTools,
  silentVideo,
  speechRegions,
  stereoWav,
  truncatedM4a,
  type Encoding,
} from '../../../support/media';
import type { MediaServer } from './media-server';
import { RecordingRig, startRecordingRig } from './rig';

requireMediaTools();

/** Every file left under a directory (the worker's stage root): none once a run has ended. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const LONG_SECONDS = 3700;

/** Where the speech is in `seconds` of the conversation looped (as longRecording makes it), from the original WAV. */
function loopedTruth(seconds: number): { start: number; end: number }[] {
  const period = durationOf(conversationWav());
  const base = speechRegions(conversationWav());
  const out: { start: number; end: number }[] = [];
  for (let k = 0; k * period < seconds; k++) {
    for (const r of base)
      if (r.start + k * period < seconds - 0.3)
        out.push({ start: r.start + k * period, end: Math.min(r.end + k * period, seconds) });
  }
  return out;
}

describe('real recordings through ffmpeg and chunked transcription', () => {
  let rig: RecordingRig;
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let worker: TestWorker;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;

  beforeAll(async () => {
    rig = await startRecordingRig({
      queue: 'media',
      ownerName: 'Mia Media',
      asr: { derive: true, diarize: true },
      workerEnv: { ASR_MODEL: 'whisper-1', MEDIA_MAX_SECONDS: '3900' },
    });
    ({ t, gql, worker, media, asr, owner } = rig);
  }, 120_000);
  afterAll(() => rig?.close());

  const upload = (input: Record<string, unknown>) => rig.upload(input);
  const serveFile = (path: string, name: string) =>
    media.serve(`/rec/${name}`, { body: readFileSync(path), contentType: 'application/octet-stream' });
  const sentencesOf = (id: string) =>
    t
      .db('sentences')
      .where({ meeting_id: id })
      .orderBy('idx')
      .select('idx', 'speaker_name', 'text', 'start_time', 'end_time');

  const encodings: Encoding[] = ['wav', 'mp3', 'm4a', 'opus', 'webm', 'mp4'];
  it.each(encodings)(
    'transcribes the conversation as %s: audio only, 16 kHz mono WAV to the server, speech where it is',
    async (enc) => {
      const file = encoded('mono', enc);
      const url = serveFile(file, `conversation-${enc}.${file.split('.').pop()}`);
      const before = asr.requests.length;
      const id = await upload({ url, title: `Conversation ${enc}` });
      expect(await waitForRun(gql.temporal, id, 60_000)).toMatchObject({ status: 'completed' });

      const sent = asr.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        fileName: 'chunk-001.wav',
        fileType: 'audio/wav',
        channels: 1,
        responseFormat: 'verbose_json',
        status: 200,
      });
      const rows = await sentencesOf(id);
      // Where the speech is in the original (lossy encoders add a click of noise at the very end).
      const truth = speechRegions(conversationWav());
      expect(truth).toHaveLength(3);
      expect(rows).toHaveLength(3);
      rows.forEach((r, i) => {
        expect(r.start_time).toBeCloseTo(truth[i].start, 1);
        expect(r.end_time).toBeCloseTo(truth[i].end, 1);
      });
      expect(rows.map((r) => r.speaker_name)).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 1']);
    },
  );

  it('labels a two-channel recording by channel when split_channels is asked, sentences interleaved by time', async () => {
    const file = encoded('stereo', 'm4a');
    const url = serveFile(file, 'stereo.m4a');
    const before = asr.requests.length;
    const id = await upload({ url, split_channels: true, speaker_names: ['Alice Left', 'Bob Right'], language: 'en' });
    expect(await waitForRun(gql.temporal, id, 60_000)).toMatchObject({ status: 'completed' });
    const sent = asr.requests.slice(before);
    expect(sent.map((r) => r.fileName).sort()).toEqual(['chunk-001-ch1.wav', 'chunk-001-ch2.wav']);
    expect(sent.every((r) => r.channels === 1 && r.language === 'en')).toBe(true);
    const rows = await sentencesOf(id);
    expect(rows.map((r) => r.speaker_name)).toEqual(['Alice Left', 'Bob Right', 'Alice Left']);
    const left = speechRegions(stereoWav(), { channel: 0 });
    const right = speechRegions(stereoWav(), { channel: 1 });
    expect(rows[0].start_time).toBeCloseTo(left[0].start, 1);
    expect(rows[1].start_time).toBeCloseTo(right[0].start, 1);
    expect(rows[2].start_time).toBeCloseTo(left[1].start, 1);
  });

  it('chunks a recording over an hour long at silences, each chunk within the limits, stitched without repeats', async () => {
    const file = longRecording('mp3', LONG_SECONDS);
    const url = serveFile(file, 'long.mp3');
    const before = asr.requests.length;
    const id = await upload({ url, title: 'An hour and more' });
    expect(await waitForRun(gql.temporal, id, 180_000)).toMatchObject({ status: 'completed' });

    const sent = asr.requests.slice(before);
    // 3,700 s in chunks of at most 600 s (ASR_CHUNK_MAX_SECONDS's default): 7 requests, none over 24 MB.
    expect(sent).toHaveLength(7);
    expect(new Set(sent.map((r) => r.fileName)).size).toBe(7);
    for (const r of sent) {
      expect(r.status).toBe(200);
      expect(r.fileBytes).toBeLessThanOrEqual(24 * 1024 * 1024);
      expect(r.durationSeconds!).toBeLessThanOrEqual(600.01);
    }
    const rows = await sentencesOf(id);
    const truth = loopedTruth(LONG_SECONDS);
    // Every utterance exactly once, where it is in the whole file (offsets stitched, overlap dropped).
    expect(rows.length).toBe(truth.length);
    let worst = 0;
    rows.forEach((r, i) => {
      worst = Math.max(worst, Math.abs(r.start_time - truth[i].start), Math.abs(r.end_time - truth[i].end));
    });
    expect(worst).toBeLessThan(0.1);
    const m = await t.db('meetings').where({ id }).first();
    expect(Number(m.duration_seconds)).toBeCloseTo(LONG_SECONDS, 0);
    // The chunk rows went with the persisted transcript; meeting_info says labels are per chunk.
    expect(await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    const tr = await gql.request(owner.key, TRANSCRIPT, { id });
    expect(tr.body.data.transcript.meeting_info.message).toMatch(/per chunk/);
  }, 240_000);

  it.each([
    ['a video without an audio stream', () => silentVideo(), /no_audio/],
    ['a corrupt mp3', () => corruptMp3(), /unreadable/],
    ['a truncated m4a', () => truncatedM4a(), /unreadable/],
    ['a recording longer than MEDIA_MAX_SECONDS', () => longRecording('mp3', 4000), /too_long.*MEDIA_MAX_SECONDS/],
  ])(
    'refuses %s, naming the rule, and stores no transcript',
    async (_label, make, rule) => {
      const file = make();
      const url = serveFile(file, `bad-${Math.random().toString(36).slice(2)}.${file.split('.').pop()}`);
      const before = asr.requests.length;
      const id = await upload({ url });
      expect(await waitForRun(gql.temporal, id, 90_000)).toMatchObject({ status: 'failed' });
      const m = await t.db('meetings').where({ id }).first();
      expect(m.status).toBe('failed');
      expect(m.failure_reason).toMatch(rule);
      expect(asr.requests.length).toBe(before);
      expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
      expect(await t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    },
    120_000,
  );

  it('leaves no temporary file behind once the runs have ended', () => {
    expect(filesUnder(worker.stageRoot)).toEqual([]);
  });
});

describe("a speech server's refusal reaches the meeting", () => {
  let rig: RecordingRig;

  beforeAll(async () => {
    // Limits set past what OpenAI takes (a chunk of up to 40 MB, an hour long), as a misconfigured deployment would.
    rig = await startRecordingRig({
      queue: 'media-refusal',
      ownerName: 'Rita Refused',
      asr: { derive: true },
      workerEnv: { ASR_CHUNK_MAX_BYTES: String(40 * 1024 * 1024), ASR_CHUNK_MAX_SECONDS: '3600' },
    });
  }, 120_000);
  afterAll(() => rig?.close());

  it('a chunk over 25 MB is answered 413 as OpenAI answers it: the meeting fails saying so, sent once, nothing stored', async () => {
    // 900 s of 16 kHz mono PCM is 28.8 MB: one chunk under these limits, over the server's.
    const url = rig.media.serve('/refused/long.mp3', {
      body: readFileSync(longRecording('mp3', 900)),
      contentType: 'audio/mpeg',
    });
    const id = await rig.upload({ url, title: 'Too big for the server' });
    expect(await waitForRun(rig.gql.temporal, id, 120_000)).toMatchObject({ status: 'failed' });
    const m = await rig.t.db('meetings').where({ id }).first();
    expect(m.status).toBe('failed');
    expect(m.failure_reason).toMatch(
      /speech-to-text server .*answered 413: .*Maximum content size limit \(26214400\) exceeded/,
    );
    // A refusal is not retried: the same bytes would be refused again.
    expect(rig.asr.requests).toHaveLength(1);
    expect(rig.asr.requests[0]).toMatchObject({ status: 413, fileType: 'audio/wav' });
    expect(rig.asr.requests[0].fileBytes).toBeGreaterThan(25 * 1024 * 1024);
    expect(await rig.t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await rig.t.db('transcript_chunks').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(filesUnder(rig.worker.stageRoot)).toEqual([]);
  }, 180_000);
});
