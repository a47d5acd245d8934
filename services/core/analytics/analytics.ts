/**
 * Team and per-user conversation analytics over a time window, compared with the window of equal
 * length just before it. Aggregates the per-meeting rows the analyze step stored (meeting_analytics,
 * speaker_analytics) of the team's completed meetings; a speaker counts for a user through its email.
 *
 * Team totals and other users' rows require a team admin; a member gets their own row only.
 */
import type { Knex } from 'knex';
import { invalid } from '../../platform/errors';
import { isAdmin, Principal } from '../access';
import type { Page } from '../meetings';

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 30;
/** Bounds the comparison window too (it reaches as far back again), keeping both in a sane range. */
export const MAX_WINDOW_DAYS = 3660;
/** Rows of the users table; a team with more active speakers says has_more. */
export const ANALYTICS_USER_CAP = 200;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO 8601 date-time with a zone (Z or ±hh:mm) naming a real calendar day. */
export function requireDateTime(field: string, value: string): Date {
  const m = DATE_TIME.exec(value.trim());
  const rule = 'must be an ISO 8601 date-time with a time zone, like 2026-11-01T09:00:00Z';
  if (!m) throw invalid(field, rule, `${field}: ${JSON.stringify(value)} ${rule}`);
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  const realDay = day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
  const at = new Date(value.trim());
  if (!realDay || h > 23 || mi > 59 || Number.isNaN(at.getTime()))
    throw invalid(field, rule, `${field}: ${JSON.stringify(value)} is not a real date and time`);
  return at;
}

export interface AnalyticsWindow {
  start: Date;
  end: Date;
  previousStart: Date;
}

/** The window asked for (defaults: the 30 days ending now) and the equally long one before it. */
export function analyticsWindow(args: { startTime?: string; endTime?: string }, now = new Date()): AnalyticsWindow {
  const end = args.endTime !== undefined ? requireDateTime('endTime', args.endTime) : now;
  const start =
    args.startTime !== undefined
      ? requireDateTime('startTime', args.startTime)
      : new Date(end.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
  if (start.getTime() >= end.getTime()) {
    throw invalid(
      'startTime',
      'must be before endTime',
      `startTime (${start.toISOString()}) must be before endTime (${end.toISOString()}; now when omitted)`,
    );
  }
  if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    throw invalid(
      'startTime',
      `window at most ${MAX_WINDOW_DAYS} days`,
      `startTime to endTime may span at most ${MAX_WINDOW_DAYS} days; ask for several windows instead`,
    );
  }
  return { start, end, previousStart: new Date(start.getTime() - (end.getTime() - start.getTime())) };
}

/** The metrics, in the order they are listed. */
export const METRICS = [
  'meetings',
  'total_duration_minutes',
  'average_duration_minutes',
  'filler_words',
  'questions',
  'monologues',
  'sentiment_positive_pct',
  'sentiment_neutral_pct',
  'sentiment_negative_pct',
  'talk_listen_ratio',
  'words_per_minute',
] as const;
export type Metric = (typeof METRICS)[number];
type Values = Record<Metric, number | null>;

export interface TeamMetricRow {
  metric: Metric;
  value: number | null;
  previous: number | null;
  change_pct: number | null;
}

/** One user's metrics in the window, each followed by its change against the previous window. */
export type UserAnalyticsRow = { user_id: string; email: string; name: string } & Record<
  Metric | `${Metric}_change_pct`,
  number | null
>;

export interface AnalyticsResult extends Page {
  period: { start: string; end: string; previous_start: string; previous_end: string; days: number };
  /** `team` for admins; `self` for members, who see only their own row. */
  scope: 'team' | 'self';
  team: TeamMetricRow[] | null;
  users: UserAnalyticsRow[];
  note?: string;
}

const round = (n: number | null, digits: number) =>
  n === null || !Number.isFinite(n) ? null : Math.round(n * 10 ** digits) / 10 ** digits;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** Percent difference against the previous window; null when there is nothing to compare with. */
export function changePct(value: number | null, previous: number | null): number | null {
  if (value === null || previous === null || previous === 0) return null;
  return round(((value - previous) / Math.abs(previous)) * 100, 1);
}

/** Raw sums of one period, as both queries return them. */
interface Sums {
  meetings: unknown;
  seconds: unknown;
  fillers: unknown;
  questions: unknown;
  monologues: unknown;
  positive: unknown;
  neutral: unknown;
  negative: unknown;
  talk_listen_ratio: unknown;
  words: unknown;
  talk_seconds: unknown;
}

