/**
 * Soundbites: named clips of a meeting. Anyone who can write to a meeting (access.writableBy) may clip
 * it; who sees a clip is access.soundbiteVisibleTo (owner, readers of the meeting, its privacies).
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { soundbiteVisibleTo, visibleTo, writableBy, type Principal } from '../access';
import { audit, recordReads } from '../audit';
import { forbidden, invalid, notFound, ServiceError } from '../../platform/errors';
import { newId, requireLength, requireOneOf } from '../input';
import type { Page } from '../meetings';

export const SOUNDBITE_LIST = { defaultLimit: 10, maxLimit: 50 } as const;
export const SOUNDBITE_NAME_MAX = 256;
export const SOUNDBITE_SUMMARY_MAX = 500;
export const MEDIA_TYPES = ['audio', 'video'] as const;
export const SOUNDBITE_PRIVACIES = ['public', 'team', 'participants'] as const;
/** Words of speech a default name is made of. */
const DEFAULT_NAME_WORDS = 8;

export interface SoundbiteRecord {
  id: string;
  transcript_id: string;
  meeting_title: string;
  name: string;
  start_time: number;
  end_time: number;
  summary: string | null;
  media_type: string;
  /** Comma-separated: public, team, participants. */
  privacies: string;
  created_at: string;
  share_url: string;
}

export interface SoundbiteList extends Page {
  soundbites: SoundbiteRecord[];
}

export interface ListSoundbitesInput {
  transcript_id?: string;
  mine?: boolean;
  my_team?: boolean;
  limit?: number;
  skip?: number;
}

export interface CreateSoundbiteInput {
  transcriptId: string;
  startTime: number;
  endTime: number;
  name?: string;
  mediaType?: string;
  privacies?: string[];
  summary?: string;
}

export const shareUrl = (config: Pick<Config, 'publicBaseUrl'>, id: string) =>
  `${config.publicBaseUrl}/soundbites/${encodeURIComponent(id)}`;

interface SoundbiteRow extends Pick<
  SoundbiteRecord,
  'id' | 'meeting_title' | 'name' | 'start_time' | 'end_time' | 'summary' | 'media_type'
> {
  meeting_id: string;
  /** The meeting's team (lists only), for the read audit. */
  meeting_team_id?: string;
  privacies: string[];
  created_at: Date;
}

function toRecord(config: Pick<Config, 'publicBaseUrl'>, r: SoundbiteRow): SoundbiteRecord {
  return {
    id: r.id,
    transcript_id: r.meeting_id,
    meeting_title: r.meeting_title,
    name: r.name,
    start_time: Number(r.start_time),
    end_time: Number(r.end_time),
    summary: r.summary,
    media_type: r.media_type,
    privacies: r.privacies.join(', '),
    created_at: new Date(r.created_at).toISOString(),
    share_url: shareUrl(config, r.id),
  };
}

const COLUMNS = [
  'sb.id',
  'sb.meeting_id',
  'm.team_id as meeting_team_id',
  'm.title as meeting_title',
  'sb.name',
  'sb.start_time',
  'sb.end_time',
  'sb.summary',
  'sb.media_type',
  'sb.privacies',
  'sb.created_at',
];

function wholeNumber(field: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw invalid(
      field,
      `a whole number from ${min} to ${max}`,
      `${field} must be a whole number from ${min} to ${max}; got ${v}`,
    );
  return v;
}

// ---------------------------------------------------------------------------------------------------
// List
// ---------------------------------------------------------------------------------------------------

/**
 * Soundbites the caller may see, newest first, narrowed by every filter given: one meeting
 * (transcript_id), the caller's own (mine: true), their team's (my_team: true). At least one is required.
 */
