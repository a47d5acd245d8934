/**
 * Who may see and change what. Every rule lives here once, as SQL filters that both lists and
 * single-object reads use, so a list can never show what a direct read would refuse.
 *
 * Visibility of a meeting to a caller:
 *   - never across teams, admins included, except through an explicit, active share to the caller's email;
 *   - within the team: admins see every meeting; the organizer always; privacy `link`, `teammates` and
 *     `teammatesandparticipants` open it to teammates; `participants` to its participants only;
 *     `owner` to the organizer only; members of the meeting's channel see it unless privacy is `owner`.
 * Managing a meeting (share, revoke, rename, privacy, move, name its speakers): its organizer or an admin of its team.
 * Write access (soundbites): whoever manages it, its participants, and members of its channel.
 */
import type { Knex } from 'knex';
import type { SqlFragment } from '../../platform/sql';
import { ServiceError, elevated } from '../../platform/errors';
import { isAdmin, Principal } from './principal';

type Where = (qb: Knex.QueryBuilder) => void;

// The rules below are SQL text with `?` bindings rather than nested knex callbacks: every list and
// every read runs visibleTo, and knex compiles each nested callback with a builder and compiler of its
// own, eight of them for this rule, a large share of the mcp process's CPU on keyword calls
// (services/core/README.md, "Visibility").
// `alias` is always a table alias written in our code, never input.

/** An active share of meeting <alias> to the caller's email (binds the email). */
const activeShareSql = (alias: string) =>
  `exists (select 1 from meeting_shares sh where sh.meeting_id = ${alias}.id and lower(sh.email) = lower(?)` +
  ' and sh.revoked_at is null and (sh.expires_at is null or sh.expires_at > now()))';

/**
 * The caller took part in meeting <alias> (binds the email). Probed per meeting row, never hashed:
 * `offset 0` keeps PostgreSQL from turning the EXISTS into a hash of every meeting the caller ever
 * took part in, which a newest-first page built before looking at a single row (growing with the caller's
 * history) where a page needs a few dozen index probes.
 */
const participantSql = (alias: string) =>
  `exists (select 1 from meeting_participants mp where mp.meeting_id = ${alias}.id and lower(mp.email) = lower(?) offset 0)`;

/** The caller is a member of meeting <alias>'s channel (binds the user id). */
const channelMemberSql = (alias: string) =>
  `exists (select 1 from channel_members cm where cm.channel_id = ${alias}.channel_id and cm.user_id = ?)`;

function isParticipant(qb: Knex.QueryBuilder, p: Principal, alias: string) {
  qb.whereRaw(participantSql(alias), [p.email]);
}

function isChannelMember(qb: Knex.QueryBuilder, p: Principal, alias: string) {
  qb.whereRaw(channelMemberSql(alias), [p.userId]);
}

interface VisibilitySql {
  admin: string;
  member: string;
  /** The same for a caller whom no share names (Principal.sharedWith false): the share branch is always false. */
  adminUnshared: string;
  memberUnshared: string;
}

/** The visibility rule's SQL for an alias, for admins and for everyone else (built once per alias). */
const visibilitySql = new Map<string, VisibilitySql>();

function visibilityFor(alias: string): VisibilitySql {
  let sql = visibilitySql.get(alias);
  if (!sql) {
    const a = alias;
    const member =
      `(${a}.organizer_id = ? or ${a}.privacy in ('link', 'teammates', 'teammatesandparticipants')` +
      ` or (${a}.privacy = 'participants' and ${participantSql(a)})` +
      ` or (${a}.privacy <> 'owner' and ${channelMemberSql(a)}))`;
    sql = {
      admin: `((${a}.team_id = ?) or ${activeShareSql(a)})`,
      member: `((${a}.team_id = ? and ${member}) or ${activeShareSql(a)})`,
      adminUnshared: `(${a}.team_id = ?)`,
      memberUnshared: `(${a}.team_id = ? and ${member})`,
    };
    visibilitySql.set(alias, sql);
  }
  return sql;
}

/** SQL text and its `?` bindings, in order. */
export type { SqlFragment };

/**
 * The condition on `meetings as <alias>` that the caller may read the row, as SQL text. For a caller
 * whom no share names, the share branch (a subquery per row, planned in every list statement) is left
 * out: it could match nothing.
 */
