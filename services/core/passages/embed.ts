/**
 * Embedding a meeting: its passages turned into vectors and stored, replacing whatever the meeting
 * had, in one transaction. Post-processing calls it for a new transcript, the backfill for meetings
 * from before the model (or of another model); a live meeting's new sentences add the passages they
 * start or complete (embedLiveSentences).
 */
import type { Knex } from 'knex';
import { PASSAGE_SENTENCES, passagesOf, type Passage, type WindowSentence } from './windows';
import { vectorTablesExist } from './schema';

/** What core needs of an embedding model (services/intelligence/embeddings implements it). */
export interface TextEmbedder {
  readonly info: { name: string; dims: number };
  /** Unit-length vectors, one per text, for stored passages. */
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

function readSentences(db: Knex, meetingId: string): Promise<WindowSentence[]> {
  return db('sentences').where('meeting_id', meetingId).orderBy('idx').select('idx', 'speaker_name', 'text');
}

/** Thrown (and retried by the activity) when a meeting's words changed while they were embedded. */
export class WordsChangedError extends Error {
  constructor(meetingId: string) {
    super(`meeting ${meetingId}'s sentences changed while they were embedded; embedding them again`);
    this.name = 'WordsChangedError';
  }
}

const sameWords = (a: readonly WindowSentence[], b: readonly WindowSentence[]) =>
  a.length === b.length &&
  a.every((s, i) => s.idx === b[i].idx && s.text === b[i].text && s.speaker_name === b[i].speaker_name);

/** The passages with their vectors, inserted or (same first sentence) replaced. */
async function upsertPassages(
  trx: Knex.Transaction,
  meetingId: string,
  model: string,
  passages: Passage[],
  vectors: Float32Array[],
): Promise<void> {
  if (!passages.length) return;
  await trx.raw(
    'insert into passage_vectors (meeting_id, model, first_idx, last_idx, embedding)' +
      ' select ?, ?, f, l, e::halfvec from unnest(?::int[], ?::int[], ?::text[]) as x(f, l, e)' +
      ' on conflict (meeting_id, first_idx, last_idx) do update set embedding = excluded.embedding',
    [meetingId, model, passages.map((p) => p.first), passages.map((p) => p.last), vectors.map((v) => vectorLiteral(v))],
  );
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
  const vectors = passages.length ? await embedder.embedPassages(passages.map((p) => p.text)) : [];
  return db.transaction(async (trx) => {
    // The meeting row, locked: a deletion waits for this, or this sees it gone.
    const meeting = await trx('meetings').where('id', meetingId).forUpdate().first('id');
    if (!meeting) return 'gone';
    // Vectors are only ever stored for the words they were computed from: a correction (or a speaker
    // named) while the model ran sends this run round again, and the words are read afresh.
    if (!sameWords(sentences, await readSentences(trx, meetingId))) throw new WordsChangedError(meetingId);
    await trx('meeting_embeddings').where('meeting_id', meetingId).del();
    await trx('meeting_embeddings').insert({
      meeting_id: meetingId,
      model: embedder.info.name,
      sentences: sentences.length,
    });
    await upsertPassages(trx, meetingId, embedder.info.name, passages, vectors);
    return sentences.length ? 'embedded' : 'no-sentences';
  });
}

/**
 * A live meeting's sentences that arrived since it was last embedded: the passages they start or
 * complete (from PASSAGE_SENTENCES - 1 before the first new sentence). A meeting embedded by another
 * model, or not yet, is embedded whole. Answers how many sentences were new.
 */
export async function embedLiveSentences(db: Knex, embedder: TextEmbedder, meetingId: string): Promise<number> {
  if (!(await vectorTablesExist(db))) return 0;
  const done = await db('meeting_embeddings').where('meeting_id', meetingId).first('model', 'sentences');
  const sentences = await readSentences(db, meetingId);
  if (!done || done.model !== embedder.info.name) {
    await embedMeeting(db, embedder, meetingId);
    return sentences.length;
  }
  if (sentences.length <= done.sentences) return 0;
  // The windows that reached the end of what was embedded: they grow now, and new ones start.
  const from = done.sentences - (PASSAGE_SENTENCES - 1);
  const passages = passagesOf(sentences, from);
  const vectors = await embedder.embedPassages(passages.map((p) => p.text));
  await db.transaction(async (trx) => {
    const row = await trx('meeting_embeddings').where('meeting_id', meetingId).forUpdate().first('sentences');
    if (!row || row.sentences !== done.sentences) return; // another embedding got here first
    await trx('passage_vectors')
      .where('meeting_id', meetingId)
      .andWhere('first_idx', '>=', sentences[Math.max(0, from)].idx)
      .del();
    await upsertPassages(trx, meetingId, embedder.info.name, passages, vectors);
    await trx('meeting_embeddings')
      .where('meeting_id', meetingId)
      .update({ sentences: sentences.length, embedded_at: trx.fn.now() });
  });
  return sentences.length - done.sentences;
}
