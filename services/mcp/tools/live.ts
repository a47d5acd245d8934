import { z } from 'zod';
import { LIVE_STATES, listActiveMeetings } from '../../core/live';
import { activeMeetingsOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getActiveMeetingsTool = defineTool({
  name: 'svc_get_active_meetings',
  title: 'List meetings in progress',
  description:
    'Meetings being recorded live now (finished ones: svc_get_transcripts); their sentences so far: svc_get_transcript. ' +
    "Default: your own (admins: the team's); only admins may pass another's email.",
  input: {
    email: z
      .email({ error: 'must be an email address like name@example.com' })
      .max(254, 'at most 254 characters')
      .optional()
      .describe('Organizer to filter by.'),
    states: z
      .array(z.enum(LIVE_STATES, { error: 'each state must be active or paused' }))
      .min(1, 'list at least one of active, paused, or omit states for both')
      .max(2, 'at most 2 states: active, paused')
      .optional()
      .describe('Default both.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: activeMeetingsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => listActiveMeetings(deps.db, principal, args),
});

export const liveTools: ToolDef[] = [getActiveMeetingsTool];
