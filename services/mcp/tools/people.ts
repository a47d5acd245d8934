import { z } from 'zod';
import { ContactRecord, getUser, getUserContacts, getUserGroups } from '../../core/people';
import { defineTool, ToolDef } from '../tool';

const getUserTool = defineTool({
  name: 'svc_get_user',
  title: 'Get a user',
  description:
    'Profile of one user of your team: user_id, email, name, num_transcripts (meetings they organized), recent_meeting (date), ' +
    'minutes_consumed, is_admin, integrations. Omit userId for yourself. To list teammates, use svc_get_usergroups or svc_get_user_contacts.',
  input: { userId: z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').optional().describe('User id; omit for the signed-in user.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
  scope: 'meetings:read',
  run: ({ userId }, { principal, deps }) => getUser(deps.db, principal, userId),
});

const getUserGroupsTool = defineTool({
  name: 'svc_get_usergroups',
  title: 'List user groups',
  description:
    'User groups of your team (e.g. @sales), to find who belongs to a team or whom to share with. ' +
    'Each group: id, name, handle, member_count and members as a table of email, name, role; has_more says whether the list was cut. ' +
    'mine: true lists only the groups you belong to; default false lists all of the team\'s groups.',
  input: { mine: z.boolean({ error: 'must be true or false' }).optional().describe('true: only your groups; false (default): all groups of your team.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
  scope: 'meetings:read',
  run: ({ mine }, { principal, deps }) => getUserGroups(deps.db, principal, { mine: mine ?? false }),
});

function contactsText(result: { contacts: ContactRecord[]; has_more: boolean }): string {
  if (result.contacts.length === 0) return 'No contacts yet: nobody else appears in the meetings you can see.';
  const lines = result.contacts.map((c) => `${c.name} <${c.email}> - last met ${c.last_meeting_date.slice(0, 10)}`);
  if (result.has_more) lines.push(`(only the ${result.contacts.length} most recent contacts are listed)`);
  return lines.join('\n');
}

const getUserContactsTool = defineTool({
  name: 'svc_get_user_contacts',
  title: 'List contacts',
  description:
    'People you have met: everyone other than you who organized or took part in meetings you can see, most recently met first. ' +
    'Rows: email, name, picture (profile picture URL of teammates, else null), last_meeting_date; has_more when the list was cut at 200. ' +
    'Use it to resolve a person\'s email for svc_get_transcripts participants or svc_share_meeting.',
  input: {},
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  scope: 'meetings:read',
  run: (_args, { principal, deps }) => getUserContacts(deps.db, principal),
  text: contactsText,
});

export const peopleTools: ToolDef[] = [getUserTool, getUserGroupsTool, getUserContactsTool];
