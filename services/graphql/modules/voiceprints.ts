/**
 * Voiceprints over GraphQL: the team's switch and its speaker profiles, the same rules as the MCP
 * tools (services/core/voiceprints). No field ever carries a voice embedding.
 */
import {
  forgetSpeakerProfile,
  getVoiceprints,
  listSpeakerProfiles,
  mergeSpeakerProfiles,
  setVoiceprints,
} from '../../core/voiceprints';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

const OPERATIONS = ['voiceprints', 'speakerProfiles', 'setVoiceprints', 'mergeSpeakerProfiles', 'forgetSpeakerProfile'];
for (const op of OPERATIONS) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Query {
    """
    Whether your team keeps voiceprints (off by default: a voiceprint is biometric data). Any member.
    """
    voiceprints: Voiceprints!
    """
    Your team's speaker profiles by name (never their voice embedding); limit 1 to 200 (default 50),
    offset from next_offset. Any member of the team.
    """
    speakerProfiles(limit: Int, offset: Int): SpeakerProfileList!
  }

  extend type Mutation {
    """
    Turn your team's voiceprints on or off. While on, diarized speakers' voices are kept, naming a
    speaker enrols the voice in the team profile of that name, and later meetings name matching
    speakers (meeting_info.inferred_speakers). Off deletes every profile and kept voice of the team.
    Team admins only.
    """
    setVoiceprints(enabled: Boolean!): VoiceprintChange!
    """
    Merge profile from into profile into (one person under two names): into keeps its name and takes
    every voice of from, which is deleted. Team admins only.
    """
    mergeSpeakerProfiles(from: ID!, into: ID!): MergedSpeakerProfiles!
    """
    Forget a profile: deletes it with its embedding and every meeting voice enrolled in or matched to
    it. Names already in transcripts stay. Team admins only.
    """
    forgetSpeakerProfile(id: ID!): ForgottenSpeakerProfile!
  }

  type Voiceprints {
    team_id: ID!
    enabled: Boolean!
    "ISO 8601 when an admin turned them on; null while off."
    enabled_at: String
    "The user id of the admin who turned them on; null while off."
    enabled_by: ID
  }

  type VoiceprintChange {
    team_id: ID!
    enabled: Boolean!
    enabled_at: String
    enabled_by: ID
    "Turning off: speaker profiles deleted."
    profiles_deleted: Int!
    "Turning off: meeting voices deleted."
    voices_deleted: Int!
  }

  type SpeakerProfile {
    id: ID!
    name: String!
    email: String
    "Voices enrolled: speakers a person gave this name."
    voices: Int!
    "Meetings with a speaker enrolled in or matched to this profile."
    meetings: Int!
    created_at: String!
    updated_at: String!
  }

  type SpeakerProfileList {
    voiceprints_enabled: Boolean!
    profiles: [SpeakerProfile!]!
    total: Int!
    next_offset: Int
  }

  type MergedAway {
    id: ID!
    name: String!
  }

  type MergedSpeakerProfiles {
    profile: SpeakerProfile!
    merged: MergedAway!
  }

  type ForgottenSpeakerProfile {
    id: ID!
    name: String!
    voices_deleted: Int!
  }
`;

const resolvers = {
  Query: {
    voiceprints: (_: unknown, __: unknown, ctx: GraphqlContext) => getVoiceprints(ctx.deps.db, ctx.principal),
    speakerProfiles: (_: unknown, a: { limit?: number | null; offset?: number | null }, ctx: GraphqlContext) =>
      listSpeakerProfiles(ctx.deps.db, ctx.principal, { limit: a.limit ?? undefined, offset: a.offset ?? undefined }),
  },
  Mutation: {
    setVoiceprints: (_: unknown, a: { enabled: boolean }, ctx: GraphqlContext) =>
      setVoiceprints(ctx.deps.db, ctx.principal, a.enabled),
    mergeSpeakerProfiles: (_: unknown, a: { from: string; into: string }, ctx: GraphqlContext) =>
      mergeSpeakerProfiles(ctx.deps.db, ctx.principal, a),
    forgetSpeakerProfile: (_: unknown, a: { id: string }, ctx: GraphqlContext) =>
      forgetSpeakerProfile(ctx.deps.db, ctx.principal, a.id),
  },
};

export const voiceprintsModule: GraphqlModule = { typeDefs, resolvers };
