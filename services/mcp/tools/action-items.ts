/**
 * Action items across meetings: svc_get_action_items lists those of meetings the caller may read
 * (each with the moment it was said), svc_update_action_item closes, reopens or reassigns one.
 */
import { z } from 'zod';
import {
  ACTION_ITEM_LIST,
  ACTION_ITEM_TOKENS,
  ACTION_ITEM_STATUSES,
  CURSOR_MAX,
  OWNER_MAX,
  listActionItems,
  updateActionItem,
} from '../../core/action-items';
import type { ActionItemPage, ActionItemRecord } from '../../core/action-items';
import { isCalendarDate } from '../../core/meetings';
import { clock } from '../format';
import { actionItemListOutput, actionItemOutput } from '../output';
import { defineTool, ToolDef } from '../tool';
import { isoDate } from './search';

const CITE = 'Cite an item by its moment: [meeting_title, mm:ss](link).';

const id = z.string().min(1, 'must not be empty').max(64, 'at most 64 characters');

const itemLine = (a: ActionItemRecord) =>
  `- [${a.status === 'done' ? 'x' : ' '}] ${a.text.replace(/\s+/g, ' ')} · owner ${a.owner_name ?? '(none)'}${a.owner_email ? ` <${a.owner_email}>` : ''}` +
  `${a.due_date ? ` · due ${a.due_date}` : a.due ? ` · due ${a.due}` : ''} · [${a.meeting_title}, ${clock(a.start_time)}](${a.link}) · id ${a.id}`;

function listText(p: ActionItemPage): string {
  if (p.action_items.length === 0) return 'No action items match.';
  const lines = p.action_items.map(itemLine);
  lines.push(
    p.has_more
      ? `More on the next page: call again with the same filters and cursor: "${p.next_cursor}".`
      : 'No more action items match.',
  );
  return lines.join('\n');
}

const getActionItems = defineTool({
  name: 'svc_get_action_items',
  title: 'List action items',
  description:
    "Action items (commitments and requests from each meeting's notes) of meetings you can read, newest meeting first. " +
    '"What is still open for me?" is {"mine": true, "status": "open"}. Filters combine; dueBefore/dueAfter drop items without a due date. ' +
    `Pages stay within ~${ACTION_ITEM_TOKENS.toLocaleString('en-US')} tokens. ${CITE}`,
  input: {
    mine: z.boolean({ error: 'must be true or false' }).optional().describe('Only items you own.'),
    status: z.enum(ACTION_ITEM_STATUSES, { error: 'must be open or done' }).optional().describe('Default both.'),
    owner: z
      .string()
      .min(1, 'must not be empty')
      .max(OWNER_MAX, `at most ${OWNER_MAX} characters`)
      .optional()
      .describe('An email or the name an item shows.'),
    dueBefore: isoDate('Due on or before this day.'),
    dueAfter: isoDate('Due on or after this day.'),
    meetingId: id.optional().describe('Only items of this meeting.'),
    channelId: id.optional().describe("Only items of this channel's meetings."),
    fromDate: isoDate('First meeting day (UTC).'),
    toDate: isoDate('Last meeting day (UTC).'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(ACTION_ITEM_LIST.maxLimit, `at most ${ACTION_ITEM_LIST.maxLimit}; page with cursor for more`)
      .optional()
      .describe(`Default ${ACTION_ITEM_LIST.defaultLimit}.`),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(CURSOR_MAX, `at most ${CURSOR_MAX} characters`)
      .optional()
      .describe('next_cursor of the previous page.'),
  },
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: actionItemListOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => listActionItems(deps.db, deps.config, principal, args),
  text: listText,
  toonDelimiter: '\t',
});

const updateActionItemTool = defineTool({
  name: 'svc_update_action_item',
  title: 'Update an action item',
  description:
    "Set an action item's status, owner (with ownerName) or dueDate; at least one. Allowed to whoever may write to its meeting " +
    '(organizer, participants, channel members, admins). What you set stays when the meeting is summarized again.',
  input: {
    id: id.describe('Action item id.'),
    status: z.enum(ACTION_ITEM_STATUSES, { error: 'must be open or done' }).optional(),
    owner: z
      .string()
      .email('must be an email address like name@example.com')
      .nullable()
      .optional()
      .describe('null: no owner.'),
    ownerName: z
      .string()
      .min(1, 'must not be empty')
      .max(OWNER_MAX, `at most ${OWNER_MAX} characters`)
      .optional()
      .describe('Default: the name the meeting knows for the email.'),
    dueDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an ISO date YYYY-MM-DD')
      .refine(isCalendarDate, 'must be a real calendar date YYYY-MM-DD')
      .nullable()
      .optional()
      .describe('null clears it.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: actionItemOutput,
  scope: 'meetings:write',
  formats: true,
  run: (args, { principal, deps }) => updateActionItem(deps.db, deps.config, principal, args),
  text: (a: ActionItemRecord) => itemLine(a),
});

export const actionItemTools: ToolDef[] = [getActionItems, updateActionItemTool];
