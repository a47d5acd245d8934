/** Voiceprints: the team's switch and its speaker profiles (services/core/voiceprints). */
import { z } from 'zod';
import {
  forgetSpeakerProfile,
  listSpeakerProfiles,
  mergeSpeakerProfiles,
  PROFILE_ID_MAX,
  PROFILES_LIMIT,
  setVoiceprints,
} from '../../core/voiceprints';
import { forgetProfileOutput, mergeProfilesOutput, speakerProfilesOutput, voiceprintsOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const PRIVACY =
  'A voiceprint is biometric data: voiceprints are off unless a team admin turns them on, no answer, page, webhook or log ever shows an embedding, ' +
  'and turning them off deletes every profile and kept voice of the team.';

const profileId = z.string().min(1, 'must not be empty').max(PROFILE_ID_MAX, `at most ${PROFILE_ID_MAX} characters`);

const setVoiceprintsTool = defineTool({
  name: 'svc_set_voiceprints',
  title: 'Turn voiceprints on or off for your team',
  description:
    "Turn the team's voiceprints on (enabled: true) or off (false). While on, each diarized recording's speakers keep their voice embedding, naming a " +
    'speaker (svc_rename_speaker) enrols the voice in the team profile of that name, and later meetings name the speakers whose voice matches a profile ' +
    '(meeting_info.inferred_speakers says which and how sure). Turning off DELETES every speaker profile and every kept meeting voice of the team at once ' +
    `(profiles_deleted, voices_deleted). ${PRIVACY} Returns enabled, enabled_at, enabled_by. Team admins only (with the admin scope); others get require_elevated_privilege.`,
  input: {
    enabled: z.boolean().describe('true: keep and match voiceprints; false: stop and delete every profile and voice.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: voiceprintsOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => setVoiceprints(deps.db, principal, args.enabled),
});

const listProfilesTool = defineTool({
  name: 'svc_list_speaker_profiles',
  title: "List your team's speaker profiles",
  description:
    "The team's speaker profiles (people named in meetings while voiceprints were on), by name: id, name, email, voices (speakers enrolled), " +
    'meetings (meetings with a speaker enrolled in or matched to it), created_at, updated_at, and whether voiceprints are on. Never the voice embedding. ' +
    `${PRIVACY} Use an id with svc_merge_speaker_profiles or svc_forget_speaker_profile. Any member of the team; only your own team's profiles.`,
  input: {
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(PROFILES_LIMIT.max, `at most ${PROFILES_LIMIT.max}`)
      .optional()
      .describe(`Profiles per page, 1 to ${PROFILES_LIMIT.max} (default ${PROFILES_LIMIT.default}).`),
    offset: z
      .number()
      .int('must be a whole number')
      .min(0, 'at least 0')
      .max(1_000_000, 'at most 1000000')
      .optional()
      .describe('Where the page starts: next_offset of the previous page (default 0).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: speakerProfilesOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => listSpeakerProfiles(deps.db, principal, args),
});

const mergeProfilesTool = defineTool({
  name: 'svc_merge_speaker_profiles',
  title: 'Merge two speaker profiles of one person',
  description:
    'Merge the speaker profile `from` into `into` (the same person enrolled under two names): `into` keeps its name, takes every voice and meeting of `from` ' +
    '(and its email if it had none), and `from` is deleted. Names already in transcripts do not change. Returns the merged profile and the id and name merged away. ' +
    `${PRIVACY} Team admins only (with the admin scope); a profile of another team is not_found.`,
  input: {
    from: profileId.describe('The profile to merge away (an id from svc_list_speaker_profiles).'),
    into: profileId.describe('The profile that remains.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  output: mergeProfilesOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => mergeSpeakerProfiles(deps.db, principal, args),
});

const forgetProfileTool = defineTool({
  name: 'svc_forget_speaker_profile',
  title: 'Forget a speaker profile',
  description:
    "Forget one person's voice: deletes the speaker profile with its embedding and every meeting voice enrolled in or matched to it (voices_deleted), so " +
    'later meetings no longer name them until someone names them again. Names already in transcripts stay. ' +
    `${PRIVACY} Team admins only (with the admin scope); a profile of another team is not_found.`,
  input: { id: profileId.describe('The profile id (svc_list_speaker_profiles).') },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  output: forgetProfileOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => forgetSpeakerProfile(deps.db, principal, args.id),
});

export const voiceprintTools: ToolDef[] = [setVoiceprintsTool, listProfilesTool, mergeProfilesTool, forgetProfileTool];
