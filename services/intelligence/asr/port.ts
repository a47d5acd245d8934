import type { MediaInput, Sentence } from '../types';

/** Speech (or captions) to sentences. One implementation per source; selectAsr picks one. */
export interface Asr {
  readonly name: 'captions' | 'openai-compatible' | 'embedded';
  transcribe(media: MediaInput): Promise<Sentence[]>;
}

/** The part of the service configuration the ASR selector reads (Config satisfies it). */
export interface AsrConfig {
  asr: {
    /** ASR_ENGINE: embedded unless set otherwise or ASR_URL is given. */
    engine?: 'embedded' | 'openai-compatible';
    speech?: { modelsDir: string; model: string; models?: string[]; recognizers: number };
    url: string;
    apiKey: string;
    model: string;
  };
}
