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
    "What your team's automation rules did, grouped by meeting, newest first; each execution's status (success, partial, failed, " +
    `skipped), actions and error. Enterprise tier only. Pages stay within ~${RULE_LOG_TOKENS.toLocaleString('en-US')} tokens, so may hold fewer than limit.`,
  input: {
    ruleId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe('Only this rule.'),
    meetingId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe('Only this meeting.'),
    dateFrom: dateTime('Executed at or after, e.g. 2026-11-01T00:00:00Z.'),
    dateTo: dateTime('Executed at or before.'),
    limit: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(MAX_GROUP_LIMIT, `at most ${MAX_GROUP_LIMIT} meeting groups`)
      .optional()
      .describe(`Meeting groups per page (default ${DEFAULT_GROUP_LIMIT}).`),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(1000, 'at most 1000 characters')
      .optional()
      .describe('next_cursor of the previous page.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: ruleExecutionsOutput,
  scope: 'meetings:read',
  run: (args, { principal, deps }) =>
    listRuleExecutions(deps.db, principal, args, { secretsKey: deps.config.secretsKey }),
});

export const automationTools: ToolDef[] = [getRuleExecutionsTool];
