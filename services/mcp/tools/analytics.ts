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
    'Conversation analytics of completed meetings in a time window (default: the last 30 days), each compared with the equally long window just before it. ' +
    'Metrics: meetings, total_duration_minutes, average_duration_minutes, filler_words, questions, monologues, sentiment_positive/neutral/negative_pct, talk_listen_ratio, words_per_minute. ' +
    'Returns period (start, end, previous_start, previous_end, days); team: one row per metric with value, previous, change_pct (admins only); ' +
    'users: one row per person who spoke, each metric followed by <metric>_change_pct. change_pct is null when the previous value is 0. ' +
    'Members get scope "self": only their own row and no team totals. Example: {"startTime": "2026-10-01T00:00:00Z", "endTime": "2026-11-01T00:00:00Z"}.',
  input: {
    startTime: dateTime('Start of the window (inclusive), e.g. 2026-10-01T00:00:00Z. Default: 30 days before endTime.'),
    endTime: dateTime('End of the window (exclusive), e.g. 2026-11-01T00:00:00Z. Default: now.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: analyticsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) => getAnalytics(deps.db, principal, args),
});

export const analyticsTools: ToolDef[] = [getAnalyticsTool];
