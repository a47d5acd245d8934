/**
 * How a question ranks sentences (question.ts answers with them).
 *
 * By meaning: the passages nearest the question's vector (the HNSW index, within the meetings the
 * caller may see that pass the filters) name the candidate sentences, and each sentence scores the
 * mean similarity of every passage that holds it, so the sentence at the heart of a passage that
 * answers ranks above the ones at its edges. By words: the sentences near those passages (WORD_SPAN
 * either side) that hold the question's words, ranked by cover density, are candidates too; looked up
 * in every meeting, common words made a question's cost grow with the whole transcript store, and in
 * the passages' whole meetings with their length. The two are fused by score: a sentence's meaning
 * score, plus a bonus for its words (WORD_WEIGHT × r / (r + WORD_HALF), r its cover density) that
 * lifts a sentence saying the question's own words without drowning a paraphrase's answer, which
 * shares none. All of it is one statement, so a question waits on one round trip for its ranking
 * (docs/search.md, "Ranking", has the figures of each way on the question set).
 */
import type { Knex } from 'knex';
import type { SqlFragment } from '../../platform/sql';
import { type TextEmbedder, vectorLiteral } from '../passages';
import { type MeaningRanking, questionWordsSql, rankByMeaningSql, wordSentencesSql } from './question-sql';

/** How a question ranks by meaning (rankByMeaningSql): passages read from the vector index, and the words' arm. */
const MEANING: Omit<MeaningRanking, 'pool'> = {
  passages: 40,
  /** The question's words are looked for this many sentences either side of each passage. */
  wordSpan: 10,
  /** Sentences holding the question's words taken as candidates. */
  words: 40,
  /** The words' bonus: at most wordWeight, half of it at a cover density of wordHalf. */
  wordWeight: 0.07,
  wordHalf: 0.3,
};
/** Where a question cannot rank by meaning: the sentences holding its words taken, and the most matches read to rank them. */
const WORD_CANDIDATES = 40;
const WORD_POOL = 500;
/** HNSW's candidate list while searching: more finds nearer passages, slower. */
const EF_SEARCH = 100;

export interface Ranked {
  meeting_id: string;
  idx: number;
}

interface Scored extends Ranked {
  score: number;
}

export const momentKey = (r: Ranked) => `${r.meeting_id}\u0000${r.idx}`;

/** The sentences that hold the question's words, best first, with their cover density. */
async function byWords(db: Knex, visible: SqlFragment, question: string): Promise<(Ranked & { rank: number })[]> {
  const w = questionWordsSql(question);
  const words = (await db.raw<{ rows: { q: string }[] }>(w.sql, w.bindings)).rows[0].q;
  if (!words) return [];
  const q = wordSentencesSql(visible, words, WORD_POOL, WORD_CANDIDATES);
  const rows = (await db.raw<{ rows: (Ranked & { rank: number })[] }>(q.sql, q.bindings)).rows;
  return rows.map((r) => ({ meeting_id: r.meeting_id, idx: r.idx, rank: Number(r.rank) }));
}

/** Best first, then by meeting and index, so equal scores keep one order. */
const byScore = (a: Scored, b: Scored) =>
  b.score - a.score || a.meeting_id.localeCompare(b.meeting_id) || a.idx - b.idx;

/** Sentences by words alone: where the server cannot rank by meaning. */
export async function rankByWords(db: Knex, visible: SqlFragment, question: string, pool: number): Promise<Ranked[]> {
  const words = await byWords(db, visible, question);
  return words
    .map((w) => ({ ...w, score: w.rank }))
    .sort(byScore)
    .slice(0, pool);
}

/** Sentences by meaning and words, fused by score, the best `pool`. */
export async function rankByMeaning(
  db: Knex,
  embedder: TextEmbedder,
  visible: SqlFragment,
  question: string,
  pool: number,
): Promise<Ranked[]> {
  const vector = vectorLiteral(await embedder.embedQuery(question));
  const { name, dims } = embedder.info;
  const q = rankByMeaningSql(visible, name, dims, vector, question, { ...MEANING, pool });
  return db.transaction(async (trx) => {
    // One simple-protocol round trip for both settings; `local`, so they end with the transaction.
    await trx.raw(`set local hnsw.ef_search = ${EF_SEARCH}; set local hnsw.iterative_scan = 'relaxed_order'`);
    return (await trx.raw<{ rows: Ranked[] }>(q.sql, q.bindings)).rows;
  });
}
