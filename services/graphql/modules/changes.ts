/**
 * Changes since a cursor over GraphQL (services/core/changes): the meetings of the caller's team it
 * can read that were created, changed or deleted after the cursor, oldest change first. The same
 * core function as svc_get_changes; how a mirror stays exact is in docs/changes.md.
 */
import { CHANGES_LIMIT_DEFAULT, CHANGES_LIMIT_MAX, ChangeRecord, getChanges } from '../../core/changes';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('changes');

const typeDefs = /* GraphQL */ `
  extend type Query {
    """
    Meetings of your team you can read that were created, changed or deleted after cursor, oldest
    change first. Without a cursor: first every meeting you can read (phase snapshot), then the
    changes since. Follow next_cursor while has_more is true; when it is false, keep next_cursor and
    call again later. A meeting deleted, expired by retention, or no longer visible to you comes back
    removed, with its id and reason only. limit 1 to ${CHANGES_LIMIT_MAX} (default ${CHANGES_LIMIT_DEFAULT}).
    A cursor is honoured for retention_days after it was handed out.
    """
    changes(cursor: String, limit: Int): ChangesPage!
  }

  type MeetingChange {
    meeting_id: ID!
    "What changed since the cursor: created, title, details, status, transcript, speakers, summary, action_items, sharing, channel, deleted."
    changed: [String!]!
    "ISO 8601: when the latest of these changes was written."
    changed_at: String!
    "true: drop the meeting from your copy (deleted, expired, or no longer visible to you); nothing else is given."
    removed: Boolean!
    "deleted, expired or not_visible when removed; null otherwise."
    reason: String
    title: String
    "ISO 8601: when the meeting took place."
    dateString: String
    status: String
    privacy: String
    channel_id: ID
    organizer_email: String
    "Minutes."
    duration: Float
    is_live: Boolean
  }

  type ChangesPage {
    changes: [MeetingChange!]!
    "snapshot (every meeting you can read, a first sync) or changes (after the cursor)."
    phase: String!
    "More can be read now; false: at the end, call again later with next_cursor."
    has_more: Boolean!
    next_cursor: String!
    "How long changes are kept, and a cursor honoured (CHANGES_RETENTION)."
    retention_days: Int!
  }
`;

const resolvers = {
  Query: {
    changes: (_: unknown, a: { cursor?: string | null; limit?: number | null }, ctx: GraphqlContext) =>
      getChanges(ctx.deps.db, ctx.deps.config, ctx.principal, { cursor: a.cursor, limit: a.limit ?? undefined }),
  },
  // The record is flat for TOON tables; GraphQL lists the kinds.
  MeetingChange: {
    changed: (c: ChangeRecord) => (c.changed ? c.changed.split(',') : []),
  },
};

export const changesModule: GraphqlModule = { typeDefs, resolvers };
