/**
 * The embedded engine behind the ASR port for a whole recording at once (runs started before
 * chunking; chunked runs read the staged audio themselves): the recording through ffmpeg to 16 kHz
 * mono, then the engine. Temporary files are removed whatever happens.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractAudio } from '../media/ffmpeg';
import { readPcm } from '../media/pcm';
import { embeddedEngine, type EmbeddedEngine } from './embedded';
import { loadSpeechModel, type SpeechModel } from './models';
import { segmentsToSentences } from './openai-compatible';
import type { Asr, AsrConfig } from './port';

const DEFAULT_SPEECH = { modelsDir: '.models', model: 'moonshine-tiny-en', recognizers: 0 };

/** The process's embedded engine for this configuration (loaded once). */
export const engineFor = (config: AsrConfig): Promise<EmbeddedEngine> =>
  embeddedEngine(config.asr.speech ?? DEFAULT_SPEECH);

const models = new Map<string, Promise<SpeechModel>>();

/** The speech model's manifest alone (its languages, its name), checked once, without loading it. */
export function speechModelFor(config: AsrConfig): Promise<SpeechModel> {
  const { modelsDir, model } = config.asr.speech ?? DEFAULT_SPEECH;
  const key = `${modelsDir}\0${model}`;
  let found = models.get(key);
  if (!found) {
    found = loadSpeechModel(modelsDir, model);
    models.set(key, found);
    found.catch(() => models.delete(key));
  }
  return found;
}

export function createEmbeddedAsr(config: AsrConfig): Asr {
  return {
    name: 'embedded',
    async transcribe(media) {
      const engine = await engineFor(config);
      const dir = await mkdtemp(join(tmpdir(), 'mi-asr-'));
      try {
        await writeFile(join(dir, 'in'), media.bytes);
        await extractAudio(join(dir, 'in'), join(dir, 'audio.wav'));
        const samples = await readPcm(join(dir, 'audio.wav'), 0, Number.MAX_SAFE_INTEGER / 32_000);
        return segmentsToSentences({ segments: await engine.transcribe(samples) });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
