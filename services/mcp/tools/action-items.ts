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

const CITE = 'Cite each item by its moment: [meeting_title, mm:ss](link), mm:ss being start_time, and quote its text.';

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
    'Action items (commitments and requests found when each meeting was summarized) of the meetings you can read, newest meeting first, in the order said. ' +
    'For "what is still open for me?" call with {"mine": true, "status": "open"}: one call answers it. ' +
    'Rows (a tab-separated TOON table): id, meeting_id, meeting_title, meeting_date, text (the sentence), owner_name, owner_email, due (as said), ' +
    'due_date (YYYY-MM-DD), status (open|done), sentence_index, start_time (seconds), link (the meeting page at that moment). ' +
    `${CITE} ` +
    'Filters combine: mine (owned by you), status, owner (an email or a name), dueBefore/dueAfter (YYYY-MM-DD, inclusive; items without a due date drop out), ' +
    'meetingId, channelId (from svc_list_channels), fromDate/toDate (meeting days, UTC, inclusive). ' +
    `A page holds at most limit items (default ${ACTION_ITEM_LIST.defaultLimit}) within ~${ACTION_ITEM_TOKENS.toLocaleString('en-US')} tokens; ` +
    'when has_more is true, call again with the same filters and cursor = next_cursor. Close or reassign an item with svc_update_action_item.',
  input: {
    mine: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true: only items owned by you (your email).'),
    status: z
      .enum(ACTION_ITEM_STATUSES, { error: 'must be open or done' })
      .optional()
      .describe('open or done; default both.'),
    owner: z
      .string()
      .min(1, 'must not be empty')
      .max(OWNER_MAX, `at most ${OWNER_MAX} characters`)
      .optional()
      .describe('Only items of this owner: an email, or the name an item shows.'),
    dueBefore: isoDate('Due on or before this day, YYYY-MM-DD.'),
    dueAfter: isoDate('Due on or after this day, YYYY-MM-DD.'),
    meetingId: id
      .optional()
      .describe('Only items of this meeting (transcript id). A meeting you cannot see is object_not_found.'),
    channelId: id.optional().describe('Only items of meetings in this channel (id from svc_list_channels).'),
    fromDate: isoDate('Meetings on or after this day, YYYY-MM-DD (UTC).'),
    toDate: isoDate('Meetings on or before this day, YYYY-MM-DD (UTC).'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(ACTION_ITEM_LIST.maxLimit, `at most ${ACTION_ITEM_LIST.maxLimit}; page with cursor for more`)
      .optional()
      .describe(`Items per page, 1 to ${ACTION_ITEM_LIST.maxLimit} (default ${ACTION_ITEM_LIST.defaultLimit}).`),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(CURSOR_MAX, `at most ${CURSOR_MAX} characters`)
      .optional()
      .describe('next_cursor of the previous page; omit for the first.'),
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
    'Change one action item (id from svc_get_action_items): status open or done, owner (an email; null removes the owner) with ownerName, ' +
    'dueDate (YYYY-MM-DD; null clears it). Give at least one. Allowed to whoever may write to its meeting: its organizer, its participants, ' +
    'members of its channel or a team admin. What you set stays when the meeting is summarized again. Returns the item with its moment; ' +
    `${CITE}`,
  input: {
    id: id.describe('Action item id.'),
    status: z.enum(ACTION_ITEM_STATUSES, { error: 'must be open or done' }).optional().describe('open or done.'),
    owner: z
      .string()
      .email('must be an email address like name@example.com')
      .nullable()
      .optional()
      .describe("The new owner's email; null: no owner."),
    ownerName: z
      .string()
      .min(1, 'must not be empty')
      .max(OWNER_MAX, `at most ${OWNER_MAX} characters`)
      .optional()
      .describe("The owner's name as shown; default: the name the meeting knows for the email."),
    dueDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an ISO date YYYY-MM-DD')
      .refine(isCalendarDate, 'must be a real calendar date YYYY-MM-DD')
      .nullable()
      .optional()
      .describe('Due day, YYYY-MM-DD; null clears it.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: actionItemOutput,
  scope: 'meetings:write',
  formats: true,
  run: (args, { principal, deps }) => updateActionItem(deps.db, deps.config, principal, args),
  text: (a: ActionItemRecord) => itemLine(a),
});

export const actionItemTools: ToolDef[] = [getActionItems, updateActionItemTool];
