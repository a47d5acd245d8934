/**
 * The read audit over GraphQL: who read which of the team's meetings, from which surface, when.
 * Team admins only (access.requireAdmin); newest first, paged by cursor (next_cursor).
 */
import { listReads } from '../../core/audit';
import { invalid } from '../../platform/errors';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('readAudit');

const typeDefs = /* GraphQL */ `
  extend type Query {
    """
    Reads of your team's meetings (transcript, summary, fetch, soundbite, search moments, page view),
    newest first. Team admins. Filters: userId, meetingId, since (inclusive) and until (exclusive) as
    ISO 8601 date-times. limit 1 to 500 (default 100); pass next_cursor as cursor for the next page.
    """
    readAudit(userId: ID, meetingId: ID, since: String, until: String, limit: Int, cursor: String): ReadAuditPage!
  }

  type ReadAuditEntry {
    id: ID!
    user_id: ID
    "The reader's email (null for an anonymous viewer of a public soundbite link, or a user since deleted)."
    user_email: String
    meeting_id: ID!
    "mcp:<tool>, graphql:<field> or page:<route>."
    surface: String!
    "ISO 8601."
    read_at: String!
  }

  type ReadAuditPage {
    reads: [ReadAuditEntry!]!
    has_more: Boolean!
    next_cursor: String
  }
`;

function date(field: string, v: string | null | undefined): Date | undefined {
  if (v === null || v === undefined) return undefined;
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime()))
    throw invalid(field, 'an ISO 8601 date-time', `${field} must be an ISO 8601 date-time, like 2026-11-21T09:00:00Z`);
  return d;
}

interface Args {
  userId?: string | null;
  meetingId?: string | null;
  since?: string | null;
  until?: string | null;
  limit?: number | null;
  cursor?: string | null;
}

const resolvers = {
  Query: {
    readAudit: (_: unknown, a: Args, ctx: GraphqlContext) =>
      listReads(ctx.deps.db, ctx.principal, {
        userId: a.userId ?? undefined,
        meetingId: a.meetingId ?? undefined,
        since: date('since', a.since),
        until: date('until', a.until),
        limit: a.limit ?? undefined,
        cursor: a.cursor ?? undefined,
      }),
  },
};

export const auditModule: GraphqlModule = { typeDefs, resolvers };
