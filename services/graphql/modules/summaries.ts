/**
 * Asking for a meeting's notes again over GraphQL: the same request as svc_summarize_again
 * (services/core/summaries/request.ts), for the meeting's organizer or an admin of its team.
 */
import { requestResummary } from '../../core/summaries';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('resummarizeMeeting');

const typeDefs = /* GraphQL */ `
  extend type Mutation {
    """
    Write a completed meeting's notes (summary, topics, action items, outline) again, e.g. after
    naming its speakers or once a chat model is configured (LLM_URL). Runs in the background: the
    meeting keeps its notes until the new ones are stored, then meeting.summarized is sent to the
    webhooks subscribed to it. Action items a person changed keep their changes. Asking while a
    re-summary of the meeting runs joins it (status running). Its organizer or an admin of its team;
    a meeting that is not completed is refused (invariant_violation).
    """
    resummarizeMeeting(meetingId: ID!): ResummaryRequest!
  }

  type ResummaryRequest {
    meetingId: ID!
    "queued: a re-summary started; running: one was running already."
    status: String!
    "llm (the chat model at LLM_URL) or extractive (the built-in summarizer)."
    summarizer: String!
    message: String!
  }
`;

const resolvers = {
  Mutation: {
    resummarizeMeeting: (_: unknown, a: { meetingId: string }, ctx: GraphqlContext) =>
      requestResummary(ctx.deps, ctx.principal, a),
  },
};

export const summariesModule: GraphqlModule = { typeDefs, resolvers };
