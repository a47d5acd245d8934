export type { Asr, AsrConfig } from './port';
export { captionsAsr } from './captions';
export {
  createOpenAiCompatibleAsr,
  requestTranscription,
  segmentsToSentences,
  speakerName,
  UNDIARIZED_SPEAKER,
  ASR_RESPONSE_FORMATS,
  type AsrResponseFormat,
  type AsrSegment,
  type OpenAiAsrSettings,
} from './openai-compatible';
export {
  planChunks,
  stitchChunks,
  toSentences,
  maxChunkSeconds,
  type AudioChunk,
  type ChunkTranscript,
  type ChunkLimits,
} from './chunks';
export { selectAsr, transcribe, isAudioOrVideo, asrEngine, checkSpeechLanguage, speechModelsFor } from './select';
export { embeddedEngine, cutSpeech, DETECT_SECONDS, type EmbeddedEngine, type EmbeddedSettings } from './embedded';
export {
  modelEntries,
  modelFor,
  detectorOf,
  readModels,
  speechCatalogue,
  servedLanguages,
  unservedLanguage,
  type RoutedModel,
  type SpeechSettings,
} from './routing';
export { collapseRepeats } from './repeats';
export { createEmbeddedAsr, engineFor, speechModelFor } from './embedded-media';
export {
  loadSpeechModel,
  readSpeechManifest,
  loadVadModel,
  servesLanguage,
  ModelFileError,
  FETCH_COMMAND,
  type SpeechModel,
} from './models';
export { moonshineTokens } from './tokens';
