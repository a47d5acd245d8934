/**
 * diarized_json across chunks: the first chunk is transcribed alone, and every later chunk is sent the
 * speakers it found as known_speaker_names[] with short clips of their voices as
 * known_speaker_references[] (WAV data URLs of 2 to 10 s, cut by ffmpeg), so the server can keep a
 * speaker the same person; meeting_info then does not say labels are per chunk.
 */
import { readFileSync } from 'node:fs';
import type { TestDatabase } from '../../../support/testDb';
import type { TestUser } from '../../../support/factory';
import type { AsrStandin } from '../../../support/asr-standin';
import { GraphqlHarness, TRANSCRIPT, UPLOAD_AUDIO } from '../../../support/graphql';
import { waitForRun } from '../../../support/worker';
import { longRecording, requireMediaTools } from '../../../support/media';
import type { MediaServer } from './media-server';
import { RecordingRig, startRecordingRig } from './rig';

requireMediaTools();

describe('speakers across chunks with diarized_json', () => {
  let rig: RecordingRig;
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;

  beforeAll(async () => {
    rig = await startRecordingRig({
      queue: 'speakers',
      ownerName: 'Dia Rized',
      asr: { derive: true },
      workerEnv: {
        ASR_MODEL: 'gpt-4o-transcribe-diarize',
        ASR_RESPONSE_FORMAT: 'diarized_json',
        ASR_CHUNK_MAX_SECONDS: '40',
      },
    });
    ({ t, gql, media, asr, owner } = rig);
  }, 120_000);
  afterAll(() => rig?.close());

  it('sends the first chunk alone, then every other chunk with clips of the speakers it found', async () => {
    const url = media.serve('/diarize/long.mp3', {
      body: readFileSync(longRecording('mp3', 120)),
      contentType: 'audio/mpeg',
    });
    const res = await gql.request(owner.key, UPLOAD_AUDIO, { input: { url, title: 'Diarized' } });
    const id = res.body.data.uploadAudio.meetingId as string;
    expect(await waitForRun(gql.temporal, id, 90_000)).toMatchObject({ status: 'completed' });

    const [first, ...rest] = asr.requests;
    expect(first).toMatchObject({
      fileName: 'chunk-001.wav',
      responseFormat: 'diarized_json',
      chunkingStrategy: 'auto',
      knownSpeakerNames: [],
      status: 200,
    });
    expect(rest.length).toBeGreaterThanOrEqual(2);
    for (const r of rest) {
      expect(r).toMatchObject({
        responseFormat: 'diarized_json',
        knownSpeakerNames: ['A', 'B'],
        knownSpeakerReferences: 2,
        status: 200,
      });
      for (const s of r.referenceSeconds!) {
        expect(s).toBeGreaterThanOrEqual(2);
        expect(s).toBeLessThanOrEqual(10);
      }
    }
    const speakers = await t.db('sentences').where({ meeting_id: id }).distinct('speaker_name').pluck('speaker_name');
    expect(speakers.sort()).toEqual(['A', 'B']);
    const tr = await gql.request(owner.key, TRANSCRIPT, { id });
    expect(tr.body.data.transcript.meeting_info.message).not.toMatch(/per chunk/);
  }, 150_000);
});
