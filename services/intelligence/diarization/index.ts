/**
 * Who speaks when in a one-channel recording (sherpa-onnx with pyannote segmentation-3.0 and 3D-Speaker
 * CAM++, models in models/diarization), and which speaker each sentence goes to.
 */
export {
  diarize,
  speakerEmbeddings,
  embeddingPieces,
  meanVoice,
  VOICE_PIECE_SECONDS,
  readWave,
  DIARIZATION_THRESHOLD,
  DIARIZATION_WINDOW_SHIFT,
  mendWindowEdges,
  DIARIZATION_SAMPLE_RATE,
  MAX_SPEAKERS,
  type Audio,
  type DiarizeOptions,
} from './engine';
export { diarizeInThread, withDiarizationSlot, type DiarizedAudio } from './thread';
export { assignSpeakers, type SpeakerTurn, type TimedSpan, type AssignOptions } from './assign';
export { linkSpeakers, SPEAKER_LINK_THRESHOLD, type KnownVoice, type LinkResult } from './link';
export {
  diarizationModels,
  SEGMENTATION_MODEL,
  EMBEDDING_MODEL,
  WINDOW_EMBEDDING_MODEL,
  type DiarizationModels,
} from './models';
