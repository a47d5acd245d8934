import { z } from 'zod';
import { CONTACT_LIST_CAP, ContactRecord, getUser, getUserContacts, getUserGroups } from '../../core/people';
import { contactsOutput, userGroupsOutput, userOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getUserTool = defineTool({
  name: 'svc_get_user',
  title: 'Get a user',
  description:
    'Profile of one user of your team: user_id, email, name, num_transcripts (meetings they organized), recent_meeting (date), ' +
    'minutes_consumed, is_admin, integrations. Omit userId for yourself. To list teammates, use svc_get_usergroups or svc_get_user_contacts.',
  input: {
    userId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe('User id; omit for the signed-in user.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: userOutput,
  scope: 'meetings:read',
  run: ({ userId }, { principal, deps }) => getUser(deps.db, principal, userId),
});

const getUserGroupsTool = defineTool({
  name: 'svc_get_usergroups',
  title: 'List user groups',
  description:
    'User groups of your team (e.g. @sales), to find who belongs to a team or whom to share with. ' +
    'Each group: id, name, handle, member_count and members as a table of email, name, role; has_more says whether the list was cut. ' +
    "mine: true lists only the groups you belong to; default false lists all of the team's groups.",
  input: {
    mine: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true: only your groups; false (default): all groups of your team.'),
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
    'People you have met: everyone other than you who organized or took part in meetings you can see, most recently met first. ' +
    `Rows: email, name, picture (profile picture URL of teammates, else null), last_meeting_date; up to ${CONTACT_LIST_CAP} per page (limit). ` +
    'When has_more is true, call again with skip = next_skip. ' +
    "Use it to resolve a person's email for svc_get_transcripts participants or svc_share_meeting.",
  input: {
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(CONTACT_LIST_CAP, `at most ${CONTACT_LIST_CAP}; page with skip for more`)
      .optional()
      .describe(`Contacts per page, 1 to ${CONTACT_LIST_CAP} (default ${CONTACT_LIST_CAP}).`),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .optional()
      .describe('Contacts to skip: the next_skip of the previous page.'),
  },
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: contactsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => getUserContacts(deps.db, principal, args),
  text: contactsText,
});

export const peopleTools: ToolDef[] = [getUserTool, getUserGroupsTool, getUserContactsTool];
