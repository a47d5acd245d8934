/**
 * The embedded engine's settings and Moonshine's vocabulary: which engine transcribes by default,
 * what the configuration refuses, and tokens.txt derived from tokenizer.bin byte for byte.
 */
import { asrEngine, moonshineTokens, servesLanguage } from '../../../services/intelligence/asr';
import { ConfigError } from '../../../services/platform/config';
import { testConfig } from '../../support/config';

describe('ASR_ENGINE', () => {
  it('is embedded without ASR_URL and openai-compatible with it, unless set', () => {
    expect(testConfig().asr.engine).toBe('embedded');
    expect(asrEngine(testConfig())).toBe('embedded');
    expect(testConfig({ ASR_URL: 'http://asr:8000' }).asr.engine).toBe('openai-compatible');
    expect(testConfig({ ASR_URL: 'http://asr:8000', ASR_ENGINE: 'embedded' }).asr.engine).toBe('embedded');
  });

  it('refuses openai-compatible without ASR_URL, an unknown engine and negative recognizers, naming the setting', () => {
    expect(() => testConfig({ ASR_ENGINE: 'openai-compatible' })).toThrow(
      /ASR_URL is required with ASR_ENGINE=openai-compatible/,
    );
    expect(() => testConfig({ ASR_ENGINE: 'whisper' })).toThrow(
      /ASR_ENGINE must be one of embedded, openai-compatible/,
    );
    expect(() => testConfig({ SPEECH_RECOGNIZERS: '-1' })).toThrow(ConfigError);
    expect(testConfig({ SPEECH_RECOGNIZERS: '0' }).asr.speech.recognizers).toBe(0);
  });

  it('puts speech on the worker queue unless a speech queue is named', () => {
    expect(testConfig({ TEMPORAL_TASK_QUEUE: 'q' }).temporal.speechTaskQueue).toBe('q');
    expect(
      testConfig({ TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_SPEECH_TASK_QUEUE: 'q-speech' }).temporal.speechTaskQueue,
    ).toBe('q-speech');
    expect(testConfig().workerKind).toBe('general');
    expect(() => testConfig({ WORKER_KIND: 'both' })).toThrow(/WORKER_KIND must be one of general, speech/);
  });
});

describe('languages a model serves', () => {
  it('takes its listed languages, any with *, and any upload that names none', () => {
    expect(servesLanguage({ languages: ['en'] }, 'en')).toBe(true);
    expect(servesLanguage({ languages: ['en'] }, 'EN')).toBe(true);
    expect(servesLanguage({ languages: ['en'] }, 'de')).toBe(false);
    expect(servesLanguage({ languages: ['*'] }, 'de')).toBe(true);
    expect(servesLanguage({ languages: ['en'] }, undefined)).toBe(true);
  });
});

describe('tokens.txt from tokenizer.bin', () => {
  it('writes one line per token, base64 of its bytes and its id, reading one- and two-byte lengths and empty tokens', () => {
    const long = Buffer.alloc(200, 0x61);
    const word = Buffer.from('\u2581hi');
    const bin = Buffer.concat([
      Buffer.from([5]),
      Buffer.from('<unk>'),
      Buffer.from([0]),
      Buffer.from([0x80 + (200 % 128), Math.floor(200 / 128)]),
      long,
      Buffer.from([word.length]),
      word,
    ]);
    expect(moonshineTokens(bin).split('\n')).toEqual([
      `${Buffer.from('<unk>').toString('base64')} 0`,
      ' 1',
      `${long.toString('base64')} 2`,
      `${word.toString('base64')} 3`,
      '',
    ]);
  });

  it('refuses a file that ends inside a token', () => {
    expect(() => moonshineTokens(Buffer.from([5, 0x61]))).toThrow(/ends inside a token/);
    expect(() => moonshineTokens(Buffer.from([0x85]))).toThrow(/ends inside a token length/);
  });
});
