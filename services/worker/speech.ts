import { asrEngine, engineFor } from '../intelligence/asr';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';

/**
 * The embedded engine, loaded before the worker polls (its files checked against their model.json):
 * a worker that would fail every recording stops at start instead, its message naming the file and
 * `make models`. Says which engine and model will transcribe.
 */
export async function loadSpeechEngine(config: Config): Promise<void> {
  if (asrEngine(config) !== 'embedded') {
    logger.info(
      { engine: 'openai-compatible', url: config.asr.url, model: config.asr.model },
      'speech recognition by the server at ASR_URL',
    );
    return;
  }
  const engine = await engineFor(config);
  logger.info(
    { ...engine.describe(), recognizers: engine.recognizers, dir: engine.model.dir },
    'speech recognition by the embedded engine',
  );
}
