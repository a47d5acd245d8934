/**
 * Naming a meeting speaker over GraphQL: the same change as svc_rename_speaker
 * (services/core/meetings/speakers.ts), for the meeting's organizer or an admin of its team.
 */
import { renameSpeaker } from '../../core/meetings';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('renameSpeaker');

const typeDefs = /* GraphQL */ `
  extend type Mutation {
    """
    Name a speaker of one meeting, e.g. from "Speaker 2" to "Priya Shah" (1 to 256 characters on one
    line), with their email where known: the transcript, search moments, analytics, the meeting page,
    the summary and action items' owners (unless a person set the owner) all take the new name. from is
    the name as the transcript has it. A name another speaker of the meeting already has is refused
    (speakers are not merged); a live meeting keeps its source's names (invariant_violation until it
    ends). Its organizer or an admin of its team.
    """
    renameSpeaker(meetingId: ID!, from: String!, to: String!, email: String): RenamedSpeaker!
  }

  type RenamedSpeaker {
    meetingId: ID!
    speaker: String!
    previous_speaker: String!
    "The email now on the speaker's analytics; null when none is known."
    email: String
    "Sentences now said by speaker."
    sentences: Int!
    "Action items whose owner became speaker."
    action_items_owned: Int!
  }
`;

const resolvers = {
  Mutation: {
    renameSpeaker: (
      _: unknown,
      a: { meetingId: string; from: string; to: string; email?: string | null },
      ctx: GraphqlContext,
    ) => renameSpeaker(ctx.deps.db, ctx.principal, a),
  },
};

export const speakersModule: GraphqlModule = { typeDefs, resolvers };
