/**
 * Managing a meeting: share, revoke, rename, change privacy, move to a channel. Only its organizer or
 * an admin of its team may (access.managedBy). A meeting the caller cannot see is not found; one they
 * can see but not manage is forbidden with a message saying who may.
 *
 * Automation rules call these too (and retry), so every change is idempotent where it can be, runs in
 * one transaction with its audit_log row, and knows nothing of MCP or GraphQL.
 */
import type { Knex } from 'knex';
import { channelVisibleTo, managedBy, visibleTo, type Principal } from '../access';
import { audit } from '../audit';
import { forbidden, invalid, notFound } from '../../platform/errors';
import { newId, requireEmail, requireLength, requireOneOf } from '../input';

// ---------------------------------------------------------------------------------------------------
// Limits and values (the transports' schemas state the same)
// ---------------------------------------------------------------------------------------------------

export const SHARE_MAX_EMAILS = 100;
export const SHARE_EXPIRY_DAYS = [7, 14, 30] as const;
export const TITLE_LENGTH = { min: 5, max: 256 } as const;
export const PRIVACIES = ['link', 'owner', 'participants', 'teammatesandparticipants', 'teammates'] as const;
export type Privacy = (typeof PRIVACIES)[number];
export const MOVE_MAX_MEETINGS = 5;

// ---------------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------------

export interface ShareRecord {
  email: string;
  /** ISO 8601, or null for a share that never expires. */
  expires_at: string | null;
  /** added: a new share · updated: the email already had a share, whose expiry was set anew. */
  change: 'added' | 'updated';
}

export interface ShareResult {
  success: true;
  meetingId: string;
  shares: ShareRecord[];
}

export interface RevokeResult {
  success: true;
  meetingId: string;
  email: string;
  /** Active shares revoked: 0 when the email had none (nothing changed). */
  revoked: number;
  message: string;
}

export interface TitleResult {
  success: true;
  meetingId: string;
  title: string;
  previous_title: string;
}

export interface PrivacyResult {
  success: true;
  meetingId: string;
  privacy: Privacy;
  previous_privacy: string;
}

export interface MovedRecord {
  meetingId: string;
  title: string;
  previous_channel_id: string | null;
}

export interface MoveResult {
  success: true;
  channelId: string;
  channel_title: string;
  moved: MovedRecord[];
}

// ---------------------------------------------------------------------------------------------------
// Who may
// ---------------------------------------------------------------------------------------------------

interface ManagedMeeting {
  id: string;
  team_id: string;
  title: string;
  privacy: string;
  channel_id: string | null;
  organizer_email: string;
}

const WHO_MAY = 'only its organizer or an admin of its team may';

/** Why the caller may not manage this meeting: not found unless they can see it, else forbidden. */
async function refusal(trx: Knex.Transaction, p: Principal, id: string, action: string) {
  const seen = await trx('meetings as m').modify(visibleTo(p, 'm')).where('m.id', id).first('m.organizer_email');
  if (!seen) return notFound('meeting', id);
  return forbidden(
    `you may not ${action} meeting ${JSON.stringify(id)}: ${WHO_MAY} (organizer: ${seen.organizer_email})`,
  );
}

/** The meetings, locked for the change, or the first refusal; nothing is changed unless all pass. */
export async function lockManaged(
  trx: Knex.Transaction,
  p: Principal,
  ids: string[],
  action: string,
): Promise<ManagedMeeting[]> {
  const rows: ManagedMeeting[] = await trx('meetings as m')
    .modify(managedBy(p, 'm'))
    .whereIn('m.id', ids)
    .orderBy('m.id')
    .forUpdate()
    .select('m.id', 'm.team_id', 'm.title', 'm.privacy', 'm.channel_id', 'm.organizer_email');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const refused = [];
  for (const id of ids.filter((i) => !byId.has(i))) refused.push(await refusal(trx, p, id, action));
  // Not found first: a forbidden for one id must not hint that a sibling id exists.
  const first = refused.find((e) => e.code === 'object_not_found') ?? refused[0];
  if (first) throw first;
  return ids.map((id) => byId.get(id)!);
}

/** shared_by is a user; a system principal (automation) that is not one leaves it empty. */
const actorUserId = (trx: Knex.Transaction, p: Principal) => trx.raw('(select id from users where id = ?)', [p.userId]);

