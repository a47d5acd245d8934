/**
 * The transcription activities, bound to their dependencies. The worker registers the object this
 * returns; the workflow proxies the TranscriptionActivities interface (types only).
 */
import { analyzeActivity } from './analyze';
import type { ActivityDeps } from './context';
import { fetchMediaActivity } from './media';
import { prepareAudioActivity, stitchTranscriptActivity, transcribeChunkActivity } from './chunks';
import { markFailedActivity, persistActivity } from './persist';
import { summarizeActivity } from './summarize';
import { transcribeActivity } from './transcribe';
import type { TranscriptionActivities } from './types';
import { createRuleActivities, type RuleActivities } from './rules';
import { createWebhookActivities, type WebhookActivities } from './webhooks';
import { createLiveActivities, type LiveActivities } from './live';
import { createRetentionActivities, type RetentionActivities } from './retention';
import { createEmbeddingActivities, type EmbeddingActivities } from './embeddings';
import { createResummaryActivities, type ResummaryActivities } from './resummary';
import { createLanguageActivities, type LanguageActivities } from './languages';

export type { ActivityDeps } from './context';
export type { TranscriptionActivities } from './types';
export type { RuleActivities } from './rules';
export type { WebhookActivities } from './webhooks';
export type { LiveActivities } from './live';
export type { RetentionActivities } from './retention';
export type { EmbeddingActivities } from './embeddings';
export type { ResummaryActivities } from './resummary';
export type { LanguageActivities } from './languages';

export function createActivities(
  deps: ActivityDeps,
): TranscriptionActivities &
  RuleActivities &
  LiveActivities &
  WebhookActivities &
  RetentionActivities &
  EmbeddingActivities &
  ResummaryActivities &
  LanguageActivities {
  return {
    fetchMedia: fetchMediaActivity(deps),
    transcribe: transcribeActivity(deps),
    prepareAudio: prepareAudioActivity(deps),
    transcribeChunk: transcribeChunkActivity(deps),
    stitchTranscript: stitchTranscriptActivity(deps),
    analyze: analyzeActivity(deps),
    summarize: summarizeActivity(deps),
    persist: persistActivity(deps),
    markFailed: markFailedActivity(deps),
    ...createRuleActivities(deps),
    ...createWebhookActivities(deps),
    ...createLiveActivities(deps),
    ...createRetentionActivities(deps),
    ...createEmbeddingActivities(deps),
    ...createResummaryActivities(deps),
    ...createLanguageActivities(deps),
  };
}
