/**
 * What is left to embed: completed meetings with no vectors of the current model (from before the
 * model came, or of another model), taken in id order so a backfill can resume from the last id it
 * did. Live meetings are embedded as their sentences arrive, not here.
 */
import type { Knex } from 'knex';

/** The next `limit` completed meetings after `afterId` (id order) that `model` has not embedded. */
export async function meetingsToEmbed(db: Knex, model: string, afterId: string, limit: number): Promise<string[]> {
  const rows = await db('meetings as m')
    .leftJoin('meeting_embeddings as e', 'e.meeting_id', 'm.id')
    .where('m.status', 'completed')
    .andWhere('m.id', '>', afterId)
    .andWhere((w) => w.whereNull('e.meeting_id').orWhereNot('e.model', model))
    .orderBy('m.id')
    .limit(limit)
    .select('m.id');
  return rows.map((r: { id: string }) => r.id);
}

export interface EmbeddingProgress {
  model: string;
  /** Completed meetings, all teams. */
  meetings: number;
  /** Of those, embedded by `model`. */
  embedded: number;
  remaining: number;
}

/** How far `model` has embedded the completed meetings. */
export async function embeddingProgress(db: Knex, model: string): Promise<EmbeddingProgress> {
  const row = await db('meetings as m')
    .leftJoin('meeting_embeddings as e', function () {
      this.on('e.meeting_id', '=', 'm.id').andOn('e.model', '=', db.raw('?', [model]));
    })
    .where('m.status', 'completed')
    .first(db.raw('count(*)::int as meetings'), db.raw('count(e.meeting_id)::int as embedded'));
  const meetings = Number(row?.meetings ?? 0);
  const embedded = Number(row?.embedded ?? 0);
  return { model, meetings, embedded, remaining: meetings - embedded };
}

/** Live meetings whose newest sentences `model` has not embedded yet. */
export async function liveMeetingsBehind(db: Knex, model: string): Promise<string[]> {
  const rows = await db('meetings as m')
    .leftJoin('meeting_embeddings as e', 'e.meeting_id', 'm.id')
    .where('m.status', 'live')
    .andWhere((w) =>
      w
        .whereNull('e.meeting_id')
        .orWhereNot('e.model', model)
        .orWhereRaw('exists (select 1 from sentences s where s.meeting_id = m.id and s.idx >= e.sentences)'),
    )
    .select('m.id');
  return rows.map((r: { id: string }) => r.id);
}