export function requireMeetingId(field: string, id: string): string {
  const v = (id ?? '').trim();
  if (!v) throw invalid(field, 'must not be empty', `${field} must not be empty`);
  return v;
}

// ---------------------------------------------------------------------------------------------------
// Share and revoke
// ---------------------------------------------------------------------------------------------------

function shareEmails(emails: string[]): string[] {
  if (!Array.isArray(emails) || emails.length < 1 || emails.length > SHARE_MAX_EMAILS) {
    throw invalid(
      'emails',
      `1 to ${SHARE_MAX_EMAILS} email addresses`,
      `emails must list 1 to ${SHARE_MAX_EMAILS} email addresses; got ${Array.isArray(emails) ? emails.length : 0}`,
    );
  }
  // Case-insensitively distinct, in the order given.
  return [...new Set(emails.map((e, i) => requireEmail(`emails.${i}`, e)))];
}

function expiryOf(expiryDays: number | undefined, now: Date): Date | null {
  if (expiryDays === undefined || expiryDays === null) return null;
  if (!(SHARE_EXPIRY_DAYS as readonly number[]).includes(expiryDays)) {
    throw invalid(
      'expiryDays',
      'one of 7, 14, 30',
      `expiryDays must be one of 7, 14, 30 (days), or omitted for no expiry; got ${expiryDays}`,
    );
  }
  return new Date(now.getTime() + expiryDays * 86_400_000);
}

/**
 * Share a meeting with email addresses, optionally for 7, 14 or 30 days. Sharing again with an email
 * that already has an unrevoked share sets its expiry anew instead of adding a row, so retries and
 * repeated rules never pile up duplicates.
 */
export async function shareMeeting(
  db: Knex,
  p: Principal,
  input: { meetingId: string; emails: string[]; expiryDays?: number },
): Promise<ShareResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const emails = shareEmails(input.emails);
  const expiresAt = expiryOf(input.expiryDays, new Date());
  return db.transaction(async (trx) => {
    // The meeting row lock serializes concurrent shares of one meeting, so an email gets one row.
    const [m] = await lockManaged(trx, p, [meetingId], 'share');
    const existing: { id: string; email: string }[] = await trx('meeting_shares')
      .where('meeting_id', m.id)
      .whereNull('revoked_at')
      .whereRaw('lower(email) = any(?)', [emails])
      .select('id', trx.raw('lower(email) as email'));
    const have = new Map<string, string[]>();
    for (const r of existing) have.set(r.email, [...(have.get(r.email) ?? []), r.id]);

    const shares: ShareRecord[] = [];
    const fresh = emails.filter((e) => !have.has(e));
    if (fresh.length) {
      await trx('meeting_shares').insert(
        fresh.map((email) => ({
          id: newId(),
          meeting_id: m.id,
          email,
          shared_by: actorUserId(trx, p),
          expires_at: expiresAt,
        })),
      );
    }
    const renewed = emails.filter((e) => have.has(e));
    if (renewed.length) {
      await trx('meeting_shares')
        .whereIn(
          'id',
          renewed.flatMap((e) => have.get(e)!),
        )
        .update({ expires_at: expiresAt });
    }
    const iso = expiresAt ? expiresAt.toISOString() : null;
    for (const email of emails) shares.push({ email, expires_at: iso, change: have.has(email) ? 'updated' : 'added' });
    await audit(
      trx,
      p,
      'meeting.share',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      { emails, expires_at: iso, added: fresh, updated: renewed },
    );
    return { success: true as const, meetingId: m.id, shares };
  });
}

/**
 * Revoke the active shares of one email. An email without one is answered with revoked: 0 and a
 * message, not an error: the end state the caller asked for holds, and a retried rule must not fail.
 */
