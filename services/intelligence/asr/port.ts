import type { MediaInput, Sentence } from '../types';

/** Speech (or captions) to sentences. One implementation per source; selectAsr picks one. */
export interface Asr {
  readonly name: 'captions' | 'openai-compatible';
  transcribe(media: MediaInput): Promise<Sentence[]>;
}

/** The part of the service configuration the ASR selector reads (Config satisfies it). */
export interface AsrConfig {
  asr: { url: string; apiKey: string; model: string };
}
