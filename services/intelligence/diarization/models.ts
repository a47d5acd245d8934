/**
 * Where the diarization models are: models/diarization/ at the repository's (or the image's) root,
 * found by walking up from this file so the same code works from the sources (tsx, jest) and from the
 * compiled dist/ tree; MI_DIARIZATION_MODELS names another folder. The files are committed (see
 * docs/speakers.md), so nothing is downloaded.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const SEGMENTATION_MODEL = 'pyannote-segmentation-3.0.onnx';
export const EMBEDDING_MODEL = '3dspeaker-campplus-zh-en-common.onnx';
export const WINDOW_EMBEDDING_MODEL = '3dspeaker-campplus-zh-en-common.int8.onnx';

export interface DiarizationModels {
  segmentation: string;
  /** CAM++ in floats: the voice of each speaker of a recording, linked across chunks and kept. */
  embedding: string;
  /**
   * CAM++ quantised to 8-bit integers: the many short per-window embeddings the clustering joins,
   * where its speed matters more than its small loss of precision (docs/speakers.md).
   */
  windowEmbedding: string;
}

export function diarizationModels(dir = process.env.MI_DIARIZATION_MODELS): DiarizationModels {
  let root = dir;
  if (!root) {
    for (let d = __dirname; ; d = dirname(d)) {
      if (existsSync(join(d, 'models', 'diarization', SEGMENTATION_MODEL))) {
        root = join(d, 'models', 'diarization');
        break;
      }
      if (dirname(d) === d) break;
    }
  }
  if (!root)
    throw new Error(
      `diarization models: models/diarization/${SEGMENTATION_MODEL} not found above ${__dirname}; set MI_DIARIZATION_MODELS`,
    );
  const models = {
    segmentation: join(root, SEGMENTATION_MODEL),
    embedding: join(root, EMBEDDING_MODEL),
    windowEmbedding: join(root, WINDOW_EMBEDDING_MODEL),
  };
  for (const [field, path] of Object.entries(models)) {
    if (!existsSync(path)) throw new Error(`diarization models: ${field} model ${path} does not exist`);
  }
  return models;
}
