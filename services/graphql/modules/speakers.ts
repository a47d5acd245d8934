/**
 * Editing a transcript over GraphQL: naming a speaker and correcting a sentence, the same changes as
 * svc_rename_speaker and svc_correct_sentence (services/core/meetings/speakers.ts, corrections.ts), for
 * the meeting's organizer or an admin of its team.
 */
import { correctSentence, renameSpeaker, SENTENCE_TEXT_MAX } from '../../core/meetings';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('renameSpeaker');
OPERATION_ALLOWLIST.add('correctSentence');

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
    """
    Correct one sentence of a completed meeting's transcript (a misheard name, a number): index as
    transcript and moments give it, text what was said (1 to ${SENTENCE_TEXT_MAX} characters, one line).
    Search, moments, the changes feed and transcript.updated follow at once, search by meaning within
    seconds; the notes stay until summarized again. Its organizer or an admin of its team.
    """
    correctSentence(meetingId: ID!, index: Int!, text: String!): CorrectedSentence!
  }

  type CorrectedSentence {
    meetingId: ID!
    index: Int!
    text: String!
    previous_text: String!
    "false when the sentence said this already (nothing written, no event)."
    changed: Boolean!
    "Search by meaning: updating (vectors computed again), unchanged, or stale (could not start; the old vectors stay)."
    meaning: String!
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
    correctSentence: (_: unknown, a: { meetingId: string; index: number; text: string }, ctx: GraphqlContext) =>
      correctSentence(ctx.deps, ctx.principal, a),
  },
};

export const speakersModule: GraphqlModule = { typeDefs, resolvers };
