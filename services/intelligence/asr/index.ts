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
export { planChunks, stitchChunks, toSentences, maxChunkSeconds, type AudioChunk, type ChunkTranscript, type ChunkLimits } from './chunks';
export { selectAsr, transcribe, isAudioOrVideo } from './select';