export async function listSoundbites(
  db: Knex,
  config: Config,
  p: Principal,
  input: ListSoundbitesInput,
): Promise<SoundbiteList> {
  const transcriptId = input.transcript_id?.trim();
  if (!transcriptId && input.mine !== true && input.my_team !== true) {
    throw new ServiceError(
      'args_required',
      'give at least one of transcript_id (a meeting id), mine: true or my_team: true',
      {
        field: 'mine, transcript_id, my_team',
        rule: 'at least one of mine, transcript_id, my_team',
      },
    );
  }
  const limit = wholeNumber('limit', input.limit ?? SOUNDBITE_LIST.defaultLimit, 1, SOUNDBITE_LIST.maxLimit);
  const skip = wholeNumber('skip', input.skip ?? 0, 0, Number.MAX_SAFE_INTEGER);

  const q = db('soundbites as sb')
    .join('meetings as m', 'm.id', 'sb.meeting_id')
    .modify(soundbiteVisibleTo(p, 'sb', 'm'));
  if (transcriptId) q.where('sb.meeting_id', transcriptId);
  if (input.mine === true) q.where('sb.owner_id', p.userId);
  if (input.my_team === true) q.where('sb.team_id', p.teamId);
  const rows: SoundbiteRow[] = await q
    .orderBy([
      { column: 'sb.created_at', order: 'desc' },
      { column: 'sb.id', order: 'desc' },
    ])
    .offset(skip)
    .limit(limit + 1)
    .select(COLUMNS);

  // A meeting the caller cannot see (unknown, another team's, not visible) is object_not_found, as in
  // every other tool, not an empty list: seen means readable (access.visibleTo) or holding a clip the
  // caller may see (access.soundbiteVisibleTo: a `team` or `participants` clip of an owner-only meeting).
  if (transcriptId && rows.length === 0) await requireSeenMeeting(db, p, transcriptId);

  const has_more = rows.length > limit;
  const page = rows.slice(0, limit);
  // A listed clip shows its meeting's words (name, summary, times): a read of each meeting listed.
  recordReads(
    db,
    p,
    page.map((r) => ({ id: r.meeting_id, teamId: r.meeting_team_id! })),
  );
  return { soundbites: page.map((r) => toRecord(config, r)), has_more, next_skip: has_more ? skip + limit : null };
}

async function requireSeenMeeting(db: Knex, p: Principal, id: string): Promise<void> {
  const readable = await db('meetings as m').modify(visibleTo(p, 'm')).where('m.id', id).first('m.id');
  if (readable) return;
  const clip = await db('soundbites as sb')
    .join('meetings as m', 'm.id', 'sb.meeting_id')
    .modify(soundbiteVisibleTo(p, 'sb', 'm'))
    .where('sb.meeting_id', id)
    .first('sb.id');
  if (!clip) throw notFound('meeting', id);
}

// ---------------------------------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------------------------------

interface ClipMeeting {
  id: string;
  team_id: string;
  title: string;
  status: string;
  is_live: boolean;
  duration_seconds: number;
}

/** The meeting, if the caller may clip it: not found unless visible, forbidden unless writable. */
async function writableMeeting(trx: Knex.Transaction, p: Principal, id: string): Promise<ClipMeeting> {
  // Writing presupposes reading: a participant of an owner-only meeting may not clip what they cannot see.
  const m = await trx('meetings as m')
    .modify(writableBy(p, 'm'))
    .modify(visibleTo(p, 'm'))
    .where('m.id', id)
    .first<ClipMeeting | undefined>('m.id', 'm.team_id', 'm.title', 'm.status', 'm.is_live', 'm.duration_seconds');
  if (m) return m;
  const seen = await trx('meetings as m').modify(visibleTo(p, 'm')).where('m.id', id).first('m.id');
  if (!seen) throw notFound('meeting', id);
  throw forbidden(
    `you may not create soundbites of meeting ${JSON.stringify(id)}: only its organizer, its participants, members of its channel or a team admin may`,
  );
}

/** How far into the meeting a clip may reach: its duration, or its last sentence if that is later (live). */
async function meetingLength(trx: Knex.Transaction, m: ClipMeeting): Promise<number> {
  const r = await trx('sentences').where('meeting_id', m.id).max({ end: 'end_time' }).first();
  return Math.max(Number(m.duration_seconds) || 0, Number(r?.end) || 0);
}

