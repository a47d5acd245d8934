export { summarize, summarizeNotes } from './extractive';
export { extractActionItems } from './action-items';
export { classifyMeeting } from './meeting-type';
export { findDuePhrase, resolveDue } from './due-dates';
export {
  summarizeWithLlm,
  summarizeWithLlmRun,
  LLM_DEFAULTS,
  LLM_SUMMARY_SCHEMA,
  PROMPT_VERSION,
  type LlmRun,
  type LlmSettings,
} from './llm';
export { createSummarizer, extractiveRun, type Summarizer, type SummaryRun } from './select';
export * from './types';
