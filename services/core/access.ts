/**
 * Who may see and change what. Every rule lives here once, as SQL filters that both lists and
 * single-object reads use, so a list can never show what a direct read would refuse.
 *
 * Visibility of a meeting to a caller:
 *   - never across teams, admins included, except through an explicit, active share to the caller's email;
 *   - within the team: admins see every meeting; the organizer always; privacy `link`, `teammates` and
 *     `teammatesandparticipants` open it to teammates; `participants` to its participants only;
 *     `owner` to the organizer only; members of the meeting's channel see it unless privacy is `owner`.
 * Managing a meeting (share, revoke, rename, privacy, move): its organizer or an admin of its team.
 * Write access (soundbites): whoever manages it, its participants, and members of its channel.
 */
import type { Knex } from 'knex';
import { ServiceError, elevated } from './errors';
import { isAdmin, Principal } from './principal';

type Where = (qb: Knex.QueryBuilder) => void;

/** An active share of the meeting (`m` alias) to the caller's email. */
function hasActiveShare(qb: Knex.QueryBuilder, p: Principal, alias: string) {
  qb.whereExists((sq) =>
    sq
      .select(sq.client.raw('1'))
      .from('meeting_shares as sh')
      .whereRaw(`sh.meeting_id = ${alias}.id`)
      .whereRaw('lower(sh.email) = lower(?)', [p.email])
      .whereNull('sh.revoked_at')
      .where((w) => w.whereNull('sh.expires_at').orWhereRaw('sh.expires_at > now()')),
  );
}

function isParticipant(qb: Knex.QueryBuilder, p: Principal, alias: string) {
  qb.whereExists((sq) =>
    sq
      .select(sq.client.raw('1'))
      .from('meeting_participants as mp')
      .whereRaw(`mp.meeting_id = ${alias}.id`)
      .whereRaw('lower(mp.email) = lower(?)', [p.email]),
  );
}

function isChannelMember(qb: Knex.QueryBuilder, p: Principal, alias: string) {
  qb.whereExists((sq) =>
    sq
      .select(sq.client.raw('1'))
      .from('channel_members as cm')
      .whereRaw(`cm.channel_id = ${alias}.channel_id`)
      .where('cm.user_id', p.userId),
  );
}

/** Rows of `meetings as <alias>` the caller may read. */
export function visibleTo(p: Principal, alias = 'meetings'): Where {
  return (qb) =>
    qb.where((outer) => {
      outer.where((team) => {
        team.where(`${alias}.team_id`, p.teamId);
        if (isAdmin(p)) return;
        team.where((w) => {
          w.where(`${alias}.organizer_id`, p.userId)
            .orWhereIn(`${alias}.privacy`, ['link', 'teammates', 'teammatesandparticipants'])
            .orWhere((pp) => {
              pp.where(`${alias}.privacy`, 'participants');
              isParticipant(pp, p, alias);
            })
            .orWhere((cc) => {
              cc.whereNot(`${alias}.privacy`, 'owner');
              isChannelMember(cc, p, alias);
            });
        });
      });
      outer.orWhere((s) => hasActiveShare(s, p, alias));
    });
}

/** Rows of `meetings as <alias>` the caller may manage (share, revoke, rename, privacy, move). */
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

export function requireAdmin(p: Principal, what: string): void {
  if (!isAdmin(p)) throw elevated(`${what} requires a team admin; ask an admin of your team`);
}

export function requireSuperAdmin(p: Principal, what: string): void {
  if (p.role !== 'super_admin') throw elevated(`${what} requires a super admin of your team`);
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

/** OAuth tokens carry scopes; API keys act with every scope of their user. */
export function requireScope(p: Principal, scope: 'meetings:read' | 'meetings:write'): void {
  if (p.scopes && !p.scopes.includes(scope)) {
    throw new ServiceError('forbidden', `this sign-in lacks the ${scope} scope; sign in again granting it`);
  }
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
      w.where(`${alias}.is_private`, false).orWhereExists((sq) =>
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