/** The first words spoken in the clip, or a description of the clip when nobody speaks in it. */
async function defaultName(trx: Knex.Transaction, m: ClipMeeting, start: number, end: number): Promise<string> {
  const rows: { text: string }[] = await trx('sentences')
    .where('meeting_id', m.id)
    .where('end_time', '>', start)
    .where('start_time', '<', end)
    .orderBy('idx')
    .limit(DEFAULT_NAME_WORDS)
    .select('text');
  const words = rows.flatMap((r) => r.text.split(/\s+/).filter(Boolean));
  if (words.length === 0) return [...`Clip of ${m.title}`].slice(0, SOUNDBITE_NAME_MAX).join('');
  const head = words.slice(0, DEFAULT_NAME_WORDS).join(' ');
  const name = words.length > DEFAULT_NAME_WORDS ? `${head}…` : head;
  return [...name].slice(0, SOUNDBITE_NAME_MAX).join('');
}

function clipTimes(startTime: number, endTime: number) {
  if (typeof startTime !== 'number' || !Number.isFinite(startTime) || startTime < 0) {
    throw invalid(
      'startTime',
      'seconds, 0 or more',
      `startTime must be a number of seconds, 0 or more; got ${startTime}`,
    );
  }
  if (typeof endTime !== 'number' || !Number.isFinite(endTime) || endTime <= 0) {
    throw invalid(
      'endTime',
      'seconds, greater than 0',
      `endTime must be a number of seconds greater than 0; got ${endTime}`,
    );
  }
  if (endTime <= startTime)
    throw invalid(
      'endTime',
      'greater than startTime',
      `endTime (${endTime}) must be greater than startTime (${startTime})`,
    );
  return { start: startTime, end: endTime };
}

function clipPrivacies(privacies: string[] | undefined): string[] {
  if (privacies === undefined) return ['team'];
  if (!Array.isArray(privacies) || privacies.length === 0) {
    throw invalid(
      'privacies',
      'one or more of public, team, participants',
      'privacies must list one or more of public, team, participants (or be omitted for team)',
    );
  }
  return [...new Set(privacies.map((v, i) => requireOneOf(`privacies.${i}`, v, SOUNDBITE_PRIVACIES)))];
}

/**
 * Clip a meeting from startTime to endTime (seconds, within the meeting's length). Returns the new
 * soundbite with its id and share_url.
 */
export async function createSoundbite(
  db: Knex,
  config: Config,
  p: Principal,
  input: CreateSoundbiteInput,
): Promise<SoundbiteRecord> {
  const meetingId = (input.transcriptId ?? '').trim();
  if (!meetingId) throw invalid('transcriptId', 'must not be empty', 'transcriptId must not be empty');
  const { start, end } = clipTimes(input.startTime, input.endTime);
  const givenName =
    input.name === undefined ? undefined : requireLength('name', input.name.trim(), 1, SOUNDBITE_NAME_MAX);
  const summary =
    input.summary === undefined
      ? null
      : requireLength('summary', input.summary, 0, SOUNDBITE_SUMMARY_MAX).trim() || null;
  const mediaType = requireOneOf('mediaType', input.mediaType ?? 'audio', MEDIA_TYPES);
  const privacies = clipPrivacies(input.privacies);

  return db.transaction(async (trx) => {
    const m = await writableMeeting(trx, p, meetingId);
    if (m.status === 'processing' || m.status === 'failed') {
      throw new ServiceError(
        'invariant_violation',
        `meeting ${JSON.stringify(m.id)} has no transcript to clip (status ${m.status}); create soundbites once it is completed or live`,
      );
    }
    const length = await meetingLength(trx, m);
    if (end > length) {
      throw invalid(
        'endTime',
        'within the meeting',
        `endTime (${end}) is beyond the end of the meeting (${length} seconds)`,
      );
    }
    const name = givenName ?? (await defaultName(trx, m, start, end));
    const id = newId();
    const [row] = await trx('soundbites')
      .insert({
        id,
        meeting_id: m.id,
        team_id: m.team_id,
        owner_id: trx.raw('(select id from users where id = ?)', [p.userId]),
        name,
        start_time: start,
        end_time: end,
        summary,
        media_type: mediaType,
        privacies,
      })
      .returning([
        'id',
        'meeting_id',
        'name',
        'start_time',
        'end_time',
        'summary',
        'media_type',
        'privacies',
        'created_at',
      ]);
    await audit(
      trx,
      p,
      'soundbite.create',
      { type: 'soundbite', id, teamId: m.team_id },
      { meeting_id: m.id, start_time: start, end_time: end, name },
    );
    return toRecord(config, { ...row, meeting_title: m.title });
  });
}
