export { summarize, summarizeNotes } from './extractive';
export { extractActionItems } from './action-items';
export { classifyMeeting } from './meeting-type';
export { findDuePhrase, resolveDue } from './due-dates';
export { summarizeWithLlm, LLM_SUMMARY_SCHEMA, type LlmSettings } from './llm';
export { createSummarizer, type Summarizer } from './select';
export * from './types';
