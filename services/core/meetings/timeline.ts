/** Moments of a meeting by time: which sentence was being said at a given second (a `#t=` link). */
import type { Knex } from 'knex';
import { notFound } from '../../platform/errors';
import { visibleTo, type Principal } from '../access';

/** The index of the sentence under way at `seconds` (the last one started by then; 0 before the first). */
export async function sentenceIndexAt(db: Knex, p: Principal, meetingId: string, seconds: number): Promise<number> {
  const m = await db('meetings as m').where('m.id', meetingId).modify(visibleTo(p, 'm')).first('m.id');
  if (!m) throw notFound('meeting', meetingId);
  const row = await db('sentences')
    .where({ meeting_id: meetingId })
    .where('start_time', '<=', seconds)
    .orderBy('idx', 'desc')
    .first('idx');
  return row?.idx ?? 0;
}
