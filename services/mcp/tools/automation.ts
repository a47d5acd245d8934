import { z } from 'zod';
import { DEFAULT_GROUP_LIMIT, listRuleExecutions, MAX_GROUP_LIMIT, RULE_LOG_TOKENS } from '../../core/rules';
import { ruleExecutionsOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const dateTime = (what: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, like 2026-11-01T09:00:00Z' })
    .optional()
    .describe(what);

const getRuleExecutionsTool = defineTool({
  name: 'svc_get_rule_executions',
  title: 'Automation rule log',
  description:
    "What your team's automation rules did (sharing, moving to channels, changing privacy), grouped by meeting, newest meeting first. Enterprise tier only. " +
    'Returns meetings: [{meeting_id, meeting (title), execution_count, executions_has_more, executions: rows of id, rule_id, rule_name, status (success|partial|failed|skipped), ' +
    'actions (one line, e.g. "share(emails=a@x.com) -> done"), error, dry_run, executed_at}], has_more, next_cursor. ' +
    `A page holds at most limit meeting groups and stays within ~${RULE_LOG_TOKENS.toLocaleString('en-US')} tokens, so it may hold fewer groups than limit. ` +
    'When has_more is true, call again with the same filters and cursor set to next_cursor. Filter with ruleId, meetingId, dateFrom/dateTo (on executed_at).',
  input: {
    ruleId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe('Only executions of this rule.'),
    meetingId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe('Only executions on this meeting.'),
    dateFrom: dateTime('Executed at or after this time, e.g. 2026-11-01T00:00:00Z.'),
    dateTo: dateTime('Executed at or before this time.'),
    limit: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(MAX_GROUP_LIMIT, `at most ${MAX_GROUP_LIMIT} meeting groups`)
      .optional()
      .describe(
        `Most meeting groups per page, 1 to ${MAX_GROUP_LIMIT} (default ${DEFAULT_GROUP_LIMIT}); fewer when the token budget is reached first.`,
      ),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(1000, 'at most 1000 characters')
      .optional()
      .describe('next_cursor from the previous page; omit for the first page.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: ruleExecutionsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) =>
    listRuleExecutions(deps.db, principal, args, { secretsKey: deps.config.secretsKey }),
});

export const automationTools: ToolDef[] = [getRuleExecutionsTool];