export async function revokeMeetingAccess(
  db: Knex,
  p: Principal,
  input: { meetingId: string; email: string },
): Promise<RevokeResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const email = requireEmail('email', input.email ?? '');
  return db.transaction(async (trx) => {
    const [m] = await lockManaged(trx, p, [meetingId], 'revoke access to');
    const ids: { id: string }[] = await trx('meeting_shares')
      .where('meeting_id', m.id)
      .whereRaw('lower(email) = ?', [email])
      .whereNull('revoked_at')
      .where((w) => w.whereNull('expires_at').orWhereRaw('expires_at > now()'))
      .update({ revoked_at: trx.fn.now() })
      .returning('id');
    if (ids.length === 0) {
      return {
        success: true as const,
        meetingId: m.id,
        email,
        revoked: 0,
        message: `${email} had no active share of this meeting; nothing changed`,
      };
    }
    await audit(
      trx,
      p,
      'meeting.revoke_access',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      { email, revoked: ids.length },
    );
    return {
      success: true as const,
      meetingId: m.id,
      email,
      revoked: ids.length,
      message: `${email} no longer has shared access to this meeting`,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// Title and privacy
// ---------------------------------------------------------------------------------------------------

/** Rename a meeting; the title is trimmed and must then be 5 to 256 characters. */
export async function updateMeetingTitle(
  db: Knex,
  p: Principal,
  input: { meetingId: string; title: string },
): Promise<TitleResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const title = requireLength('title', (input.title ?? '').trim(), TITLE_LENGTH.min, TITLE_LENGTH.max);
  return db.transaction(async (trx) => {
    const [m] = await lockManaged(trx, p, [meetingId], 'rename');
    await trx('meetings').where('id', m.id).update({ title, updated_at: trx.fn.now() });
    await audit(
      trx,
      p,
      'meeting.update_title',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      { from: m.title, to: title },
    );
    return { success: true as const, meetingId: m.id, title, previous_title: m.title };
  });
}

/** Set who can see a meeting (see access.visibleTo for what each value opens). */
export async function updateMeetingPrivacy(
  db: Knex,
  p: Principal,
  input: { meetingId: string; privacy: string },
): Promise<PrivacyResult> {
  const meetingId = requireMeetingId('meetingId', input.meetingId);
  const privacy = requireOneOf('privacy', input.privacy, PRIVACIES);
  return db.transaction(async (trx) => {
    const [m] = await lockManaged(trx, p, [meetingId], 'change the privacy of');
    await trx('meetings').where('id', m.id).update({ privacy, updated_at: trx.fn.now() });
    await audit(
      trx,
      p,
      'meeting.update_privacy',
      { type: 'meeting', id: m.id, teamId: m.team_id },
      { from: m.privacy, to: privacy },
    );
    return { success: true as const, meetingId: m.id, privacy, previous_privacy: m.privacy };
  });
}

// ---------------------------------------------------------------------------------------------------
// Move
// ---------------------------------------------------------------------------------------------------

function moveIds(ids: string[]): string[] {
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MOVE_MAX_MEETINGS) {
    throw invalid(
      'meetingIds',
      `1 to ${MOVE_MAX_MEETINGS} meeting ids`,
      `meetingIds must list 1 to ${MOVE_MAX_MEETINGS} meeting ids; got ${Array.isArray(ids) ? ids.length : 0}`,
    );
  }
  const trimmed = ids.map((id, i) => requireMeetingId(`meetingIds.${i}`, id));
  if (new Set(trimmed).size !== trimmed.length)
    throw invalid('meetingIds', 'distinct ids', 'meetingIds must not repeat an id');
  return trimmed;
}

/**
 * Move 1 to 5 meetings into a channel of the caller's team that they can see. All of them must be
 * manageable by the caller, or none moves.
 */
export async function moveMeetings(
  db: Knex,
  p: Principal,
  input: { meetingIds: string[]; channelId: string },
): Promise<MoveResult> {
  const ids = moveIds(input.meetingIds);
  const channelId = requireMeetingId('channelId', input.channelId);
  return db.transaction(async (trx) => {
    const channel = await trx('channels as c')
      .modify(channelVisibleTo(p, 'c'))
      .where('c.id', channelId)
      .first('c.id', 'c.title');
    if (!channel) throw notFound('channel', channelId);
    // Both rules keep to the caller's team, so meeting and channel are always of one team.
    const meetings = await lockManaged(trx, p, ids, 'move');
    await trx('meetings').whereIn('id', ids).update({ channel_id: channel.id, updated_at: trx.fn.now() });
    for (const m of meetings) {
      await audit(
        trx,
        p,
        'meeting.move',
        { type: 'meeting', id: m.id, teamId: m.team_id },
        { from: m.channel_id, to: channel.id },
      );
    }
    return {
      success: true as const,
      channelId: channel.id,
      channel_title: channel.title,
      moved: meetings.map((m) => ({ meetingId: m.id, title: m.title, previous_channel_id: m.channel_id })),
    };
  });
}
