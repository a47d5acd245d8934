/**
 * Which speech model serves which language (SPEECH_MODEL, SPEECH_MODELS), how SPEECH_MODELS is
 * checked at start, and the guard against a decoder loop (a phrase said again and again).
 */
import { collapseRepeats, detectorOf, modelEntries, modelFor } from '../../../services/intelligence/asr';
import { ConfigError, loadConfig } from '../../../services/platform/config';

const english = { name: 'moonshine-tiny-en', kind: 'moonshine', languages: ['en'] };
const whisper = { name: 'whisper-base-int8', kind: 'whisper', languages: ['*'] };
const german = { name: 'german-only', kind: 'transducer', languages: ['de'] };

describe('speech models routed by language', () => {
  it('sends a language to the first model naming it, else to one serving every language', () => {
    expect(modelFor([english, whisper], 'en')).toBe(english);
    expect(modelFor([english, whisper], 'cs')).toBe(whisper);
    expect(modelFor([english, whisper, german], 'de')).toBe(german);
    expect(modelFor([whisper, english], 'en')).toBe(english);
    // A region and capitals do not matter.
    expect(modelFor([english, whisper], 'EN-gb')).toBe(english);
    expect(modelFor([english], 'cs')).toBeUndefined();
  });

  it('lists SPEECH_MODEL first, then SPEECH_MODELS with the languages their entries name', () => {
    expect(modelEntries({ modelsDir: '.models', model: 'moonshine-tiny-en' })).toEqual([
      { folder: 'moonshine-tiny-en' },
    ]);
    expect(
      modelEntries({
        modelsDir: '.models',
        model: 'moonshine-tiny-en',
        models: ['whisper-base=cs+de', 'moonshine-tiny-en', 'parakeet'],
      }),
    ).toEqual([
      { folder: 'moonshine-tiny-en' },
      { folder: 'whisper-base', languages: ['cs', 'de'] },
      { folder: 'parakeet' },
    ]);
  });

  it('detects with a Whisper model serving several languages only', () => {
    expect(detectorOf([english, whisper])).toBe(whisper);
    expect(detectorOf([english, german])).toBeUndefined();
    expect(detectorOf([english, { ...whisper, languages: ['cs'] }])).toBeUndefined();
    expect(detectorOf([english, { ...whisper, languages: ['cs', 'sk'] }])).toBeDefined();
  });

  it('refuses a malformed SPEECH_MODELS entry at start, naming the setting', () => {
    const env = { DATABASE_URL: 'postgres://u:p@localhost/db', SECRETS_KEY: 'a'.repeat(64) };
    expect(loadConfig({ ...env, SPEECH_MODELS: 'whisper-base=cs+de, parakeet' }, 'worker').asr.speech.models).toEqual([
      'whisper-base=cs+de',
      'parakeet',
    ]);
    expect(() => loadConfig({ ...env, SPEECH_MODELS: 'whisper base' }, 'worker')).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, SPEECH_MODELS: 'whisper-base=Czech' }, 'worker')).toThrow(
      /SPEECH_MODELS: "whisper-base=Czech" is not a model folder/,
    );
  });
});

describe('a decoder loop', () => {
  it('keeps once a phrase said three times running, a word four times', () => {
    expect(collapseRepeats('a to je ono a to je ono a to je ono konec')).toBe('a to je ono konec');
    expect(collapseRepeats('ne ne ne ne ne')).toBe('ne');
    expect(collapseRepeats('Tak, tak, TAK, tak.')).toBe('Tak, tak, TAK, tak.');
  });

  it('leaves what people say twice, and a word said three times', () => {
    expect(collapseRepeats('very very good')).toBe('very very good');
    expect(collapseRepeats('no no no')).toBe('no no no');
    expect(collapseRepeats('we said it we said it then left')).toBe('we said it we said it then left');
  });
});