export function visibleToSql(p: Principal, alias = 'meetings'): SqlFragment {
  const sql = visibilityFor(alias);
  const unshared = p.sharedWith === false;
  if (isAdmin(p))
    return unshared
      ? { sql: sql.adminUnshared, bindings: [p.teamId] }
      : { sql: sql.admin, bindings: [p.teamId, p.email] };
  return unshared
    ? { sql: sql.memberUnshared, bindings: [p.teamId, p.userId, p.email, p.userId] }
    : { sql: sql.member, bindings: [p.teamId, p.userId, p.email, p.userId, p.email] };
}

/** Rows of `meetings as <alias>` the caller may read. */
export function visibleTo(p: Principal, alias = 'meetings'): Where {
  const v = visibleToSql(p, alias);
  return (qb) => qb.whereRaw(v.sql, v.bindings);
}

/** Rows of `meetings as <alias>` the caller may manage (share, revoke, rename, privacy, move, name its speakers). */
export function managedBy(p: Principal, alias = 'meetings'): Where {
  return (qb) => {
    qb.where(`${alias}.team_id`, p.teamId);
    if (!isAdmin(p)) qb.where(`${alias}.organizer_id`, p.userId);
  };
}

/** Rows of `meetings as <alias>` the caller may write to (create soundbites). */
export function writableBy(p: Principal, alias = 'meetings'): Where {
  return (qb) => {
    qb.where(`${alias}.team_id`, p.teamId);
    if (isAdmin(p)) return;
    qb.where((w) => {
      w.where(`${alias}.organizer_id`, p.userId)
        .orWhere((pp) => isParticipant(pp, p, alias))
        .orWhere((cc) => isChannelMember(cc, p, alias));
    });
  };
}

/**
 * Team administration (retention, legal holds, the read audit, rules, another user's live meetings,
 * bypassing the upload size check): a team admin, with a credential carrying the `admin` scope. The
 * role is checked first: a member is told it needs an admin, not a scope.
 */
export function requireAdmin(p: Principal, what: string): void {
  if (!isAdmin(p)) throw elevated(`${what} requires a team admin; ask an admin of your team`);
  requireScope(p, 'admin');
}

/**
 * Voiceprints (a voiceprint is biometric data): a team admin turns them on or off, merges and forgets
 * speaker profiles; any member of the team may list the profiles (never their embeddings); no one
 * outside the team sees them. Naming a speaker, which enrols the voice, follows the meeting's rule.
 */
export function requireVoiceprintAdmin(p: Principal, what: string): void {
  requireAdmin(p, what);
}

/** The team-wide webhook: a super admin, with a credential carrying `admin`. */
export function requireSuperAdmin(p: Principal, what: string): void {
  if (p.role !== 'super_admin') throw elevated(`${what} requires a super admin of your team`);
  requireScope(p, 'admin');
}

export function requireTier(p: Principal, tier: 'enterprise', what: string): void {
  if (p.tier !== tier) {
    throw new ServiceError('paid_required', `${what} requires the Enterprise tier; your team is on ${p.tier}`);
  }
}

export function requireFlag(p: Principal, flag: string, tool: string): void {
  if (!p.flags.includes(flag)) {
    throw new ServiceError(
      'feature_unavailable',
      `${tool} is experimental and not enabled for your team; an operator can enable it with: meeting-intel team flags --team ${p.teamId} --enable ${flag}`,
    );
  }
}

/**
 * Scopes limit what a credential may do of what its user may do: an OAuth token has the scopes
 * granted at consent, an API key those it was created with (meetings:read, meetings:write, admin).
 * One rule for both; the error names the missing scope.
 */
export type CredentialScope = 'meetings:read' | 'meetings:write' | 'admin';
export const CREDENTIAL_SCOPES: readonly CredentialScope[] = ['meetings:read', 'meetings:write', 'admin'];

/** The scopes a user's credentials (keys, OAuth grants) may carry: every one, `admin` only for a team admin. */
export function scopesOfUser(user: Pick<Principal, 'role'>): CredentialScope[] {
  return CREDENTIAL_SCOPES.filter((s) => s !== 'admin' || isAdmin(user));
}

