/**
 * Meeting intelligence: from media or captions to sentences, analytics and summaries. Most of it is
 * pure logic over text (captions/, analytics/, summarize/'s extractive summarizer, text/), but not
 * all: media/ downloads recordings (through the SSRF guard of services/net) and runs ffmpeg and
 * ffprobe, asr/ sends audio to a speech-to-text server over HTTP, and summarize/'s LLM summarizer
 * calls a chat-completions server. No database access here; the activities in workflows/ persist what
 * these functions return.
 */
export type { Sentence, MediaInput } from './types';
export { parseCaptions, detectCaptionFormat, type ParsedCaptions, type CaptionFormat } from './captions';
export {
  analyze,
  type Analytics,
  type AnalyzeOptions,
  type MeetingAnalytics,
  type SpeakerAnalytics,
} from './analytics';
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
export { detectTextLanguage } from './text/language';
