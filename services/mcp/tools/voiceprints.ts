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

const ADMINS = 'Team admins only (with the admin scope).';

const profileId = z.string().min(1, 'must not be empty').max(PROFILE_ID_MAX, `at most ${PROFILE_ID_MAX} characters`);

const setVoiceprintsTool = defineTool({
  name: 'svc_set_voiceprints',
  title: 'Turn voiceprints on or off for your team',
  description:
    "Turn the team's voiceprints (biometric data) on or off. While on, naming a speaker enrols their voice in a team profile and later " +
    'meetings name matching voices (meeting_info.inferred_speakers). Off DELETES every profile and kept voice at once. ' +
    ADMINS,
  input: {
    enabled: z.boolean(),
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
    "The team's speaker profiles (people named while voiceprints were on), by name; never an embedding. Any team member.",
  input: {
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(PROFILES_LIMIT.max, `at most ${PROFILES_LIMIT.max}`)
      .optional()
      .describe(`Default ${PROFILES_LIMIT.default}.`),
    offset: z
      .number()
      .int('must be a whole number')
      .min(0, 'at least 0')
      .max(1_000_000, 'at most 1000000')
      .optional()
      .describe('next_offset of the previous page.'),
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
    'Merge profile from into into (one person under two names): into takes its voices, meetings and email if it had none; ' +
    'from is deleted; transcripts keep their names. ' +
    ADMINS,
  input: {
    from: profileId.describe('Merged away.'),
    into: profileId.describe('Remains.'),
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
    "Forget a person's voice: delete the profile and every voice enrolled in or matched to it; transcripts keep their names. " +
    ADMINS,
  input: { id: profileId },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  output: forgetProfileOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => forgetSpeakerProfile(deps.db, principal, args.id),
});

export const voiceprintTools: ToolDef[] = [setVoiceprintsTool, listProfilesTool, mergeProfilesTool, forgetProfileTool];
