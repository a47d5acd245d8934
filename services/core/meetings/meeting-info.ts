/**
 * What a reader is told of a meeting's state (meeting_info): whether its summary exists, is pending
 * (a live meeting), processing, failed or unavailable, with a message saying why, where processing
 * is, and how the recording was transcribed (engine, model, language) and which speakers voiceprints
 * named.
 */
import type { MeetingRow } from './records';

/** processed: a summary exists · pending: live, summarized when it ends · processing · failed · unavailable: ready but no summary. */
export type SummaryStatus = 'processed' | 'pending' | 'processing' | 'failed' | 'unavailable';

/** Where a recording in processing is, as the transcription activities last wrote it (core/ingest setProgress). */
export interface ProcessingProgress {
  /** downloading, downloaded, transcribing or analysing. */
  stage: string;
  /** 0 to 100, whole. */
  percent: number;
  /** While transcribing a chunked recording: chunks answered so far, of chunks_total. */
  chunks_done?: number;
  chunks_total?: number;
}

export interface MeetingInfo {
  summary_status: SummaryStatus;
  message: string;
  /** Only while processing, once the worker has reported a stage. */
  progress?: ProcessingProgress;
  /** A recording transcribed: the speech engine and model (kept from processing). */
  transcribed_by?: TranscribedBy;
  /** Speakers named by voiceprints rather than by a person, with the cosine similarity that named them. */
  inferred_speakers?: InferredSpeakerInfo[];
}

export interface InferredSpeakerInfo {
  speaker: string;
  /** 0 to 1, two decimals: how alike the speaker's voice and the profile's are. */
  confidence: number;
}

export interface TranscribedBy {
  engine: string;
  model: string;
  /** The language the speech was decoded in (ISO 639-1), when known. */
  language?: string;
  /** How it was known: given with the upload, detected from the first speech, or the model's only one. */
  language_source?: 'given' | 'detected' | 'default';
}

/** Where processing is (meetings.progress, written by the transcription activities). */
export interface Progress {
  stage?: string;
  percent?: number;
  chunks_done?: number;
  chunks_total?: number;
  note?: string;
  transcribed_by?: TranscribedBy;
  inferred_speakers?: InferredSpeakerInfo[];
}

const STAGE_WORDS: Record<string, string> = {
  downloading: 'downloading the recording',
  downloaded: 'recording downloaded',
  transcribing: 'transcribing',
  analysing: 'analysing the transcript',
};

function processingProgress(p: Progress | null | undefined): ProcessingProgress | undefined {
  if (!p?.stage) return undefined;
  const progress: ProcessingProgress = { stage: p.stage, percent: Math.round(p.percent ?? 0) };
  if (p.chunks_total) Object.assign(progress, { chunks_done: p.chunks_done ?? 0, chunks_total: p.chunks_total });
  return progress;
}

function progressText(p: ProcessingProgress | undefined): string {
  if (!p) return '';
  const chunks = p.chunks_total ? `, ${p.chunks_done} of ${p.chunks_total} chunks transcribed` : '';
  return ` Progress: ${STAGE_WORDS[p.stage] ?? p.stage}, ${p.percent}%${chunks}.`;
}

export function meetingInfo(m: MeetingRow & { progress?: Progress | null }, hasSummary: boolean): MeetingInfo {
  if (m.is_live || m.status === 'live') {
    return {
      summary_status: 'pending',
      message:
        'live meeting: a point-in-time snapshot of the sentences captured so far; read again for newer ones. The summary is produced when the meeting ends.',
    };
  }
  switch (m.status) {
    case 'processing': {
      const progress = processingProgress(m.progress);
      return {
        summary_status: 'processing',
        message: `the recording is still being processed; the transcript and summary become readable when processing completes.${progressText(progress)}`,
        ...(progress ? { progress } : {}),
      };
    }
    case 'failed':
      return {
        summary_status: 'failed',
        message: `processing failed: ${m.failure_reason ?? 'no reason was recorded'}. No transcript is available.`,
      };
    default: {
      // A note about the transcript made while processing (speaker labels numbered per chunk).
      const note = m.progress?.note ? ` Note: ${m.progress.note}.` : '';
      const by = {
        ...(m.progress?.transcribed_by ? { transcribed_by: m.progress.transcribed_by } : {}),
        ...(m.progress?.inferred_speakers?.length ? { inferred_speakers: m.progress.inferred_speakers } : {}),
      };
      return hasSummary
        ? { summary_status: 'processed', message: `transcript and summary are ready.${note}`, ...by }
        : {
            summary_status: 'unavailable',
            message: `the transcript is ready; no summary was produced for this meeting.${note}`,
            ...by,
          };
    }
  }
}
