/**
 * Automation rules over GraphQL (Enterprise tier, team admins): list, read, create, update,
 * enable/disable, delete, and test one rule on one meeting without changing anything. Thin: each
 * resolver calls one function of services/core/rules with the caller's principal; field names in
 * errors are given as the caller wrote them (`input.actions.0.emails.3`).
 */
import { isServiceError } from '../../platform/errors';
import {
  createRule,
  deleteRule,
  getRule,
  listRules,
  RuleInput,
  RuleUpdateInput,
  setRuleEnabled,
  testRule,
  updateRule,
} from '../../core/rules';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import { withFieldPrefix } from '../errors';
import type { GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

const OPERATIONS = ['rules', 'rule', 'createRule', 'updateRule', 'setRuleEnabled', 'deleteRule', 'testRule'];
// graphql_operations_total labels these operations by name rather than "other".
for (const op of OPERATIONS) OPERATION_ALLOWLIST.add(op);

const typeDefs = /* GraphQL */ `
  extend type Query {
    "Your team's automation rules, oldest first (the order they run in). Enterprise tier; team admins."
    rules: [Rule!]!
    "One rule of your team."
    rule(id: ID!): Rule!
  }

  extend type Mutation {
    """
    Save a rule: after every transcript of your team (and when a live meeting ends), if the meeting
    meets all its conditions, its actions run in order, as you (its author). At most 100 rules a team.
    """
    createRule(input: RuleInput!): Rule!
    "Change a rule's name, conditions, actions or dry_run (omitted fields stay); you become its author."
    updateRule(id: ID!, input: RuleUpdateInput!): Rule!
    "Switch a rule on or off (a disabled rule never runs; testRule still works)."
    setRuleEnabled(id: ID!, enabled: Boolean!): Rule!
    "Delete a rule; its past executions stay in the log (svc_get_rule_executions)."
    deleteRule(id: ID!): RuleDeleteResult!
    """
    What the rule would do to one meeting of your team now, changing nothing: every condition
    evaluated, the actions tried and rolled back. Logged with dry_run true (status skipped when the
    conditions do not hold); testing the same rule on the same meeting again replaces that entry.
    """
    testRule(ruleId: ID!, meetingId: ID!): RuleTestResult!
  }

  enum RuleConditionType {
    "The title contains text (ignoring case)."
    title_contains
    "The organizer is email, or at domain."
    organizer
    "Someone with email, or at domain, took part (the organizer counts)."
    participant
    "text was said in the meeting (full-text, as svc_get_transcripts' keyword with scope sentences)."
    keyword
    "The summary's meeting_type: standup, sales, interview, planning, one_on_one, retrospective, demo or general."
    meeting_type
    "The meeting is in channel channel_id."
    channel
    "The meeting lasts at least minutes."
    min_duration
  }

  enum RuleActionType {
    "Share with emails (1 to 100) for expiry_days 7, 14 or 30 (omitted: no expiry), as svc_share_meeting."
    share
    "Move into channel channel_id, as svc_move_meeting."
    move
    "Set privacy: link, owner, participants, teammatesandparticipants or teammates."
    privacy
  }

  "One condition: type and the one field it uses."
  input RuleConditionInput {
    type: RuleConditionType!
    "title_contains, keyword: 1 to 255 characters."
    text: String
    "organizer, participant: an email address (or give domain)."
    email: String
    "organizer, participant: an email domain like example.com (or give email)."
    domain: String
    "meeting_type: one of the summary's meeting types."
    meeting_type: String
    "channel: a channel of your team."
    channel_id: ID
    "min_duration: whole minutes, 0 to 1440."
    minutes: Int
  }

  "One action: type and the fields it uses."
  input RuleActionInput {
    type: RuleActionType!
    "share: 1 to 100 email addresses."
    emails: [String!]
    "share: 7, 14 or 30; omitted for no expiry."
    expiry_days: Int
    "move: a channel of your team."
    channel_id: ID
    "privacy: link, owner, participants, teammatesandparticipants or teammates."
    privacy: String
  }

  input RuleInput {
    "1 to 120 characters."
    name: String!
    "0 to 20 conditions, all must hold (none: every meeting)."
    conditions: [RuleConditionInput!]
    "1 to 10 actions, run in order."
    actions: [RuleActionInput!]!
    "Evaluate and log what the rule would do after each transcript, without doing it. Default false."
    dry_run: Boolean
  }

  input RuleUpdateInput {
    name: String
    conditions: [RuleConditionInput!]
    actions: [RuleActionInput!]
    dry_run: Boolean
  }

  type RuleCondition {
    type: RuleConditionType!
    text: String
    email: String
    domain: String
    meeting_type: String
    channel_id: ID
    minutes: Int
  }

  type RuleAction {
    type: RuleActionType!
    emails: [String!]
    expiry_days: Int
    channel_id: ID
    privacy: String
  }

  type Rule {
    id: ID!
    name: String!
    enabled: Boolean!
    dry_run: Boolean!
    conditions: [RuleCondition!]!
    actions: [RuleAction!]!
    "The admin the rule acts as: whoever last created or updated it (null when that user is gone)."
    author_id: ID
    author_email: String
    created_at: String!
    updated_at: String!
  }

  type RuleDeleteResult {
    success: Boolean!
    id: ID!
    name: String!
  }

  type RuleConditionOutcome {
    index: Int!
    type: RuleConditionType!
    held: Boolean!
    detail: String!
  }

  type RuleActionOutcome {
    type: RuleActionType!
    "would_do, would_fail, or not_run (author may not act, or the conditions do not hold)."
    status: String!
    error: String
    emails: [String!]
    expiry_days: Int
    channel_id: ID
    privacy: String
  }

  "An entry of the execution log, as svc_get_rule_executions shows it."
  type RuleExecution {
    id: ID!
    rule_id: ID!
    rule_name: String!
    "success, partial, failed or skipped."
    status: String!
    "One clause per action, e.g. share(emails=a@x.com, expiry_days=7) -> would_do."
    actions: String!
    error: String
    dry_run: Boolean!
    executed_at: String!
  }

  type RuleTestResult {
    matched: Boolean!
    conditions: [RuleConditionOutcome!]!
    actions: [RuleActionOutcome!]!
    execution: RuleExecution!
  }
`;

/** Field names inside `input` get its prefix; top-level arguments (id) and the input as a whole stay. */
const inInput = (e: unknown): never => {
  if (isServiceError(e) && e.details.field && e.details.field !== 'id' && e.details.field !== 'input')
    return withFieldPrefix('input')(e);
  throw e;
};

export const rulesModule: GraphqlModule = {
  typeDefs,
  resolvers: {
    Query: {
      rules: (_: unknown, __: unknown, ctx: GraphqlContext) => listRules(ctx.deps.db, ctx.principal),
      rule: (_: unknown, args: { id: string }, ctx: GraphqlContext) => getRule(ctx.deps.db, ctx.principal, args.id),
    },
    Mutation: {
      createRule: (_: unknown, args: { input: RuleInput }, ctx: GraphqlContext) =>
        createRule(ctx.deps.db, ctx.principal, args.input).catch(inInput),
      updateRule: (_: unknown, args: { id: string; input: RuleUpdateInput }, ctx: GraphqlContext) =>
        updateRule(ctx.deps.db, ctx.principal, args.id, args.input).catch(inInput),
      setRuleEnabled: (_: unknown, args: { id: string; enabled: boolean }, ctx: GraphqlContext) =>
        setRuleEnabled(ctx.deps.db, ctx.principal, args.id, args.enabled),
      deleteRule: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
        deleteRule(ctx.deps.db, ctx.principal, args.id),
      testRule: (_: unknown, args: { ruleId: string; meetingId: string }, ctx: GraphqlContext) =>
        testRule(ctx.deps.db, ctx.principal, args),
    },
  },
};
