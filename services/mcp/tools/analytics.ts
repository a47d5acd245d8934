import { z } from 'zod';
import { getAnalytics } from '../../core/analytics';
import { analyticsOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const dateTime = (what: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, like 2026-11-01T09:00:00Z' })
    .optional()
    .describe(what);

const getAnalyticsTool = defineTool({
  name: 'svc_get_analytics',
  title: 'Meeting analytics',
  description:
    'Conversation analytics of completed meetings in a window (default the last 30 days), each metric beside the equally long window before ' +
    '(change_pct null when that was 0). team: a row per metric (admins only); users: a row per person who spoke. Members get scope self: their own row.',
  input: {
    startTime: dateTime('Inclusive, e.g. 2026-10-01T00:00:00Z; default 30 days before endTime.'),
    endTime: dateTime('Exclusive; default now.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: analyticsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => getAnalytics(deps.db, principal, args),
});

export const analyticsTools: ToolDef[] = [getAnalyticsTool];
