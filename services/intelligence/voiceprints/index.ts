/**
 * Voiceprints: matching a meeting's speakers to a team's speaker profiles by their voice embeddings,
 * and enrolling a voice in a profile. Off unless a team turns them on (core/voiceprints).
 */
export {
  VOICEPRINT_THRESHOLD,
  matchVoices,
  enrolVoice,
  mergeProfiles,
  cosineSimilarity,
  unitVector,
  type VoiceProfile,
  type MeetingVoice,
  type VoiceMatch,
} from './match';
