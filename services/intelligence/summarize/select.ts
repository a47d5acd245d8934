import type { Sentence } from '../types';
import { summarizeNotes } from './extractive';
import { summarizeWithLlm, type LlmSettings } from './llm';
import type { SummarizeOptions, Summary } from './types';

export interface Summarizer {
  readonly source: 'extractive' | 'llm';
  summarize(sentences: readonly Sentence[], options?: SummarizeOptions): Promise<Summary>;
}

/**
 * The chat model when LLM_URL is set, else the built-in extractive summarizer. With `fallback:
 * 'extractive'` (the default) a failing chat model still leaves the meeting with a summary: the
 * extractive one, with `notes.llm` saying what went wrong. With `fallback: 'throw'` the error reaches the
 * caller (a Temporal activity can then retry retryable ones).
 */
export function createSummarizer(
  config: { llm: { url: string; apiKey: string; model: string } },
  options: {
    fallback?: 'extractive' | 'throw';
    timeoutMs?: number;
    maxTranscriptChars?: number;
    fetchImpl?: typeof fetch;
  } = {},
): Summarizer {
  if (!config.llm.url) {
    return { source: 'extractive', summarize: (sentences, opts) => summarizeNotes(sentences, opts) };
  }
  const settings: LlmSettings = {
    ...config.llm,
    timeoutMs: options.timeoutMs,
    maxTranscriptChars: options.maxTranscriptChars,
    fetchImpl: options.fetchImpl,
  };
  return {
    source: 'llm',
    async summarize(sentences, opts = {}) {
      try {
        return await summarizeWithLlm(sentences, opts, settings);
      } catch (e) {
        if (options.fallback === 'throw') throw e;
        const fallback = await summarizeNotes(sentences, opts);
        fallback.notes.llm = `${(e as Error).message}; this is the built-in extractive summary instead`;
        return fallback;
      }
    },
  };
}
