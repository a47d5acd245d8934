/**
 * A meeting's transcript arriving: what the transcription and live activities store.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// A finished transcript stored: the meeting to ingest, its sentences and analytics, minutes charged, failure.
export {
  chargeMinutes,
  keepDetectedLanguage,
  loadIngestMeeting,
  markMeetingFailed,
  persistTranscript,
  speakerEmails,
} from './ingest';

// Intermediate chunks of a long transcription, kept between activity attempts, and its progress.
export {
  countChunks,
  loadChunk,
  loadChunks,
  saveChunk,
  setProgress,
  type ChunkVoices,
  type StoredChunk,
} from './chunks';
