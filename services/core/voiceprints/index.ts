/**
 * Voiceprints: a team's switch, its speaker profiles, and the voices of its meetings' speakers (kept
 * only while the switch is on). Matching itself is pure (services/intelligence/voiceprints).
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// The team's switch: read by any member, set by an admin; off deletes every profile and voice.
export { getVoiceprints, setVoiceprints, type VoiceprintChange, type VoiceprintSetting } from './settings';

// Speaker profiles: listed by members, merged and forgotten by admins.
export {
  forgetSpeakerProfile,
  listSpeakerProfiles,
  mergeSpeakerProfiles,
  PROFILE_ID_MAX,
  PROFILES_LIMIT,
  type ForgottenProfile,
  type MergedProfiles,
  type SpeakerProfile,
  type SpeakerProfileList,
} from './profiles';

// Meeting voices: recognised when a transcript is stitched (once per run; a re-stitch re-applies the
// stored names), enrolled when a person names a speaker.
export {
  enrolSpeaker,
  profileEmails,
  recogniseMeetingVoices,
  storedRecognition,
  type Enrolment,
  type InferredSpeaker,
} from './voices';
