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
  /** Channels of the first audio stream (ffprobe); absent for captions and runs before ffmpeg. */
  audioChannels?: number;
}

/** One chunk of one channel's audio, as planned (services/intelligence/asr/chunks.ts). */
export interface PlannedChunk {
  index: number;
  start: number;
  end: number;
  ownStart: number;
  ownEnd: number;
}

/** How a recording is transcribed in chunks: small enough for history (a few dozen numbers an hour). */
export interface AudioPlan {
  /** Digest of the plan: the key of its chunk rows (transcript_chunks). */
  plan: string;
  durationSeconds: number;
  /** Channels transcribed: [-1] for all mixed down, else one entry per channel (0-based). */
  channels: number[];
  /** Speaker label of each channel transcribed on its own. */
  channelLabels: string[];
  chunks: PlannedChunk[][];
  /** ASR_CHUNK_CONCURRENCY of the worker that planned. */
  concurrency: number;
  /** TEMPORAL_SPEECH_TASK_QUEUE of the worker that planned; absent in plans made before it existed. */
  speechQueue?: string;
  /**
   * diarized_json over several chunks: the first chunk is transcribed alone, and every later one is
   * sent short clips of the speakers the first found (known_speaker_references), so labels hold across chunks.
   */
  referenceFirst?: boolean;
}

export interface ChunkInput extends MeetingRef {
  media: MediaRef;
  plan: string;
  channel: number;
  chunk: PlannedChunk;
  total: number;
}

export interface ChunkResult {
  segments: number;
  /** True when the chunk's segments were already stored (not sent again). */
  reused: boolean;
}

/** The sentences made from it, described: `digest` ties analytics and summary to these very sentences. */
export interface TranscriptRef {
  digest: string;
  sentences: number;
  speakers: number;
  durationSeconds: number;
  /** A chunked run's plan: its chunks (transcript_chunks) are stitched again where the stage lacks the sentences. */
  plan?: AudioPlan;
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
  prepareAudio(input: MeetingRef & { media: MediaRef }): Promise<AudioPlan>;
  transcribeChunk(input: ChunkInput): Promise<ChunkResult>;
  stitchTranscript(input: MeetingRef & { media: MediaRef; plan: AudioPlan }): Promise<TranscriptRef>;
  analyze(input: StepInput): Promise<AnalyzeResult>;
  summarize(input: StepInput): Promise<SummarizeResult>;
  persist(input: StepInput): Promise<PersistOutcome>;
  markFailed(input: FailInput): Promise<boolean>;
}
