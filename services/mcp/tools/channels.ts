import { z } from 'zod';
import { getChannel, listChannels } from '../../core/channels';
import { channelListOutput, channelOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const listChannelsTool = defineTool({
  name: 'svc_list_channels',
  title: 'List channels',
  description:
    'Channels (folders) of your team you can use: public ones and private ones you belong to (admins: all). ' +
    'File meetings with svc_move_meeting.',
  input: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: channelListOutput,
  scope: 'meetings:read',
  run: (_args, { principal, deps }) => listChannels(deps.db, principal),
});

const getChannelTool = defineTool({
  name: 'svc_get_channel',
  title: 'Get a channel',
  description: 'One channel with its members and their roles.',
  input: {
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .describe('From svc_list_channels.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: channelOutput,
  scope: 'meetings:read',
  run: ({ channelId }, { principal, deps }) => getChannel(deps.db, principal, channelId),
});

export const channelTools: ToolDef[] = [listChannelsTool, getChannelTool];
