/**
 * The transcription activities, bound to their dependencies. The worker registers the object this
 * returns; the workflow proxies the TranscriptionActivities interface (types only).
 */
import { analyzeActivity } from './analyze';
import type { ActivityDeps } from './context';
import { fetchMediaActivity } from './media';
import { markFailedActivity, persistActivity } from './persist';
import { summarizeActivity } from './summarize';
import { transcribeActivity } from './transcribe';
import type { TranscriptionActivities } from './types';

export type { ActivityDeps } from './context';
export type { TranscriptionActivities } from './types';

export function createActivities(deps: ActivityDeps): TranscriptionActivities {
  return {
    fetchMedia: fetchMediaActivity(deps),
    transcribe: transcribeActivity(deps),
    analyze: analyzeActivity(deps),
    summarize: summarizeActivity(deps),
    persist: persistActivity(deps),
    markFailed: markFailedActivity(deps),
  };
}