export function requireScope(p: Principal, scope: CredentialScope): void {
  if (p.scopes && !p.scopes.includes(scope)) {
    throw new ServiceError(
      'insufficient_scope',
      `this credential lacks the ${scope} scope; use an API key or sign-in that carries ${scope}`,
      { scope },
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Access governance (docs/operations.md, "API keys and sign-ins"). Everyone manages their own API keys; a new key
// never carries a scope its creator's credential lacks, and `admin` only for team admins. Team admins
// (with a credential carrying `admin`) list and revoke any key of their team, list and end any
// teammate's sign-ins, and deactivate or reactivate teammates. Never across teams.
// ---------------------------------------------------------------------------------------------------

/** The scopes a caller may put on a new key: a subset of its own, `admin` only for team admins. */
export function requireMayGrantScopes(p: Principal, scopes: readonly string[]): void {
  const allowed: readonly string[] = scopesOfUser(p);
  for (const s of scopes) {
    if (!allowed.includes(s)) throw elevated('a key with the admin scope can only be made by a team admin');
    requireScope(p, s as CredentialScope);
  }
}

/** Acting on another user's keys, sign-ins or account: a team admin, with a credential carrying `admin`. */
export function requireTeamGovernor(p: Principal, what: string): void {
  requireAdmin(p, what);
}

/**
 * A key's own call allowance (rate limit): a team admin, with `admin`, for any key of the team, their
 * own included; never a member, who could otherwise raise their own. Other teams' keys are not found.
 */
export function requireKeyAllowanceSetter(p: Principal): void {
  requireAdmin(p, "Setting an API key's rate limit");
}

/** Acting on user <userId>'s keys or sign-ins: themself, or a governor of their team (sameTeam checked by the caller's SQL). */
export function requireMayGovern(p: Principal, userId: string, what: string): void {
  if (userId !== p.userId) requireTeamGovernor(p, what);
}

// ---------------------------------------------------------------------------------------------------
// Channels (added for the channel tools). A channel is visible within its team: public channels to
// every teammate, private ones to their members, every channel to admins. Never across teams.
// ---------------------------------------------------------------------------------------------------

/** Rows of `channels as <alias>` the caller may see (list and read). */
export function channelVisibleTo(p: Principal, alias = 'channels'): Where {
  return (qb) => {
    qb.where(`${alias}.team_id`, p.teamId);
    if (isAdmin(p)) return;
    qb.where((w) =>
      w
        .where(`${alias}.is_private`, false)
        .orWhereExists((sq) =>
          sq
            .select(sq.client.raw('1'))
            .from('channel_members as chm')
            .whereRaw(`chm.channel_id = ${alias}.id`)
            .where('chm.user_id', p.userId),
        ),
    );
  };
}

// ---------------------------------------------------------------------------------------------------
// Soundbites (added for the soundbite tools). A soundbite is visible to its owner; to whoever may read
// its meeting (they can hear the whole meeting anyway); to the meeting's participants when its
// privacies include `participants`; to its team when they include `team`; to anyone with `public`.
// ---------------------------------------------------------------------------------------------------

/** Rows of `soundbites as <sb>` joined to `meetings as <m>` (its meeting) that the caller may see. */
export function soundbiteVisibleTo(p: Principal, sb = 'soundbites', m = 'meetings'): Where {
  return (qb) =>
    qb.where((w) => {
      w.where(`${sb}.owner_id`, p.userId)
        .orWhere((v) => visibleTo(p, m)(v))
        .orWhere((t) => t.where(`${sb}.team_id`, p.teamId).whereRaw(`'team' = any(${sb}.privacies)`))
        .orWhere((pp) => {
          pp.where(`${sb}.team_id`, p.teamId).whereRaw(`'participants' = any(${sb}.privacies)`);
          isParticipant(pp, p, m);
        })
        // `public` opens a clip's share link; in the API it never crosses the team boundary.
        .orWhere((pub) => pub.where(`${sb}.team_id`, p.teamId).whereRaw(`'public' = any(${sb}.privacies)`));
    });
}

/**
 * Soundbites a share link opens on the soundbite page: those with the `public` privacy to anyone,
 * signed in or not (the page is where `public` means public), and to a signed-in viewer whatever
 * soundbiteVisibleTo lets them see.
 */
export function soundbiteOpenByLink(viewer: Principal | null, sb = 'soundbites', m = 'meetings'): Where {
  return (qb) =>
    qb.where((w) => {
      w.whereRaw(`'public' = any(${sb}.privacies)`);
      if (viewer) w.orWhere((v) => soundbiteVisibleTo(viewer, sb, m)(v));
    });
}

// ---------------------------------------------------------------------------------------------------
// Automation rules (added for the rules issue). Rules belong to a team. Managing them (list, read,
// create, update, enable/disable, delete, test) needs the Enterprise tier (else paid_required) and a
// team admin (else require_elevated_privilege); the tier is checked first. Never across teams.
// A rule acts as its author: the admin who last saved it (created_by). When the rule runs, its author
// must still exist, be an admin of the rule's team, and the team must still be on Enterprise;
// otherwise the rule is not run and its execution is recorded `failed` with the reason.
// ---------------------------------------------------------------------------------------------------

export function requireRuleManager(p: Principal, what = 'Managing automation rules'): void {
  requireTier(p, 'enterprise', what);
  requireAdmin(p, what);
}

/** Rows of `rules as <alias>` the caller may manage (after requireRuleManager): their team's. */
export function rulesManagedBy(p: Principal, alias = 'rules'): Where {
  return (qb) => {
    qb.where(`${alias}.team_id`, p.teamId);
  };
}

/** Why a rule's author may not act for it now, as a sentence for the execution log; null when they may. */
export function ruleAuthorRefusal(author: Principal | undefined, ruleTeamId: string): string | null {
  const fix = 'an admin of the team can save the rule again (updateRule) to become its author';
  if (!author) return `the rule's author no longer exists; ${fix}`;
  if (author.teamId !== ruleTeamId)
    return `the rule's author ${author.email} is no longer a member of the team; ${fix}`;
  if (!isAdmin(author)) return `the rule's author ${author.email} is no longer a team admin; ${fix}`;
  if (author.tier !== 'enterprise')
    return `automation rules require the Enterprise tier; the team is on ${author.tier}`;
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Webhooks (docs/webhooks.md). A user's developer settings (saved
// webhook URL and secret) are their own and anyone signed in may set them; their saved webhook fires
// only for meetings they organize (services/core/webhooks/deliveries.ts). The team-wide webhook, and its
// deliveries, belong to the super admins of an Enterprise-tier team: the tier is checked first
// (paid_required), then the role (require_elevated_privilege). Deliveries of per-upload and saved
// webhooks are visible to the user they were made for (the uploader, the organizer) and nobody else.
// ---------------------------------------------------------------------------------------------------

/** Setting, reading or clearing the team-wide webhook, and reading or redelivering its deliveries. */
export function requireTeamWebhookManager(p: Principal): void {
  requireTier(p, 'enterprise', 'A team-wide webhook');
  requireSuperAdmin(p, 'A team-wide webhook');
}

export const canManageTeamWebhook = (p: Principal) => p.tier === 'enterprise' && p.role === 'super_admin';

/**
 * A delivery's target in SQL, for `webhook_deliveries as <alias>`: a V1 delivery keeps it in `target`
 * (as release 0.1.0 reads and writes it), a V2 one in `event_target` with `target` null, so 0.1.0's
 * unique index on (meeting_id, target) holds and 0.1.0 never lists a V2 delivery
 * (platform/migrations/20261202000100_action_items.ts).
 */
export const deliveryTargetSql = (alias: string): string => `coalesce(${alias}.target, ${alias}.event_target)`;

/** Rows of `webhook_deliveries as <alias>` the caller may read and redeliver. */
export function webhookDeliveryVisibleTo(p: Principal, alias = 'webhook_deliveries'): Where {
  return (qb) =>
    qb.where((w) => {
      const target = deliveryTargetSql(alias);
      w.where((own) => own.where(`${alias}.user_id`, p.userId).whereRaw(`${target} <> 'team'`));
      if (canManageTeamWebhook(p))
        w.orWhere((team) => team.where(`${alias}.team_id`, p.teamId).whereRaw(`${target} = 'team'`));
    });
}

// ---------------------------------------------------------------------------------------------------
// Live meetings (docs/live-meetings.md). A live meeting is
// started for an organizer who is a user of the caller's team: by that organizer, or by a team admin
// for anyone of the team. Driving it (append sentences, pause, resume, end) is for its organizer or
// an admin of its team; another team's meeting is never found. Reading it follows visibleTo.
// ---------------------------------------------------------------------------------------------------

export function requireMayStartLiveMeetingFor(p: Principal, organizerUserId: string): void {
  if (organizerUserId !== p.userId) requireAdmin(p, 'Starting a live meeting for another organizer');
}

/** Rows of `meetings as <alias>` the caller may drive as a live meeting. */
export function liveMeetingDrivenBy(p: Principal, alias = 'meetings'): Where {
  return (qb) => {
    qb.where(`${alias}.team_id`, p.teamId);
    if (!isAdmin(p)) qb.where(`${alias}.organizer_id`, p.userId);
  };
}
