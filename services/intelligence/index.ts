/**
 * Meeting intelligence: pure logic from media or captions to sentences, analytics and summaries. No
 * database access here; the activities in workflows/ persist what these functions return.
 */
export type { Sentence, MediaInput } from './types';
export { parseCaptions, detectCaptionFormat, type ParsedCaptions, type CaptionFormat } from './captions';
export { analyze, type Analytics, type AnalyzeOptions, type MeetingAnalytics, type SpeakerAnalytics } from './analytics';
export {
  summarize,
  summarizeWithLlm,
  createSummarizer,
  type Summarizer,
  type Summary,
  type SummarizeOptions,
  type ActionItem,
  type OutlineSection,
  type MeetingType,
} from './summarize';
export { selectAsr, transcribe, captionsAsr, createOpenAiCompatibleAsr, type Asr, type AsrConfig } from './asr';
export { spokenSentences } from './text/spoken-sentences';
