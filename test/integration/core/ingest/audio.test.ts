/**
 * Audio end to end through an OpenAI-compatible speech-to-text stand-in that speaks the real
 * multipart request and verbose_json answer over HTTP; downloads that need credentials.
 */
import type { TestDatabase } from '../../../support/testDb';
import type { TestUser } from '../../../support/factory';
import { AsrStandin, silentWav } from '../../../support/asr-standin';
import { GraphqlHarness, TRANSCRIPT } from '../../../support/graphql';
import { waitForRun } from '../../../support/worker';
import type { MediaServer } from './media-server';
import { RecordingRig, startRecordingRig } from './rig';

describe('audio uploads through an OpenAI-compatible ASR server', () => {
  let rig: RecordingRig;
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let media: MediaServer;
  let asr: AsrStandin;
  let owner: TestUser;
  const wav = silentWav(9);

  beforeAll(async () => {
    rig = await startRecordingRig({
      queue: 'audio',
      ownerName: 'Olga Owner',
      workerEnv: { ASR_API_KEY: 'asr-secret-key', ASR_MODEL: 'whisper-test' },
    });
    ({ t, gql, media, asr, owner } = rig);
  }, 120_000);
  afterAll(() => rig?.close());

  const upload = (input: Record<string, unknown>) => rig.upload(input);

  it('sends the file as multipart to /v1/audio/transcriptions and stores the diarized segments', async () => {
    const url = media.serve('/private/call.wav', {
      body: wav,
      contentType: 'audio/wav',
      authorization: 'Bearer download-token-123',
    });
    const before = asr.requests.length;
    const id = await upload({
      url: `${url}?sig=presigned-abc`,
      title: 'Pipeline review',
      custom_language: 'pt-BR',
      download_auth: { type: 'bearer_token', bearer: { token: 'download-token-123' } },
    });
    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });

    // The download carried the upload's credentials.
    expect(media.hits('/private/call.wav').map((h) => h.authorization)).toEqual(['Bearer download-token-123']);
    // The ASR server got a real multipart request with the file and the verbose_json options.
    expect(asr.requests.slice(before)).toEqual([
      {
        authorization: 'Bearer asr-secret-key',
        model: 'whisper-test',
        responseFormat: 'verbose_json',
        granularities: ['segment'],
        language: 'pt',
        // The audio, extracted by ffmpeg and normalised to 16 kHz mono PCM (9 s: 288,000 bytes and the header).
        fileName: 'chunk-001.wav',
        fileType: 'audio/wav',
        fileBytes: 44 + 9 * 32_000,
      },
    ]);

    const tr = await gql.request(owner.key, TRANSCRIPT, { id });
    const data = tr.body.data.transcript;
    expect(data.status).toBe('completed');
    expect(data.sentences).toEqual([
      {
        index: 0,
        speaker_name: 'Speaker 1',
        speaker_id: 0,
        text: 'Good morning, this is the weekly pipeline review.',
        start_time: 0,
        end_time: 2.4,
      },
      {
        index: 1,
        speaker_name: 'Speaker 2',
        speaker_id: 1,
        text: 'Thanks. Can we start with the Contoso renewal?',
        start_time: 2.6,
        end_time: 5.1,
      },
      {
        index: 2,
        speaker_name: 'Speaker 1',
        speaker_id: 0,
        text: 'Sure, I will send the revised quote by Friday.',
        start_time: 5.3,
        end_time: 8.9,
      },
    ]);
    // The meeting lasts as long as the audio (9 s by its header), not just until the last word.
    expect(data.meeting_analytics.duration_seconds).toBeCloseTo(9, 2);
    expect(data.duration).toBeCloseTo(0.2, 1);
    expect(data.summary.summary_status).toBe('processed');
    // Charged from the file's own duration, once, by the download step.
    const user = await t.db('users').where({ id: owner.id }).first();
    expect(Number(user.minutes_consumed)).toBeCloseTo(0.15, 2);
    const m = await t.db('meetings').where({ id }).first();
    expect(m.upload_options.minutes_charged_seconds).toBeCloseTo(9, 2);
  });

  it('keeps download credentials and pre-signed query strings out of stored rows', async () => {
    const meeting = await t.db('meetings').where({ title: 'Pipeline review' }).first();
    expect(meeting.source_url).toMatch(/\/private\/call\.wav$/);
    const audit = await t.db('audit_log').where({ target_id: meeting.id });
    const stored = JSON.stringify([meeting, audit]);
    expect(stored).not.toContain('download-token-123');
    expect(stored).not.toContain('presigned-abc');
  });

  it('sends basic credentials when download_auth is basic_auth', async () => {
    const expected = `Basic ${Buffer.from('rec:pa:ss word').toString('base64')}`;
    const url = media.serve('/basic/call.wav', { body: wav, contentType: 'audio/wav', authorization: expected });
    const id = await upload({
      url,
      download_auth: { type: 'basic_auth', basic: { username: 'rec', password: 'pa:ss word' } },
    });
    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });
    expect(media.hits('/basic/call.wav').map((h) => h.authorization)).toEqual([expected]);
  });

  it('retries a speech-to-text server that is briefly unavailable', async () => {
    const url = media.serve('/flaky/call.wav', { body: wav, contentType: 'audio/wav' });
    const before = asr.requests.length;
    asr.failNext(1, 503);
    const id = await upload({ url });
    expect(await waitForRun(gql.temporal, id)).toMatchObject({ status: 'completed' });
    expect(asr.requests.length - before).toBe(2);
    expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '3' }]);
  });

  it("fails the meeting with the server's answer when the ASR server refuses the file", async () => {
    const url = media.serve('/refused/call.wav', { body: wav, contentType: 'audio/wav' });
    asr.failNext(10, 400);
    const id = await upload({ url });
    const run = await waitForRun(gql.temporal, id);
    asr.failNext(0);
    expect(run.status).toBe('failed');
    const m = await t.db('meetings').where({ id }).first();
    expect(m.status).toBe('failed');
    expect(m.failure_reason).toMatch(/speech-to-text server .* answered 400/);
    expect(await t.db('sentences').where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});
