export type { Asr, AsrConfig } from './port';
export { captionsAsr } from './captions';
export { createOpenAiCompatibleAsr, segmentsToSentences, UNDIARIZED_SPEAKER, type OpenAiAsrSettings } from './openai-compatible';
export { selectAsr, transcribe, isAudioOrVideo } from './select';
