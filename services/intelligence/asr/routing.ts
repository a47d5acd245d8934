/**
 * Which speech model serves which language. An operator lists the models of the embedded engine:
 * SPEECH_MODEL (the default, English Moonshine unless changed) and SPEECH_MODELS (more folders, each
 * optionally with the languages it should serve: `whisper-base=cs+de`). A model serves the languages
 * of its model.json unless its entry says others.
 *
 * A language goes to the first model that names it, else to the first that serves every language
 * (`*`): English stays with the small English model while a multilingual one takes the rest. A
 * recording without a language is detected by a model that can (a multilingual Whisper) and then
 * routed the same way; without such a model it goes to the default model, as before.
 *
 * The roles that take uploads (mcp, graphql) load no model: they read the model.json files alone
 * (a few hundred bytes each, no weights, no digests) to refuse at once a language no model serves.
 */
import { SPEECH_MODEL_ENTRY } from '../../platform/config';
import { invalid } from '../../platform/errors';
import { readSpeechManifest, type SpeechModel } from './models';

export interface SpeechSettings {
  modelsDir: string;
  model: string;
  models?: string[];
}

/** A configured model: its manifest, with the languages its entry gives in place of the manifest's. */
export type RoutedModel = SpeechModel & { folder: string };

/** The models in the order they are asked: SPEECH_MODEL, then SPEECH_MODELS as listed. */
export function modelEntries(speech: SpeechSettings): { folder: string; languages?: string[] }[] {
  const extra = (speech.models ?? []).map((entry) => {
    if (!SPEECH_MODEL_ENTRY.test(entry))
      throw new Error(`SPEECH_MODELS: ${JSON.stringify(entry)} is not a model folder`);
    const [folder, langs] = entry.split('=');
    return langs ? { folder, languages: langs.split('+') } : { folder };
  });
  return [{ folder: speech.model }, ...extra.filter((e) => e.folder !== speech.model)];
}

/** The configured models' manifests (files only, nothing loaded), with their entries' languages. */
export function readModels(speech: SpeechSettings): RoutedModel[] {
  return modelEntries(speech).map((e, i) => {
    const m = readSpeechManifest(speech.modelsDir, e.folder, i === 0 ? 'SPEECH_MODEL' : 'SPEECH_MODELS');
    return { ...m, folder: e.folder, languages: e.languages ?? m.languages };
  });
}

const lower = (language: string) => language.toLowerCase().split('-')[0];

/** The model that transcribes this language (ISO 639-1, a region ignored): named first, else `*`. */
export function modelFor<M extends Pick<SpeechModel, 'languages'>>(models: M[], language: string): M | undefined {
  const code = lower(language);
  return models.find((m) => m.languages.includes(code)) ?? models.find((m) => m.languages.includes('*'));
}

/** A model that detects the language of speech: a Whisper model serving more than one language. */
export function detectorOf<M extends Pick<SpeechModel, 'kind' | 'languages'>>(models: M[]): M | undefined {
  return models.find((m) => m.kind === 'whisper' && (m.languages.includes('*') || m.languages.length > 1));
}

/** Every language the models serve, for messages ("en, cs" or "every language"). */
export function servedLanguages(models: Pick<SpeechModel, 'languages'>[]): string {
  const all = [...new Set(models.flatMap((m) => m.languages))];
  return all.includes('*') ? 'every language' : all.join(', ');
}

/** The refusal of a language no configured model serves, naming the language and the settings. */
export function unservedLanguage(field: string, language: string, models: RoutedModel[]) {
  const named = models.map((m) => `${m.folder} (${m.languages.join(', ')})`).join(', ');
  return invalid(
    field,
    'a language a configured speech model serves',
    `${field}: no speech model here transcribes ${language}; the models of SPEECH_MODEL and SPEECH_MODELS serve ${named}. ` +
      'An operator adds a model that serves it to SPEECH_MODELS (e.g. the multilingual Whisper of `make models-multilingual`, docs/speech.md); or upload without a language',
  );
}

const cache = new Map<string, { at: number; models: RoutedModel[] }>();
/** model.json files are read again after this long, so an operator's new model is seen without a restart. */
const CATALOGUE_TTL_MS = 60_000;

/** The configured models' manifests, read at most once a minute per process. */
export function speechCatalogue(speech: SpeechSettings): RoutedModel[] {
  const key = JSON.stringify(speech);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CATALOGUE_TTL_MS) return hit.models;
  const models = readModels(speech);
  cache.set(key, { at: Date.now(), models });
  return models;
}
