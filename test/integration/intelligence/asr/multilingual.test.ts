/**
 * The embedded engine with two models at once, as an operator configures it after `make
 * models-multilingual` (SPEECH_MODELS=whisper-base): real Czech speech (Debian fillets-ng-data-cs, its
 * lines from fillets-ng-data) decoded by the converted Whisper base within a character error rate
 * measured on this data; the language of Czech and English speech detected from windows of 20 s and
 * more; English routed to Moonshine and Czech to Whisper in the same engine; a language no configured
 * model serves refused with a message naming it and the settings.
 */
import { checkSpeechLanguage, embeddedEngine, type EmbeddedEngine } from '../../../../services/intelligence/asr';
import { characterErrorRate, czechRecording, requireCzechData } from '../../../support/czech';
import { librivox, MODELS_DIR, requireSpeechData, wavSamples } from '../../../support/speech';
import { wordErrorRate } from '../../../support/wer';

requireSpeechData();
requireCzechData();

const SAMPLE_RATE = 16_000;
const textOf = (segments: { text: string }[]) => segments.map((s) => s.text).join(' ');
/** Czech letters Moonshine's English vocabulary never writes. */
const CZECH_LETTERS = /[ěščřžýáíéůú]/i;

let engine: EmbeddedEngine;
beforeAll(async () => {
  engine = await embeddedEngine({
    modelsDir: MODELS_DIR,
    model: 'moonshine-tiny-en',
    models: ['whisper-base'],
    recognizers: 1,
  });
}, 120_000);

/** The LibriVox utterances one after another (24.7 s of English). */
function englishSpeech(): Float32Array {
  const parts = librivox().map((u) => wavSamples(u.path));
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('several speech models in one engine', () => {
  it('decodes real Czech speech with the multilingual model within the measured character error rate', async () => {
    const rec = czechRecording('briefcase', 45);
    expect(rec.lines).toBeGreaterThanOrEqual(8);
    const segments = await engine.transcribe(rec.samples, undefined, 'cs');
    const cer = characterErrorRate(rec.reference, textOf(segments));
    expect(cer).toBeLessThanOrEqual(0.3);
    for (const s of segments)
      expect(s.end - s.start).toBeLessThanOrEqual(engine.modelFor('cs').maxSegmentSeconds + 0.001);
    expect(textOf(segments)).toMatch(CZECH_LETTERS);
  }, 240_000);

  it('detects Czech and English from windows of 20 s and more of their first speech', async () => {
    // Right on 7 of 8 levels measured (docs/speech.md); one level's voices are taken for Slovak.
    for (const level of ['city', 'keys']) {
      const rec = czechRecording(level, 40);
      for (const seconds of [20, 28]) {
        expect(await engine.detectLanguage(rec.samples.subarray(0, seconds * SAMPLE_RATE))).toBe('cs');
      }
    }
    expect(await engine.detectLanguage(englishSpeech())).toBe('en');
    // No speech: nothing to tell.
    expect(await engine.detectLanguage(new Float32Array(SAMPLE_RATE * 10))).toBeUndefined();
  }, 240_000);

  it('sends English to the English model and Czech to the multilingual one, in the same engine', async () => {
    expect(engine.modelFor('en').name).toBe('moonshine-tiny-en');
    expect(engine.modelFor('cs').name).toBe('whisper-base-int8');
    expect(engine.modelFor(undefined).name).toBe('moonshine-tiny-en');
    expect(engine.describe('cs')).toMatchObject({ engine: 'embedded', model: 'whisper-base-int8' });

    const pairs = [];
    for (const u of librivox().slice(0, 3)) {
      const samples = wavSamples(u.path);
      const asEnglish = textOf(await engine.transcribe(samples, undefined, 'en'));
      // English decodes exactly as with Moonshine alone (the default, no language given).
      expect(asEnglish).toBe(textOf(await engine.transcribe(samples)));
      pairs.push({ reference: u.reference, hypothesis: asEnglish });
    }
    expect(wordErrorRate(pairs).wer).toBeLessThanOrEqual(0.1);

    const czech = textOf(await engine.transcribe(czechRecording('city', 15).samples, undefined, 'cs'));
    expect(czech).toMatch(CZECH_LETTERS);
  }, 240_000);

  it('refuses a language no configured model serves, naming it and the settings', async () => {
    const englishOnly = await embeddedEngine({ modelsDir: MODELS_DIR, model: 'moonshine-tiny-en', recognizers: 1 });
    expect(() => englishOnly.modelFor('cs')).toThrow(
      /language: no speech model here transcribes cs; the models of SPEECH_MODEL and SPEECH_MODELS serve moonshine-tiny-en \(en\)/,
    );
    await expect(englishOnly.transcribe(new Float32Array(SAMPLE_RATE), undefined, 'cs')).rejects.toThrow(
      /no speech model here transcribes cs/,
    );
    // Without a multilingual model nothing is detected: the default model, as before.
    expect(await englishOnly.detectLanguage(englishSpeech())).toBeUndefined();

    const config = (models: string[]) => ({
      asr: {
        speech: { modelsDir: MODELS_DIR, model: 'moonshine-tiny-en', models, recognizers: 1 },
        url: '',
        apiKey: '',
        model: '',
      },
    });
    expect(() => checkSpeechLanguage(config([]), 'de', 'custom_language')).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(
          /^custom_language: no speech model here transcribes de;.*adds a model that serves it to SPEECH_MODELS/,
        ),
      }),
    );
    // An operator's entry narrows the multilingual model to the languages it names.
    expect(() => checkSpeechLanguage(config(['whisper-base=cs+sk']), 'cs')).not.toThrow();
    expect(() => checkSpeechLanguage(config(['whisper-base=cs+sk']), 'ja')).toThrow(
      /no speech model here transcribes ja; .*whisper-base \(cs, sk\)/,
    );
    expect(() => checkSpeechLanguage(config(['whisper-base']), 'ja')).not.toThrow();
  }, 120_000);
});
