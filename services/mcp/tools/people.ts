import { z } from 'zod';
import { getUser } from '../../core/people';
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

export const peopleTools: ToolDef[] = [getUserTool];
