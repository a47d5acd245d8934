import { ServiceError, invalid } from '../../platform/errors';
import { CAPTION_CONTENT_TYPES } from '../captions';
import type { MediaInput, Sentence } from '../types';
import { captionsAsr } from './captions';
import { createEmbeddedAsr } from './embedded-media';
import { createOpenAiCompatibleAsr } from './openai-compatible';
import { ModelFileError } from './models';
import type { Asr, AsrConfig } from './port';
import { modelFor, speechCatalogue, unservedLanguage, type RoutedModel } from './routing';

const DEFAULT_SPEECH = { modelsDir: '.models', model: 'moonshine-tiny-en' };

/** The embedded engine's configured models from their model.json files (nothing loaded), the default first. */
export const speechModelsFor = (config: AsrConfig): RoutedModel[] =>
  speechCatalogue(config.asr.speech ?? DEFAULT_SPEECH);

function baseType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function isAudioOrVideo(contentType: string): boolean {
  const t = baseType(contentType);
  return t.startsWith('audio/') || t.startsWith('video/') || t === 'application/ogg';
}

/** The engine that transcribes audio: ASR_ENGINE, else embedded unless ASR_URL is set. */
export const asrEngine = (config: AsrConfig) =>
  config.asr.engine ?? (config.asr.url ? 'openai-compatible' : 'embedded');

/**
 * Caption files are imported directly; audio and video go to the embedded engine (the default) or
 * the configured speech-to-text server (ASR_ENGINE=openai-compatible, which needs ASR_URL).
 */
export function selectAsr(contentType: string, config: AsrConfig): Asr {
  const type = baseType(contentType);
  if (CAPTION_CONTENT_TYPES.has(type)) return captionsAsr;
  if (isAudioOrVideo(type)) {
    if (asrEngine(config) === 'embedded') return createEmbeddedAsr(config);
    if (!config.asr.url) {
      throw new ServiceError(
        'invalid_arguments',
        `url: this is an ${type.split('/')[0]} file (${type}) and ASR_ENGINE=openai-compatible has no server; ` +
          'set ASR_URL to an OpenAI-compatible /v1/audio/transcriptions server (faster-whisper, whisper.cpp), ' +
          'unset ASR_ENGINE for the embedded engine, or upload WebVTT or SRT captions instead',
        { field: 'url', rule: 'asr_not_configured' },
      );
    }
    return createOpenAiCompatibleAsr(config.asr);
  }
  throw invalid(
    'url',
    'unsupported_media_type',
    `url: cannot transcribe ${type || 'this file'}; send audio, video, WebVTT or SRT`,
  );
}

/**
 * Refuse at once a language no configured speech model transcribes (the embedded engine only: a
 * server at ASR_URL is asked whatever the language). A role whose SPEECH_MODELS_DIR lacks the models'
 * model.json files (an API pod without the models volume) cannot tell and lets the upload through;
 * the worker refuses it before any audio work.
 */
export function checkSpeechLanguage(config: AsrConfig, language: string | null, field = 'language'): void {
  if (!language || asrEngine(config) !== 'embedded') return;
  let models: RoutedModel[];
  try {
    models = speechModelsFor(config);
  } catch (e) {
    if (e instanceof ModelFileError) return;
    throw e;
  }
  if (!modelFor(models, language)) throw unservedLanguage(field, language, models);
}

export async function transcribe(media: MediaInput, config: AsrConfig): Promise<Sentence[]> {
  return selectAsr(media.contentType, config).transcribe(media);
}
