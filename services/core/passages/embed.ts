/**
 * Embedding a meeting: its passages and sentences turned into vectors and stored, replacing whatever
 * the meeting had, in one transaction. Post-processing calls it for a new transcript, the backfill for
 * meetings from before the model (or another model); a live meeting's new sentences are added to what
 * it has (embedLiveSentences).
 */
import type { Knex } from 'knex';
import { passagesOf, type WindowSentence } from './windows';
import { vectorTablesExist } from './schema';

/** What core needs of an embedding model (services/intelligence/embeddings implements it). */
export interface TextEmbedder {
  readonly info: { name: string; dims: number };
  /** Unit-length vectors, one per text, for stored passages and sentences. */
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  /** A unit-length vector for a question. */
  embedQuery(text: string): Promise<Float32Array>;
}

export type EmbedOutcome = 'embedded' | 'no-sentences' | 'gone' | 'no-vector-store';

/** A vector as pgvector reads it: `[x,y,…]`, five decimals (halfvec keeps about three). */
export function vectorLiteral(v: Float32Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + (Math.round(v[i] * 1e5) / 1e5).toString();
  return `${s}]`;
}

async function readSentences(db: Knex, meetingId: string, from = 0): Promise<WindowSentence[]> {
  return db('sentences')
    .where('meeting_id', meetingId)
    .andWhere('idx', '>=', from)
    .orderBy('idx')
    .select('idx', 'text');
}

async function insertVectors(
  trx: Knex.Transaction,
  meetingId: string,
  model: string,
  passages: { first: number; last: number; vector: Float32Array }[],
  sentences: { idx: number; vector: Float32Array }[],
): Promise<void> {
  if (passages.length) {
    await trx.raw(
      'insert into passage_vectors (meeting_id, model, first_idx, last_idx, embedding)' +
        ' select ?, ?, f, l, e::halfvec from unnest(?::int[], ?::int[], ?::text[]) as x(f, l, e)' +
        ' on conflict (meeting_id, first_idx) do update set last_idx = excluded.last_idx, embedding = excluded.embedding',
      [
        meetingId,
        model,
        passages.map((p) => p.first),
        passages.map((p) => p.last),
        passages.map((p) => vectorLiteral(p.vector)),
      ],
    );
  }
  if (sentences.length) {
    await trx.raw(
      'insert into sentence_vectors (meeting_id, idx, embedding)' +
        ' select ?, i, e::halfvec from unnest(?::int[], ?::text[]) as x(i, e)' +
        ' on conflict (meeting_id, idx) do update set embedding = excluded.embedding',
      [meetingId, sentences.map((s) => s.idx), sentences.map((s) => vectorLiteral(s.vector))],
    );
  }
}

/**
 * Embed a whole meeting with `embedder` and store it, replacing the meeting's earlier vectors (another
 * model's, or an earlier transcript's). A meeting deleted meanwhile is 'gone'; one without sentences is
 * recorded as embedded with none, so the backfill does not return to it.
 */
export async function embedMeeting(db: Knex, embedder: TextEmbedder, meetingId: string): Promise<EmbedOutcome> {
  if (!(await vectorTablesExist(db))) return 'no-vector-store';
  const sentences = await readSentences(db, meetingId);
  const passages = passagesOf(sentences);
  const texts = [...passages.map((p) => p.text), ...sentences.map((s) => s.text)];
  const vectors = texts.length ? await embedder.embedPassages(texts) : [];
  const model = embedder.info.name;
  return db.transaction(async (trx) => {
    // The meeting row, locked: a deletion waits for this, or this sees it gone.
    const meeting = await trx('meetings').where('id', meetingId).forUpdate().first('id');
    if (!meeting) return 'gone';
    await trx('meeting_embeddings').where('meeting_id', meetingId).del();
    await trx('meeting_embeddings').insert({ meeting_id: meetingId, model, sentences: sentences.length });
    await insertVectors(
      trx,
      meetingId,
      model,
      passages.map((p, i) => ({ first: p.first, last: p.last, vector: vectors[i] })),
      sentences.map((s, i) => ({ idx: s.idx, vector: vectors[passages.length + i] })),
    );
    return sentences.length ? 'embedded' : 'no-sentences';
  });
}

/**
 * A live meeting's sentences that arrived since it was last embedded: the passages from the last
 * window that may have grown, and the new sentences alone. Passages of the same model are kept; a
 * meeting embedded by another model is embedded whole.
 */
export async function embedLiveSentences(db: Knex, embedder: TextEmbedder, meetingId: string): Promise<number> {
  if (!(await vectorTablesExist(db))) return 0;
  const done = await db('meeting_embeddings').where('meeting_id', meetingId).first('model', 'sentences');
  if (!done || done.model !== embedder.info.name) {
    await embedMeeting(db, embedder, meetingId);
    return Number((await db('meeting_embeddings').where('meeting_id', meetingId).first('sentences'))?.sentences ?? 0);
  }
  const sentences = await readSentences(db, meetingId);
  if (sentences.length <= done.sentences) return 0;
  // Windows start every PASSAGE_STRIDE sentences: redo from the start of the window holding the last
  // embedded sentence, which may have been cut short at the meeting's end.
  const passages = passagesOf(sentences).filter((p) => p.last >= sentences[Math.max(0, done.sentences - 1)].idx);
  const fresh = sentences.slice(done.sentences);
  const vectors = await embedder.embedPassages([...passages.map((p) => p.text), ...fresh.map((s) => s.text)]);
  await db.transaction(async (trx) => {
    const row = await trx('meeting_embeddings').where('meeting_id', meetingId).forUpdate().first('sentences');
    if (!row || row.sentences !== done.sentences) return; // another embedding got here first
    await insertVectors(
      trx,
      meetingId,
      embedder.info.name,
      passages.map((p, i) => ({ first: p.first, last: p.last, vector: vectors[i] })),
      fresh.map((s, i) => ({ idx: s.idx, vector: vectors[passages.length + i] })),
    );
    await trx('meeting_embeddings')
      .where('meeting_id', meetingId)
      .update({ sentences: sentences.length, embedded_at: trx.fn.now() });
  });
  return fresh.length;
}