function toValues(s: Sums | undefined): Values {
  const meetings = Number(s?.meetings ?? 0);
  const seconds = Number(s?.seconds ?? 0);
  const talk = Number(s?.talk_seconds ?? 0);
  return {
    meetings,
    total_duration_minutes: round(seconds / 60, 1),
    average_duration_minutes: meetings ? round(seconds / 60 / meetings, 1) : null,
    filler_words: Number(s?.fillers ?? 0),
    questions: Number(s?.questions ?? 0),
    monologues: Number(s?.monologues ?? 0),
    sentiment_positive_pct: round(num(s?.positive), 1),
    sentiment_neutral_pct: round(num(s?.neutral), 1),
    sentiment_negative_pct: round(num(s?.negative), 1),
    talk_listen_ratio: round(num(s?.talk_listen_ratio), 2),
    words_per_minute: talk > 0 ? round(Number(s?.words ?? 0) / (talk / 60), 1) : null,
  };
}

/** The team's completed meetings of both windows, labelled by window (shared by both queries). */
function windowedMeetings(db: Knex, p: Principal, w: AnalyticsWindow) {
  return db('meetings as m')
    .leftJoin('meeting_analytics as ma', 'ma.meeting_id', 'm.id')
    .where('m.team_id', p.teamId)
    .where('m.status', 'completed')
    .where('m.date', '>=', w.previousStart)
    .where('m.date', '<', w.end)
    .select('m.id', db.raw("case when m.date >= ? then 'current' else 'previous' end as period", [w.start]))
    .select(db.raw('coalesce(ma.duration_seconds, m.duration_seconds) as dur'))
    .select(
      'ma.talk_listen_ratio',
      'ma.positive_pct',
      'ma.neutral_pct',
      'ma.negative_pct',
      db.raw('ma.meeting_id is not null as analyzed'),
    );
}

/** Team totals of both windows in one statement: meeting-level sums joined with speaker-level sums. */
async function teamSums(db: Knex, p: Principal, w: AnalyticsWindow): Promise<Map<string, Sums>> {
  const rows: (Sums & { period: string })[] = await db
    .with('win', windowedMeetings(db, p, w))
    .with('spk', (qb) =>
      qb
        .from('win')
        .join('speaker_analytics as sa', 'sa.meeting_id', 'win.id')
        .groupBy('win.period')
        .select('win.period')
        .select(
          db.raw(
            'sum(sa.filler_words) as fillers, sum(sa.questions) as questions, sum(sa.monologues_count) as monologues',
          ),
        )
        .select(db.raw('sum(sa.word_count) as words, sum(sa.duration) as talk_seconds')),
    )
    .with('mt', (qb) =>
      qb
        .from('win')
        .groupBy('win.period')
        .select('win.period', db.raw('count(*) as meetings, sum(win.dur) as seconds'))
        // Sentiment weighted by meeting length, so a five-minute call does not count as much as an hour.
        .select(
          db.raw(
            ['positive', 'neutral', 'negative']
              .map(
                (k) =>
                  `sum(win.${k}_pct * win.dur) filter (where win.analyzed) / nullif(sum(win.dur) filter (where win.analyzed), 0) as ${k}`,
              )
              .join(', '),
          ),
        )
        .select(db.raw('avg(win.talk_listen_ratio) as talk_listen_ratio')),
    )
    .from('mt')
    .leftJoin('spk', 'spk.period', 'mt.period')
    .select('mt.*', 'spk.fillers', 'spk.questions', 'spk.monologues', 'spk.words', 'spk.talk_seconds');
  return new Map(rows.map((r) => [r.period, r]));
}

/**
 * Per-user sums of both windows in one statement. A user's talk-listen ratio is their speaking time
 * over everyone else's in the same meetings; sentiment is weighted by their speaking time.
 */
