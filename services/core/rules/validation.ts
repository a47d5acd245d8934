/**
 * Automation rules: their shape and the checks of what a caller may save. Pure (no database): the
 * checks that need one (a channel of the team, a keyword that is not only stop words) are in
 * rules.ts. Every refusal is invalid_arguments naming the field as the caller wrote it
 * (`conditions.2.text`, `actions.0.emails.14`) and the rule it broke; nothing is stored on refusal.
 *
 * The action limits are those of the MCP tools (svc_share_meeting, svc_move_meeting), imported from
 * ../meetings/admin.ts, because a rule's actions run through the very same core functions.
 */
import { MEETING_TYPES, type MeetingType } from '../../intelligence/summarize/types';
import { invalid } from '../../platform/errors';
import { PRIVACIES, Privacy, SHARE_EXPIRY_DAYS, SHARE_MAX_EMAILS } from '../meetings';
import { requireEmail, requireLength, requireOneOf } from '../input';

// ---------------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------------

export const RULE_LIMITS = {
  nameMin: 1,
  nameMax: 120,
  conditionsMax: 20,
  actionsMin: 1,
  actionsMax: 10,
  textMin: 1,
  /** title_contains and keyword: the same 255 as svc_get_transcripts' keyword. */
  textMax: 255,
  minutesMin: 0,
  /** A day: no recording is longer, so a larger minimum could never match. */
  minutesMax: 1440,
  /** Rules per team: bounds the work of one run (every enabled rule is evaluated per meeting). */
  rulesPerTeam: 100,
} as const;

