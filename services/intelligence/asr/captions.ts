import { parseCaptions } from '../captions';
import type { Asr } from './port';

/** Caption files already say who spoke when: import them as they are, no speech recognition. */
export const captionsAsr: Asr = {
  name: 'captions',
  async transcribe(media) {
    return parseCaptions(media.bytes).sentences;
  },
};
