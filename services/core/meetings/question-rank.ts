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
 * shares none. All of it is one statement, which question.ts runs with the page it answers, so after
 * the model run a question waits on one round trip (docs/search.md, "Ranking", has the figures of each
 * way on the question set).
 */
import type { Knex } from 'knex';
import type { SqlFragment } from '../../platform/sql';
import { type TextEmbedder, vectorLiteral } from '../passages';
import { type MeaningRanking, questionWordsSql, rankByMeaningSql, wordSentencesSql } from './question-sql';

/** How a question ranks by meaning (rankByMeaningSql): passages read from the vector index, and the words' arm. */
const MEANING: Omit<MeaningRanking, 'pool'> = {
  passages: 40,
  /** HNSW's candidate list while searching: more finds nearer passages, slower. */
  efSearch: 100,
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

/**
 * Sentences by words alone, where the server cannot rank by meaning: the statement that ranks them
 * (rows meeting_id, idx, n), or null when the question has no word to look for.
 */
export async function rankingByWords(db: Knex, visible: SqlFragment, question: string): Promise<SqlFragment | null> {
  const w = questionWordsSql(question);
  const words = (await db.raw<{ rows: { q: string }[] }>(w.sql, w.bindings)).rows[0].q;
  return words ? wordSentencesSql(visible, words, WORD_POOL, WORD_CANDIDATES) : null;
}

/** Sentences by meaning and words, fused by score, the best `pool`: the statement that ranks them (rows meeting_id, idx, n). */
export async function rankingByMeaning(
  embedder: TextEmbedder,
  visible: SqlFragment,
  question: string,
  pool: number,
): Promise<SqlFragment> {
  const vector = vectorLiteral(await embedder.embedQuery(question));
  const { name, dims } = embedder.info;
  return rankByMeaningSql(visible, name, dims, vector, question, { ...MEANING, pool });
}
