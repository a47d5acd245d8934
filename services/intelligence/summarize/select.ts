import type { Sentence } from '../types';
import { summarizeNotes } from './extractive';
import { summarizeWithLlmRun, type LlmSettings } from './llm';
import type { SummarizeOptions, Summary } from './types';

/** What one summary took: recorded with the meeting (summary_runs) and as metrics. */
export interface SummaryRun {
  source: 'extractive' | 'llm';
  /** The chat model asked (LLM_MODEL), even when its answer was not used; null for the built-in summarizer. */
  model: string | null;
  prompt_version: string | null;
  duration_ms: number;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  parts: number;
  /** How the answer was constrained: json_schema, or json_object where the server refused a schema. */
  response_format: string | null;
  /** Fields of an LLM summary that are the extractive one's. */
  fallback_fields: string[];
  dropped_lines: number;
  /** Why the chat model's notes were not used at all, when they were not. */
  error: string | null;
}

export interface Summarizer {
  readonly source: 'extractive' | 'llm';
  summarize(sentences: readonly Sentence[], options?: SummarizeOptions): Promise<Summary>;
  summarizeWithRun(
    sentences: readonly Sentence[],
    options?: SummarizeOptions,
  ): Promise<{ summary: Summary; run: SummaryRun }>;
}

export interface SummarizerConfig {
  llm: { url: string; apiKey: string; model: string; timeoutMs?: number; maxTokens?: number; partChars?: number };
}

/** The built-in summary, and its run; with `llmError` the chat model's failure it stands in for. */
export async function extractiveRun(
  sentences: readonly Sentence[],
  opts: SummarizeOptions,
  llm?: { model: string; error: string },
): Promise<{ summary: Summary; run: SummaryRun }> {
  const started = Date.now();
  const summary = await summarizeNotes(sentences, opts);
  if (llm) summary.notes.llm = `${llm.error}; this is the built-in extractive summary instead`;
  return {
    summary,
    run: {
      source: 'extractive',
      model: llm?.model ?? null,
      prompt_version: null,
      duration_ms: Date.now() - started,
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      parts: 0,
      response_format: null,
      fallback_fields: [],
      dropped_lines: 0,
      error: llm?.error ?? null,
    },
  };
}

/**
 * The chat model when LLM_URL is set, else the built-in extractive summarizer. With `fallback:
 * 'extractive'` (the default) a failing chat model still leaves the meeting with a summary: the
 * extractive one, with `notes.llm` saying what went wrong. With `fallback: 'throw'` the error reaches the
 * caller (a Temporal activity can then retry retryable ones).
 */
export function createSummarizer(
  config: SummarizerConfig,
  options: {
    fallback?: 'extractive' | 'throw';
    timeoutMs?: number;
    partChars?: number;
    fetchImpl?: typeof fetch;
  } = {},
): Summarizer {
  if (!config.llm.url) {
    return {
      source: 'extractive',
      summarize: (sentences, opts = {}) => summarizeNotes(sentences, opts),
      summarizeWithRun: (sentences, opts = {}) => extractiveRun(sentences, opts),
    };
  }
  const settings: LlmSettings = {
    ...config.llm,
    timeoutMs: options.timeoutMs ?? config.llm.timeoutMs,
    partChars: options.partChars ?? config.llm.partChars,
    fetchImpl: options.fetchImpl,
  };
  const summarizeWithRun = async (sentences: readonly Sentence[], opts: SummarizeOptions = {}) => {
    try {
      const { summary, run } = await summarizeWithLlmRun(sentences, opts, settings);
      return { summary, run: { ...run, source: 'llm' as const, error: null } };
    } catch (e) {
      if (options.fallback === 'throw') throw e;
      return extractiveRun(sentences, opts, { model: settings.model, error: (e as Error).message });
    }
  };
  return {
    source: 'llm',
    summarizeWithRun,
    summarize: async (sentences, opts) => (await summarizeWithRun(sentences, opts)).summary,
  };
}
