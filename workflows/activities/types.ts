/**
 * What the transcription activities pass through workflow history: small references only. The
 * bytes (media, sentences, analytics, summary) stay in the worker's stage directory (stage.ts) and are
 * re-derived where a step runs on a worker that does not have them, so history stays a few KB per
 * meeting whatever the recording's size.
 */

export interface MeetingRef {
  meetingId: string;
}

/** The downloaded recording, described. */
export interface MediaRef {
  contentType: string;
  fileName: string;
  bytes: number;
  sha256: string;
  /** From the media's own metadata (audio/video) or the last caption cue; null when unknown. */
  durationSeconds: number | null;
  kind: 'captions' | 'audio' | 'video';
}

/** The sentences made from it, described: `digest` ties analytics and summary to these very sentences. */
export interface TranscriptRef {
  digest: string;
  sentences: number;
  speakers: number;
  durationSeconds: number;
}

export interface StepInput extends MeetingRef {
  media: MediaRef;
  transcript: TranscriptRef;
}

export interface AnalyzeResult {
  digest: string;
  speakers: number;
}

export interface SummarizeResult {
  digest: string;
  source: 'extractive' | 'llm';
  meetingType: string;
  actionItems: number;
}

export interface PersistOutcome {
  sentences: number;
  speakers: number;
  participants: number;
}

export interface FailInput extends MeetingRef {
  reason: string;
}

/** The activity interface the workflow proxies (implemented by createActivities in ./index.ts). */
export interface TranscriptionActivities {
  fetchMedia(input: MeetingRef): Promise<MediaRef>;
  transcribe(input: MeetingRef & { media: MediaRef }): Promise<TranscriptRef>;
  analyze(input: StepInput): Promise<AnalyzeResult>;
  summarize(input: StepInput): Promise<SummarizeResult>;
  persist(input: StepInput): Promise<PersistOutcome>;
  markFailed(input: FailInput): Promise<boolean>;
}
