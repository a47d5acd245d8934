/**
 * Action items over GraphQL: the same list and change as svc_get_action_items and
 * svc_update_action_item (services/core/action-items), each item with the moment it was said.
 */
import { listActionItems, updateActionItem } from '../../core/action-items';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import { readerOf, type GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

for (const op of ['actionItems', 'updateActionItem']) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Query {
    """
    Action items of the meetings you can read, newest meeting first, in the order said. mine: owned by
    you. status open or done. owner: an email or a name. dueBefore/dueAfter, fromDate/toDate:
    YYYY-MM-DD, inclusive. limit 1 to 100 (default 20); pass next_cursor as cursor for the next page.
    """
    actionItems(
      mine: Boolean
      status: String
      owner: String
      dueBefore: String
      dueAfter: String
      meetingId: ID
      channelId: ID
      fromDate: String
      toDate: String
      limit: Int
      cursor: String
    ): ActionItemPage!
  }

  extend type Mutation {
    """
    Change an action item: status open or done, owner (an email; null removes it) and ownerName,
    dueDate (YYYY-MM-DD; null clears it). Whoever may write to its meeting: its organizer, its
    participants, members of its channel, a team admin. A later summary keeps what is set here.
    """
    updateActionItem(id: ID!, status: String, owner: String, ownerName: String, dueDate: String): ActionItem!
  }

  type ActionItem {
    id: ID!
    meeting_id: ID!
    meeting_title: String!
    "ISO 8601."
    meeting_date: String!
    text: String!
    owner_name: String
    owner_email: String
    "The deadline as said."
    due: String
    "YYYY-MM-DD."
    due_date: String
    "open or done."
    status: String!
    sentence_index: Int!
    "Seconds from the start of the meeting."
    start_time: Float!
    "The meeting page at the moment it was said."
    link: String!
  }

  type ActionItemPage {
    action_items: [ActionItem!]!
    has_more: Boolean!
    next_cursor: String
  }
`;

type Nullable<T> = { [K in keyof T]?: T[K] | null };

/** Absent and null alike mean "no filter". */
const given = <T extends object>(a: T) =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null && v !== undefined));

const resolvers = {
  Query: {
    actionItems: (_: unknown, a: Nullable<Record<string, string | number | boolean>>, ctx: GraphqlContext) =>
      listActionItems(ctx.deps.db, ctx.deps.config, readerOf(ctx, 'actionItems'), given(a)),
  },
  Mutation: {
    // Here null means "clear" for owner and dueDate, as in the tool; absent means "leave as is".
    updateActionItem: (
      _: unknown,
      a: {
        id: string;
        status?: string | null;
        owner?: string | null;
        ownerName?: string | null;
        dueDate?: string | null;
      },
      ctx: GraphqlContext,
    ) =>
      updateActionItem(ctx.deps.db, ctx.deps.config, ctx.principal, {
        id: a.id,
        status: a.status ?? undefined,
        owner: a.owner,
        ownerName: a.ownerName ?? undefined,
        dueDate: a.dueDate,
      }),
  },
};

export const actionItemsModule: GraphqlModule = { typeDefs, resolvers };
