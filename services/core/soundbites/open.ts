/**
 * A soundbite as its share link shows it (the soundbite page): the excerpt's sentences with speakers
 * and times, and a link to that moment of the meeting only for a viewer who may read the meeting.
 * Who may open it is access.soundbiteOpenByLink; anyone else gets object_not_found, exactly as for an
 * id that does not exist.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { notFound } from '../../platform/errors';
import { soundbiteOpenByLink, visibleTo, type Principal, type ReadContext } from '../access';
import { recordRead } from '../audit';
import { sentenceFromRow, transcriptUrl, type SentenceRecord } from '../meetings';

export interface OpenedSoundbite {
  id: string;
  name: string;
  meeting_title: string;
  start_time: number;
  end_time: number;
  summary: string | null;
  privacies: string[];
  /** The meeting's sentences that overlap the clip, in order. */
  sentences: SentenceRecord[];
  /** `<transcript_url>#t=<start>` when the viewer may read the whole meeting; null otherwise. */
  meeting_url: string | null;
}

/** The most sentences an excerpt page shows (a clip is a moment, not a meeting). */
const EXCERPT_SENTENCES_MAX = 200;

/** `reads`: the read-audit context of an anonymous viewer's call (a signed-in viewer's is on their Principal). */
export async function openSoundbite(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  viewer: Principal | null,
  id: string,
  reads?: ReadContext,
): Promise<OpenedSoundbite> {
  const sb = await db('soundbites as sb')
    .join('meetings as m', 'm.id', 'sb.meeting_id')
    .where('sb.id', id)
    .modify(soundbiteOpenByLink(viewer, 'sb', 'm'))
    .first(
      'sb.id',
      'sb.meeting_id',
      'm.team_id as meeting_team_id',
      'm.title as meeting_title',
      'sb.name',
      'sb.start_time',
      'sb.end_time',
      'sb.summary',
      'sb.privacies',
    );
  if (!sb) throw notFound('soundbite', id);
  const start = Number(sb.start_time);
  const end = Number(sb.end_time);
  const rows = await db('sentences')
    .where({ meeting_id: sb.meeting_id })
    .where('end_time', '>', start)
    .where('start_time', '<', end)
    .orderBy('idx')
    .limit(EXCERPT_SENTENCES_MAX)
    .select('idx', 'speaker_name', 'speaker_id', 'text', 'raw_text', 'start_time', 'end_time');
  recordRead(db, viewer, { id: sb.meeting_id, teamId: sb.meeting_team_id }, viewer?.reads ?? reads);
  const readable = viewer
    ? await db('meetings as m').where('m.id', sb.meeting_id).modify(visibleTo(viewer, 'm')).first('m.id')
    : undefined;
  return {
    id: sb.id,
    name: sb.name,
    meeting_title: sb.meeting_title,
    start_time: start,
    end_time: end,
    summary: sb.summary,
    privacies: sb.privacies,
    sentences: rows.map(sentenceFromRow),
    meeting_url: readable ? `${transcriptUrl(config, sb.meeting_id)}#t=${Math.floor(start)}` : null,
  };
}
