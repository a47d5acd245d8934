/**
 * Live meetings over GraphQL, for recorders and meeting bots: start a live meeting, stream its
 * sentences while it runs, pause, resume and end it. Thin: each resolver calls one function of
 * services/core/live with the caller's principal; errors name fields as the caller wrote them
 * (`input.title`, `sentences[3].text`). Reads go through the usual `transcript(id)` (is_live, a
 * snapshot of the sentences so far) and svc_get_active_meetings.
 */
import {
  appendLiveSentences,
  endLiveMeeting,
  pauseLiveMeeting,
  resumeLiveMeeting,
  startLiveMeeting,
  StartLiveMeetingInput,
} from '../../core/live';
import { withFieldPrefix } from '../errors';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

const OPERATIONS = [
  'startLiveMeeting',
  'appendLiveSentences',
  'pauseLiveMeeting',
  'resumeLiveMeeting',
  'endLiveMeeting',
];
// graphql_operations_total labels these operations by name rather than "other".
for (const op of OPERATIONS) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Mutation {
    """
    Start a live meeting (state active) and get its id (= transcript id). The organizer must be a
    user of your team (default: you); only a team admin may start one for someone else.
    """
    startLiveMeeting(input: LiveMeetingInput!): ID!

    """
    Add sentences to a live meeting (active or paused), 1 to 500 per call, in the order spoken.
    Answers once they are stored: transcript(id) shows them at once. Sending a chunk_id again
    replaces that sentence instead of adding one, so a retried call is safe.
    """
    appendLiveSentences(meetingId: ID!, sentences: [LiveSentenceInput!]!): LiveAppendResult!

    "active → paused. Refused (invariant_violation) when already paused or ended."
    pauseLiveMeeting(meetingId: ID!): LiveMeetingState!

    "paused → active. Refused (invariant_violation) when active or ended."
    resumeLiveMeeting(meetingId: ID!): LiveMeetingState!

    """
    End the live meeting: it leaves the active meetings at once, then its transcript is processed like
    an upload (summary, analytics, automation rules, webhooks) and reads status completed.
    """
    endLiveMeeting(meetingId: ID!): LiveMeetingState!
  }

  input LiveMeetingInput {
    "1 to 256 characters."
    title: String!
    "http or https address of the call (at most 2048 characters)."
    meeting_link: String
    "A user of your team; default: you. Someone else's needs a team admin."
    organizer_email: String
    "ISO 8601 date-time with a time zone, like 2026-11-21T09:00:00Z."
    scheduled_start: String
    "ISO 8601 date-time, not before scheduled_start."
    scheduled_end: String
    "link, owner, participants, teammatesandparticipants (default) or teammates."
    privacy: String
    "At most 100 people; each needs an email. Their display names map speakers to emails."
    attendees: [AttendeeInput!]
  }

  input LiveSentenceInput {
    "Who said it, 1 to 256 characters."
    speaker_name: String!
    "What was said, 1 to 5000 characters (at most 200000 in one call)."
    text: String!
    "Seconds from the start of the meeting, 0 or more."
    start_time: Float!
    "Seconds from the start of the meeting, not before start_time."
    end_time: Float!
    "Your id for this sentence, 1 to 128 characters, unique within the meeting; sending it again replaces the sentence."
    chunk_id: String!
  }

  type LiveAppendResult {
    meetingId: ID!
    "active or paused."
    state: String!
    "Sentences with a chunk_id new to this meeting."
    appended: Int!
    "Sentences whose chunk_id was stored before (replaced, not duplicated)."
    replaced: Int!
    "Sentences of the meeting so far (indices 0 to sentence_count - 1)."
    sentence_count: Int!
  }

  type LiveMeetingState {
    meetingId: ID!
    "active, paused or ended."
    state: String!
    is_live: Boolean!
    sentence_count: Int!
  }
`;

const resolvers = {
  Mutation: {
    startLiveMeeting: (_: unknown, args: { input: StartLiveMeetingInput }, ctx: GraphqlContext) =>
      startLiveMeeting(ctx.deps, ctx.principal, args.input).catch(withFieldPrefix('input')),
    appendLiveSentences: (_: unknown, args: { meetingId: string; sentences: unknown }, ctx: GraphqlContext) =>
      appendLiveSentences(ctx.deps, ctx.principal, args.meetingId, args.sentences),
    pauseLiveMeeting: (_: unknown, args: { meetingId: string }, ctx: GraphqlContext) =>
      pauseLiveMeeting(ctx.deps, ctx.principal, args.meetingId),
    resumeLiveMeeting: (_: unknown, args: { meetingId: string }, ctx: GraphqlContext) =>
      resumeLiveMeeting(ctx.deps, ctx.principal, args.meetingId),
    endLiveMeeting: (_: unknown, args: { meetingId: string }, ctx: GraphqlContext) =>
      endLiveMeeting(ctx.deps, ctx.principal, args.meetingId),
  },
};

export const liveModule: GraphqlModule = { typeDefs, resolvers };
