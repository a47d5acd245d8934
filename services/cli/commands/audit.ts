/**
 * `meeting-intel audit reads`: who read which meeting of a team, newest first, for operators (the
 * GraphQL readAudit is the same list for team admins). Filters: --user (id or email), --meeting,
 * --since (ISO 8601 or a duration back from now: 7d, 12h); --limit 1-500 and --cursor page it.
 */
import { listTeamReads } from '../../core/audit';
import { parseDuration } from '../../platform/duration';
import { required, UsageError, type Parsed } from '../args';
import type { CommandContext } from '../context';

function since(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const ago = /[a-z]$/i.test(raw) ? parseDuration(raw) : undefined;
  if (ago !== undefined) return new Date(Date.now() - ago);
  const d = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(d.getTime()))
    throw new UsageError(
      '--since must be an ISO 8601 date-time (2026-11-21T09:00:00Z) or a duration back from now (7d, 12h)',
    );
  return d;
}

function limit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError('--limit must be a whole number from 1 to 500');
  return Number(raw);
}

export async function auditReads(ctx: CommandContext, p: Parsed): Promise<void> {
  const db = ctx.db();
  const teamId = required(p, 'team');
  let userId = p.values.user as string | undefined;
  if (userId?.includes('@')) {
    const u = await db('users').where({ team_id: teamId }).whereRaw('lower(email) = lower(?)', [userId]).first('id');
    if (!u) throw new UsageError(`--user ${userId}: no such user in team ${teamId}`);
    userId = u.id;
  }
  const page = await listTeamReads(db, teamId, {
    userId,
    meetingId: p.values.meeting as string | undefined,
    since: since(p.values.since as string | undefined),
    limit: limit(p.values.limit as string | undefined),
    cursor: p.values.cursor as string | undefined,
  });
  const lines = page.reads.map(
    (r) => `${r.read_at}  ${r.user_email ?? r.user_id ?? '(anonymous)'}  ${r.meeting_id}  ${r.surface}`,
  );
  lines.push(page.has_more ? `more: --cursor ${page.next_cursor}` : page.reads.length ? '(end)' : '(no reads)');
  ctx.out.result({ ...page }, lines.join('\n'));
}