async function userSums(db: Knex, p: Principal, w: AnalyticsWindow, onlyUserId?: string) {
  const rows: (Sums & { period: string; user_id: string; email: string; name: string; listen_seconds: unknown })[] =
    await db
      .with('win', windowedMeetings(db, p, w))
      .with('spk', (qb) =>
        qb
          .from('win')
          .join('speaker_analytics as sa', 'sa.meeting_id', 'win.id')
          .select('win.period', 'win.id as meeting_id', 'win.dur', db.raw('lower(sa.email) as email'))
          .select(
            'sa.duration',
            'sa.word_count',
            'sa.filler_words',
            'sa.questions',
            'sa.monologues_count',
            'sa.positive_pct',
            'sa.neutral_pct',
            'sa.negative_pct',
          )
          .select(db.raw('sum(sa.duration) over (partition by sa.meeting_id) as meeting_talk')),
      )
      // One row per user per meeting, in case a person was split into two speakers.
      .with('pm', (qb) =>
        qb
          .from('spk')
          .whereNotNull('spk.email')
          .groupBy('spk.period', 'spk.meeting_id', 'spk.email')
          .select('spk.period', 'spk.meeting_id', 'spk.email')
          .select(db.raw('max(spk.dur) as dur, max(spk.meeting_talk) as meeting_talk, sum(spk.duration) as talk'))
          .select(
            db.raw(
              'sum(spk.word_count) as words, sum(spk.filler_words) as fillers, sum(spk.questions) as questions, sum(spk.monologues_count) as monologues',
            ),
          )
          .select(
            db.raw(
              'sum(spk.positive_pct * spk.duration) as pos_w, sum(spk.neutral_pct * spk.duration) as neu_w, sum(spk.negative_pct * spk.duration) as neg_w',
            ),
          ),
      )
      .from('pm')
      .join('users as u', (j) => j.on(db.raw('lower(u.email) = pm.email')).andOnVal('u.team_id', '=', p.teamId))
      .modify((qb) => {
        if (onlyUserId) qb.where('u.id', onlyUserId);
      })
      .groupBy('u.id', 'u.email', 'u.name', 'pm.period')
      .select('u.id as user_id', db.raw('lower(u.email) as email'), 'u.name', 'pm.period')
      .select(
        db.raw(
          'count(*) as meetings, sum(pm.dur) as seconds, sum(pm.fillers) as fillers, sum(pm.questions) as questions, sum(pm.monologues) as monologues',
        ),
      )
      .select(
        db.raw(
          'sum(pm.words) as words, sum(pm.talk) as talk_seconds, sum(pm.meeting_talk - pm.talk) as listen_seconds',
        ),
      )
      .select(
        db.raw(
          'sum(pm.pos_w) / nullif(sum(pm.talk), 0) as positive, sum(pm.neu_w) / nullif(sum(pm.talk), 0) as neutral, sum(pm.neg_w) / nullif(sum(pm.talk), 0) as negative',
        ),
      )
      .select(db.raw('sum(pm.talk) / nullif(sum(pm.meeting_talk - pm.talk), 0) as talk_listen_ratio'));
  return rows;
}

function userRow(
  user: { user_id: string; email: string; name: string },
  current: Values,
  previous: Values,
): UserAnalyticsRow {
  const row: Record<string, unknown> = { user_id: user.user_id, email: user.email, name: user.name };
  for (const m of METRICS) {
    row[m] = current[m];
    row[`${m}_change_pct`] = changePct(current[m], previous[m]);
  }
  return row as UserAnalyticsRow;
}

/** Analytics of the caller's team (admins) or of the caller alone (members), with period comparison. */
export async function getAnalytics(
  db: Knex,
  p: Principal,
  args: { startTime?: string; endTime?: string },
  now = new Date(),
): Promise<AnalyticsResult> {
  const w = analyticsWindow(args, now);
  const admin = isAdmin(p);
  const period = {
    start: w.start.toISOString(),
    end: w.end.toISOString(),
    previous_start: w.previousStart.toISOString(),
    previous_end: w.start.toISOString(),
    days: round((w.end.getTime() - w.start.getTime()) / DAY_MS, 2) as number,
  };

  let team: TeamMetricRow[] | null = null;
  if (admin) {
    const sums = await teamSums(db, p, w);
    const current = toValues(sums.get('current'));
    const previous = toValues(sums.get('previous'));
    team = METRICS.map((metric) => ({
      metric,
      value: current[metric],
      previous: previous[metric],
      change_pct: changePct(current[metric], previous[metric]),
    }));
  }

  const rows = await userSums(db, p, w, admin ? undefined : p.userId);
  const byUser = new Map<
    string,
    { user: { user_id: string; email: string; name: string }; current?: Sums; previous?: Sums }
  >();
  for (const r of rows) {
    const entry = byUser.get(r.user_id) ?? { user: { user_id: r.user_id, email: r.email, name: r.name } };
    entry[r.period === 'current' ? 'current' : 'previous'] = r;
    byUser.set(r.user_id, entry);
  }
  // A member always gets their own row, zeros included, so "no meetings" is an answer and not a gap.
  if (!admin && !byUser.has(p.userId))
    byUser.set(p.userId, { user: { user_id: p.userId, email: p.email.toLowerCase(), name: p.name } });

  const users = [...byUser.values()]
    .map((e) => userRow(e.user, toValues(e.current), toValues(e.previous)))
    .sort((a, b) => (b.meetings ?? 0) - (a.meetings ?? 0) || a.email.localeCompare(b.email));

  const result: AnalyticsResult = {
    period,
    scope: admin ? 'team' : 'self',
    team,
    users: users.slice(0, ANALYTICS_USER_CAP),
    has_more: users.length > ANALYTICS_USER_CAP,
  };
  if (!admin) result.note = 'Team totals and other users need a team admin; these are your own analytics.';
  return result;
}
