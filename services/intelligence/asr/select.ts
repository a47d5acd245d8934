import { ServiceError, invalid } from '../../platform/errors';
import { CAPTION_CONTENT_TYPES } from '../captions';
import type { MediaInput, Sentence } from '../types';
import { captionsAsr } from './captions';
import { createOpenAiCompatibleAsr } from './openai-compatible';
import type { Asr, AsrConfig } from './port';

function baseType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function isAudioOrVideo(contentType: string): boolean {
  const t = baseType(contentType);
  return t.startsWith('audio/') || t.startsWith('video/') || t === 'application/ogg';
}

/**
 * Caption files are imported directly; audio and video go to the configured speech-to-text server.
 * Without ASR_URL, audio is refused with a message that says what to configure.
 */
export function selectAsr(contentType: string, config: AsrConfig): Asr {
  const type = baseType(contentType);
  if (CAPTION_CONTENT_TYPES.has(type)) return captionsAsr;
  if (isAudioOrVideo(type)) {
    if (!config.asr.url) {
      throw new ServiceError(
        'invalid_arguments',
        `url: this is an ${type.split('/')[0]} file (${type}) and no speech-to-text server is configured; ` +
          'set ASR_URL to an OpenAI-compatible /v1/audio/transcriptions server (faster-whisper, whisper.cpp), ' +
          'or upload WebVTT or SRT captions instead',
        { field: 'url', rule: 'asr_not_configured' },
      );
    }
    return createOpenAiCompatibleAsr(config.asr);
  }
  throw invalid('url', 'unsupported_media_type', `url: cannot transcribe ${type || 'this file'}; send audio, video, WebVTT or SRT`);
}

export async function transcribe(media: MediaInput, config: AsrConfig): Promise<Sentence[]> {
  return selectAsr(media.contentType, config).transcribe(media);
}