export const CONDITION_TYPES = [
  'title_contains',
  'organizer',
  'participant',
  'keyword',
  'meeting_type',
  'channel',
  'min_duration',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const ACTION_TYPES = ['share', 'move', 'privacy'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

// ---------------------------------------------------------------------------------------------------
// Stored shapes (rules.conditions / rules.actions, jsonb): only the fields of each type.
// ---------------------------------------------------------------------------------------------------

export type RuleCondition =
  /** The title contains the text (case-insensitive). */
  | { type: 'title_contains'; text: string }
  /** The organizer has this email, or an email at this domain. */
  | { type: 'organizer'; email: string }
  | { type: 'organizer'; domain: string }
  /** Someone with this email, or an email at this domain, took part (the organizer counts). */
  | { type: 'participant'; email: string }
  | { type: 'participant'; domain: string }
  /** The words were said in the meeting (full-text, as svc_get_transcripts' keyword with scope sentences). */
  | { type: 'keyword'; text: string }
  /** The summary's meeting type. */
  | { type: 'meeting_type'; meeting_type: MeetingType }
  /** The meeting is in this channel. */
  | { type: 'channel'; channel_id: string }
  /** The meeting lasted at least this many minutes. */
  | { type: 'min_duration'; minutes: number };

export type RuleAction =
  /** Share with these emails for 7, 14 or 30 days (null: no expiry), as svc_share_meeting. */
  | { type: 'share'; emails: string[]; expiry_days: number | null }
  /** Move into this channel, as svc_move_meeting. */
  | { type: 'move'; channel_id: string }
  /** Set the meeting's privacy. */
  | { type: 'privacy'; privacy: Privacy };

/** What a transport hands over: one flat object per condition/action, fields by type (GraphQL input). */
export interface ConditionInput {
  type: string;
  text?: string | null;
  email?: string | null;
  domain?: string | null;
  meeting_type?: string | null;
  channel_id?: string | null;
  minutes?: number | null;
}

export interface ActionInput {
  type: string;
  emails?: string[] | null;
  expiry_days?: number | null;
  channel_id?: string | null;
  privacy?: string | null;
}

export interface RuleInput {
  name: string;
  conditions?: ConditionInput[] | null;
  actions: ActionInput[];
  dry_run?: boolean | null;
}

export type RuleUpdateInput = Partial<{ [K in keyof RuleInput]: RuleInput[K] | null }>;

// ---------------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------------

const present = (v: unknown) => v !== undefined && v !== null;

/** Fields a type uses; any other field given is refused, so a mistyped rule never saves silently. */
const CONDITION_FIELDS: Record<ConditionType, (keyof ConditionInput)[]> = {
  title_contains: ['text'],
  organizer: ['email', 'domain'],
  participant: ['email', 'domain'],
  keyword: ['text'],
  meeting_type: ['meeting_type'],
  channel: ['channel_id'],
  min_duration: ['minutes'],
};

const ACTION_FIELDS: Record<ActionType, (keyof ActionInput)[]> = {
  share: ['emails', 'expiry_days'],
  move: ['channel_id'],
  privacy: ['privacy'],
};

function refuseOtherFields<T extends object>(
  prefix: string,
  input: T,
  type: string,
  allowed: (keyof T)[],
  all: (keyof T)[],
): void {
  for (const f of all) {
    if (f === 'type' || allowed.includes(f)) continue;
    if (present(input[f])) {
      throw invalid(
        `${prefix}.${String(f)}`,
        `not used by type ${type}`,
        `${prefix}.${String(f)} is not used by a ${type} ${prefix.split('.')[0].replace(/s$/, '')}; remove it (${type} takes ${allowed.join(', ')})`,
      );
    }
  }
}

function requireText(field: string, v: unknown): string {
  if (typeof v !== 'string') throw invalid(field, 'required', `${field} is required`);
  const s = v.trim();
  return requireLength(field, s, RULE_LIMITS.textMin, RULE_LIMITS.textMax);
}

/** One non-empty id (a channel): at most 64 characters, as the MCP tools take ids. */
export function requireId(field: string, v: unknown): string {
  const s = typeof v === 'string' ? v.trim() : '';
  if (!s) throw invalid(field, 'required', `${field} is required`);
  if (s.length > 64) throw invalid(field, 'at most 64 characters', `${field} must be at most 64 characters`);
  return s;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;

/** An email domain like example.com (a leading @ is accepted and dropped), lower-cased. */
export function requireDomain(field: string, v: string): string {
  const d = v.trim().toLowerCase().replace(/^@/, '');
  if (!DOMAIN.test(d))
    throw invalid(
      field,
      'must be an email domain like example.com',
      `${field}: ${JSON.stringify(v)} is not an email domain like example.com`,
    );
  return d;
}

function checkCondition(input: ConditionInput, i: number): RuleCondition {
  const at = `conditions.${i}`;
  if (!input || typeof input !== 'object') throw invalid(at, 'must be an object with a type');
  const type = requireOneOf(`${at}.type`, String(input.type ?? ''), CONDITION_TYPES);
  refuseOtherFields(at, input, type, CONDITION_FIELDS[type], [
    'text',
    'email',
    'domain',
    'meeting_type',
    'channel_id',
    'minutes',
  ]);
  switch (type) {
    case 'title_contains':
    case 'keyword':
      return { type, text: requireText(`${at}.text`, input.text) };
    case 'organizer':
    case 'participant': {
      const hasEmail = present(input.email);
      const hasDomain = present(input.domain);
      if (hasEmail === hasDomain) {
        throw invalid(
          `${at}.email`,
          'exactly one of email and domain',
          `${at}.email: give exactly one of email (a person) and domain (everyone at example.com) for a ${type} condition`,
        );
      }
      return (
        hasEmail
          ? { type, email: requireEmail(`${at}.email`, String(input.email)) }
          : { type, domain: requireDomain(`${at}.domain`, String(input.domain)) }
      ) as RuleCondition;
    }
    case 'meeting_type':
      return {
        type,
        meeting_type: requireOneOf(`${at}.meeting_type`, String(input.meeting_type ?? ''), MEETING_TYPES),
      };
    case 'channel':
      return { type, channel_id: requireId(`${at}.channel_id`, input.channel_id) };
    case 'min_duration': {
      const m = input.minutes;
      if (typeof m !== 'number' || !Number.isInteger(m) || m < RULE_LIMITS.minutesMin || m > RULE_LIMITS.minutesMax) {
        throw invalid(
          `${at}.minutes`,
          `whole number ${RULE_LIMITS.minutesMin} to ${RULE_LIMITS.minutesMax}`,
          `${at}.minutes must be a whole number of minutes from ${RULE_LIMITS.minutesMin} to ${RULE_LIMITS.minutesMax}; got ${m ?? 'nothing'}`,
        );
      }
      return { type, minutes: m };
    }
  }
}

function checkShareEmails(field: string, emails: unknown): string[] {
  if (!Array.isArray(emails) || emails.length < 1 || emails.length > SHARE_MAX_EMAILS) {
    const n = Array.isArray(emails) ? emails.length : 0;
    throw invalid(
      field,
      `1 to ${SHARE_MAX_EMAILS} email addresses`,
      `${field} must list 1 to ${SHARE_MAX_EMAILS} email addresses; got ${n}`,
    );
  }
  // Case-insensitively distinct, in the order given (as svc_share_meeting stores them).
  return [...new Set(emails.map((e, j) => requireEmail(`${field}.${j}`, typeof e === 'string' ? e : String(e))))];
}

function checkAction(input: ActionInput, i: number): RuleAction {
  const at = `actions.${i}`;
  if (!input || typeof input !== 'object') throw invalid(at, 'must be an object with a type');
  const type = requireOneOf(`${at}.type`, String(input.type ?? ''), ACTION_TYPES);
  refuseOtherFields(at, input, type, ACTION_FIELDS[type], ['emails', 'expiry_days', 'channel_id', 'privacy']);
  switch (type) {
    case 'share': {
      const emails = checkShareEmails(`${at}.emails`, input.emails);
      const d = input.expiry_days;
      if (present(d) && !(SHARE_EXPIRY_DAYS as readonly number[]).includes(d as number)) {
        throw invalid(
          `${at}.expiry_days`,
          `one of ${SHARE_EXPIRY_DAYS.join(', ')}`,
          `${at}.expiry_days must be one of ${SHARE_EXPIRY_DAYS.join(', ')} (days), or omitted for no expiry; got ${d}`,
        );
      }
      return { type, emails, expiry_days: present(d) ? (d as number) : null };
    }
    case 'move':
      return { type, channel_id: requireId(`${at}.channel_id`, input.channel_id) };
    case 'privacy':
      return { type, privacy: requireOneOf(`${at}.privacy`, String(input.privacy ?? ''), PRIVACIES) };
  }
}

export function checkName(v: unknown): string {
  if (typeof v !== 'string') throw invalid('name', 'required', 'name is required');
  return requireLength('name', v.trim(), RULE_LIMITS.nameMin, RULE_LIMITS.nameMax);
}

export function checkConditions(v: unknown): RuleCondition[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > RULE_LIMITS.conditionsMax) {
    throw invalid(
      'conditions',
      `at most ${RULE_LIMITS.conditionsMax} conditions`,
      `conditions must list at most ${RULE_LIMITS.conditionsMax} conditions (all must hold); got ${Array.isArray(v) ? v.length : 'not a list'}`,
    );
  }
  return v.map((c, i) => checkCondition(c as ConditionInput, i));
}

export function checkActions(v: unknown): RuleAction[] {
  if (!Array.isArray(v) || v.length < RULE_LIMITS.actionsMin || v.length > RULE_LIMITS.actionsMax) {
    throw invalid(
      'actions',
      `${RULE_LIMITS.actionsMin} to ${RULE_LIMITS.actionsMax} actions`,
      `actions must list ${RULE_LIMITS.actionsMin} to ${RULE_LIMITS.actionsMax} actions (run in order); got ${Array.isArray(v) ? v.length : 'none'}`,
    );
  }
  return v.map((a, i) => checkAction(a as ActionInput, i));
}

export interface CheckedRule {
  name: string;
  conditions: RuleCondition[];
  actions: RuleAction[];
  dry_run: boolean;
}

/** A whole rule as created: name, conditions (0 to 20), actions (1 to 10), dry_run (default false). */
export function checkRuleInput(input: RuleInput): CheckedRule {
  if (!input || typeof input !== 'object') throw invalid('input', 'required');
  return {
    name: checkName(input.name),
    conditions: checkConditions(input.conditions),
    actions: checkActions(input.actions),
    dry_run: checkDryRun(input.dry_run),
  };
}

export function checkDryRun(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalid('dry_run', 'true or false');
  return v;
}

/** The parts an update changes: absent (or null) keeps what the rule has. */
export function checkRuleUpdate(input: RuleUpdateInput): Partial<CheckedRule> {
  if (!input || typeof input !== 'object') throw invalid('input', 'required');
  const out: Partial<CheckedRule> = {};
  if (present(input.name)) out.name = checkName(input.name);
  if (present(input.conditions)) out.conditions = checkConditions(input.conditions);
  if (present(input.actions)) out.actions = checkActions(input.actions);
  if (present(input.dry_run)) out.dry_run = checkDryRun(input.dry_run);
  if (Object.keys(out).length === 0) {
    throw invalid(
      'input',
      'at least one of name, conditions, actions, dry_run',
      'input must change at least one of name, conditions, actions, dry_run (use setRuleEnabled to switch a rule on or off)',
    );
  }
  return out;
}

/** Channel ids a rule refers to, with the field naming each (checked against the team in rules.ts). */
export function channelRefs(rule: Pick<CheckedRule, 'conditions' | 'actions'>): { field: string; id: string }[] {
  const refs: { field: string; id: string }[] = [];
  rule.conditions.forEach(
    (c, i) => c.type === 'channel' && refs.push({ field: `conditions.${i}.channel_id`, id: c.channel_id }),
  );
  rule.actions.forEach(
    (a, i) => a.type === 'move' && refs.push({ field: `actions.${i}.channel_id`, id: a.channel_id }),
  );
  return refs;
}
