import { z } from 'zod';
import { CONTACT_LIST_CAP, ContactRecord, getUser, getUserContacts, getUserGroups } from '../../core/people';
import { contactsOutput, userGroupsOutput, userOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getUserTool = defineTool({
  name: 'svc_get_user',
  title: 'Get a user',
  description: 'One user of your team (default: you).',
  input: {
    userId: z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').optional(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: userOutput,
  scope: 'meetings:read',
  run: ({ userId }, { principal, deps }) => getUser(deps.db, principal, userId),
});

const getUserGroupsTool = defineTool({
  name: 'svc_get_usergroups',
  title: 'List user groups',
  description: 'User groups of your team (e.g. @sales) with their members: who belongs to a team, whom to share with.',
  input: {
    mine: z.boolean({ error: 'must be true or false' }).optional().describe('Only groups you belong to (default all).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: userGroupsOutput,
  scope: 'meetings:read',
  run: ({ mine }, { principal, deps }) => getUserGroups(deps.db, principal, { mine: mine ?? false }),
});

function contactsText(result: { contacts: ContactRecord[]; has_more: boolean; next_skip?: number | null }): string {
  if (result.contacts.length === 0) return 'No contacts yet: nobody else appears in the meetings you can see.';
  const lines = result.contacts.map((c) => `${c.name} <${c.email}> - last met ${c.last_meeting_date.slice(0, 10)}`);
  if (result.has_more) lines.push(`(more contacts: call again with skip ${result.next_skip})`);
  return lines.join('\n');
}

const getUserContactsTool = defineTool({
  name: 'svc_get_user_contacts',
  title: 'List contacts',
  description:
    'People you have met in meetings you can see, most recently first; e.g. to find an email for a filter or a share.',
  input: {
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(CONTACT_LIST_CAP, `at most ${CONTACT_LIST_CAP}; page with skip for more`)
      .optional(),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .optional()
      .describe('next_skip of the previous page.'),
  },
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: contactsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => getUserContacts(deps.db, principal, args),
  text: contactsText,
});

export const peopleTools: ToolDef[] = [getUserTool, getUserGroupsTool, getUserContactsTool];
