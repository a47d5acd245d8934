/**
 * Access governance over GraphQL: delete a meeting (its organizer or an admin of its team), set and
 * lift a legal hold, read and set the team's retention period (team admins). Thin: each resolver calls
 * one core function with the caller's principal; core holds the rules (access/rules.ts) and writes audit_log.
 */
import { deleteMeeting, liftLegalHold, setLegalHold } from '../../core/meetings';
import { getTeamRetention, setTeamRetention } from '../../core/retention';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

const OPERATIONS = ['deleteMeeting', 'setLegalHold', 'liftLegalHold', 'teamRetention', 'setTeamRetention'];
for (const op of OPERATIONS) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Query {
    "Your team's retention period: meetings older than retention_days are deleted by the daily retention run (null: kept for ever)."
    teamRetention: TeamRetention!
  }

  extend type Mutation {
    """
    Delete a meeting and everything of it (transcript, summary, analytics, soundbites, shares, search
    data, webhook deliveries) at once; no webhook is sent for it afterwards. Its organizer or an admin
    of its team; refused (invariant_violation) while the meeting is on legal hold.
    """
    deleteMeeting(id: ID!): DeletedMeeting!

    "Keep a meeting from every deletion (its owner's, an admin's, retention) until the hold is lifted. Team admins."
    setLegalHold(meetingId: ID!): LegalHold!

    "Lift a meeting's legal hold. Team admins."
    liftLegalHold(meetingId: ID!): LegalHold!

    "Set your team's retention period in days (1 to 36500), or null to keep meetings for ever. Team admins."
    setTeamRetention(days: Int): TeamRetention!
  }

  type DeletedMeeting {
    id: ID!
    deleted: Boolean!
  }

  type LegalHold {
    id: ID!
    "ISO 8601 when the hold was set; null when the meeting is not on hold."
    legal_hold_at: String
    "The admin who set it."
    legal_hold_by: ID
  }

  type TeamRetention {
    team_id: ID!
    "Days a meeting is kept (by its date); null: for ever."
    retention_days: Int
  }
`;

const resolvers = {
  Query: {
    teamRetention: (_: unknown, __: unknown, ctx: GraphqlContext) => getTeamRetention(ctx.deps.db, ctx.principal),
  },
  Mutation: {
    deleteMeeting: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      deleteMeeting(ctx.deps.db, ctx.principal, args.id),
    setLegalHold: (_: unknown, args: { meetingId: string }, ctx: GraphqlContext) =>
      setLegalHold(ctx.deps.db, ctx.principal, args.meetingId),
    liftLegalHold: (_: unknown, args: { meetingId: string }, ctx: GraphqlContext) =>
      liftLegalHold(ctx.deps.db, ctx.principal, args.meetingId),
    setTeamRetention: (_: unknown, args: { days?: number | null }, ctx: GraphqlContext) =>
      setTeamRetention(ctx.deps.db, ctx.principal, args.days ?? null),
  },
};

export const governanceModule: GraphqlModule = { typeDefs, resolvers };
