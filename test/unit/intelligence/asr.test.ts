import { ServiceError } from '../../../services/platform/errors';
import { createOpenAiCompatibleAsr, selectAsr, transcribe } from '../../../services/intelligence/asr';
import { NetError } from '../../../services/net/errors';
import { formDataOf, standIn } from './http-stand-in';

const audio = { bytes: Buffer.from('ID3\u0003fake-mp3-bytes'), contentType: 'audio/mpeg', fileName: 'weekly sync.mp3' };

const verboseJson = {
  task: 'transcribe',
  language: 'english',
  duration: 9.5,
  text: 'Hello everyone. Hi Ada. Shall we start?',
  segments: [
    { id: 0, seek: 0, start: 0.0, end: 2.4, text: ' Hello everyone.', speaker: 'SPEAKER_00', avg_logprob: -0.2 },
    { id: 1, seek: 0, start: 2.6, end: 3.9, text: ' Hi Ada.', speaker: 'SPEAKER_01', avg_logprob: -0.3 },
    { id: 2, seek: 0, start: 4.0, end: 4.0, text: '   ', speaker: 'SPEAKER_01' },
    { id: 3, seek: 0, start: 5.1, end: 9.5, text: ' Shall we start?', speaker: 'SPEAKER_00' },
  ],
};

describe('openai-compatible ASR adapter', () => {
  let server: Awaited<ReturnType<typeof standIn>>;
  beforeAll(async () => {
    server = await standIn((req) =>
      req.url.startsWith('/fail') ? { status: 503, body: { error: 'model loading' } } : { body: verboseJson },
    );
  });
  afterAll(() => server.close());

  it('posts the file as multipart/form-data with model, verbose_json and segment timestamps', async () => {
    const asr = createOpenAiCompatibleAsr({
      url: `${server.url}/`,
      apiKey: 'sk-test',
      model: 'Systran/faster-whisper-small',
    });
    await asr.transcribe(audio);
    const req = server.received.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/audio/transcriptions');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formDataOf(req);
    const file = form.get('file') as File;
    expect(file.name).toBe('weekly sync.mp3');
    expect(file.type).toBe('audio/mpeg');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(audio.bytes);
    expect(form.get('model')).toBe('Systran/faster-whisper-small');
    expect(form.get('response_format')).toBe('verbose_json');
    expect(form.getAll('timestamp_granularities[]')).toEqual(['segment']);
  });

  it('maps segments to sentences, diarized speakers numbered from 1, blank segments dropped', async () => {
    const sentences = await createOpenAiCompatibleAsr({ url: server.url, apiKey: '', model: 'whisper-1' }).transcribe(
      audio,
    );
    expect(sentences).toEqual([
      {
        index: 0,
        speaker_name: 'Speaker 1',
        speaker_id: 0,
        text: 'Hello everyone.',
        raw_text: ' Hello everyone.',
        start_time: 0,
        end_time: 2.4,
      },
      {
        index: 1,
        speaker_name: 'Speaker 2',
        speaker_id: 1,
        text: 'Hi Ada.',
        raw_text: ' Hi Ada.',
        start_time: 2.6,
        end_time: 3.9,
      },
      {
        index: 2,
        speaker_name: 'Speaker 1',
        speaker_id: 0,
        text: 'Shall we start?',
        raw_text: ' Shall we start?',
        start_time: 5.1,
        end_time: 9.5,
      },
    ]);
    expect(server.received.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('accepts a base URL that already ends in /v1', async () => {
    await createOpenAiCompatibleAsr({ url: `${server.url}/v1`, apiKey: '', model: 'm' }).transcribe(audio);
    expect(server.received.at(-1)!.url).toBe('/v1/audio/transcriptions');
  });

  it('reports a server failure as a retryable error that names the server and status', async () => {
    const asr = createOpenAiCompatibleAsr({ url: `${server.url}/fail`, apiKey: '', model: 'm' });
    const error = await asr.transcribe(audio).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetError);
    expect(error).toMatchObject({ retryable: true, status: 503 });
    expect((error as Error).message).toMatch(/speech-to-text server .* answered 503: .*model loading/);
  });

  it('reports an unreachable server as retryable', async () => {
    const asr = createOpenAiCompatibleAsr({ url: 'http://127.0.0.1:1', apiKey: '', model: 'm' });
    await expect(asr.transcribe(audio)).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/could not be reached/),
    });
  });
});

describe('selectAsr', () => {
  const withAsr = { asr: { url: 'http://asr.internal:8000', apiKey: '', model: 'whisper-1' } };
  const withoutAsr = { asr: { url: '', apiKey: '', model: 'whisper-1' } };

  it.each(['text/vtt', 'text/vtt; charset=utf-8', 'application/x-subrip', 'text/srt'])(
    'imports %s as captions, with or without ASR_URL',
    (type) => {
      expect(selectAsr(type, withoutAsr).name).toBe('captions');
      expect(selectAsr(type, withAsr).name).toBe('captions');
    },
  );

  it.each(['audio/mpeg', 'audio/wav', 'video/mp4', 'application/ogg'])(
    'sends %s to the speech-to-text server',
    (type) => {
      expect(selectAsr(type, withAsr).name).toBe('openai-compatible');
    },
  );

  it('sends audio to the embedded engine without ASR_URL', () => {
    expect(selectAsr('audio/mpeg', withoutAsr).name).toBe('embedded');
  });

  it('refuses audio for ASR_ENGINE=openai-compatible without ASR_URL with a message that says what to set', () => {
    let error: unknown;
    try {
      selectAsr('audio/mpeg', { asr: { ...withoutAsr.asr, engine: 'openai-compatible' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'invalid_arguments', details: { field: 'url', rule: 'asr_not_configured' } });
    expect((error as Error).message).toMatch(/set ASR_URL/);
  });

  it('refuses what is neither captions nor audio/video', () => {
    expect(() => selectAsr('application/pdf', withAsr)).toThrow(/cannot transcribe application\/pdf/);
  });

  it('transcribes a caption file without any server', async () => {
    const media = {
      bytes: Buffer.from('WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ada>Hi.</v>\n'),
      contentType: 'text/vtt',
      fileName: 'a.vtt',
    };
    expect((await transcribe(media, withoutAsr)).map((s) => [s.speaker_name, s.text])).toEqual([['Ada', 'Hi.']]);
  });
});
