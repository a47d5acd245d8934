import { z } from 'zod';
import { getChannel, listChannels } from '../../core/channels';
import { channelListOutput, channelOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const listChannelsTool = defineTool({
  name: 'svc_list_channels',
  title: 'List channels',
  description:
    'Channels (folders) you can use in your team: public channels, private ones you belong to (admins see all). ' +
    'One row per channel: id, title, is_private, members (comma-separated emails), member_count; has_more says whether the list was cut. ' +
    'Use the id with svc_move_meeting to file meetings, or svc_get_channel for member names and roles.',
  input: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: channelListOutput,
  scope: 'meetings:read',
  run: (_args, { principal, deps }) => listChannels(deps.db, principal),
});

const getChannelTool = defineTool({
  name: 'svc_get_channel',
  title: 'Get a channel',
  description:
    'One channel by id (from svc_list_channels): id, title, is_private, and members as a table of user_id, email, name, role. ' +
    "A private channel you are not in, or another team's, is reported as object_not_found.",
  input: {
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .describe('Channel id from svc_list_channels.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: channelOutput,
  scope: 'meetings:read',
  run: ({ channelId }, { principal, deps }) => getChannel(deps.db, principal, channelId),
});

export const channelTools: ToolDef[] = [listChannelsTool, getChannelTool];
