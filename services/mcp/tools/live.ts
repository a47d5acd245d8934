import { z } from 'zod';
import { LIVE_STATES, listActiveMeetings } from '../../core/live';
import { activeMeetingsOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getActiveMeetingsTool = defineTool({
  name: 'svc_get_active_meetings',
  title: 'List meetings in progress',
  description:
    'Meetings happening right now (being recorded live), for "what is going on now" questions; finished meetings are found with svc_get_transcripts. ' +
    'Rows: id, title, organizer_email, meeting_link, start_time, end_time (scheduled end, may be null), privacy, state (active or paused), plus has_more. ' +
    "Without email you get your own live meetings (admins: the whole team's). Only admins may pass another teammate's email. " +
    'states filters by state, e.g. ["paused"]; both when omitted. A live meeting\'s transcript so far comes from svc_get_transcript.',
  input: {
    email: z
      .email({ error: 'must be an email address like name@example.com' })
      .max(254, 'at most 254 characters')
      .optional()
      .describe('Organizer email to filter by; omit for your own (admins: all).'),
    states: z
      .array(z.enum(LIVE_STATES, { error: 'each state must be active or paused' }))
      .min(1, 'list at least one of active, paused, or omit states for both')
      .max(2, 'at most 2 states: active, paused')
      .optional()
      .describe('Live states to include: active, paused. Both when omitted.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: activeMeetingsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => listActiveMeetings(deps.db, principal, args),
});

export const liveTools: ToolDef[] = [getActiveMeetingsTool];
