/**
 * How a question ranks sentences (question.ts answers with them).
 *
 * By meaning: the passages nearest the question's vector (the HNSW index, within the meetings the
 * caller may see that pass the filters) name the candidate sentences, and each sentence scores the
 * mean similarity of every passage that holds it, so the sentence at the heart of a passage that
 * answers ranks above the ones at its edges. By words: in those passages' meetings, the sentences
 * that hold the question's words, ranked by cover density, are candidates too (looked up in every
 * meeting, common words made a question's cost grow with the whole transcript store). The two are
 * fused by score: a sentence's meaning score, plus a bonus for its words (WORD_WEIGHT × r /
 * (r + WORD_HALF), r its cover density) that lifts a sentence saying the question's own words without
 * drowning a paraphrase's answer, which shares none (docs/search.md, "Ranking", has the figures of each
 * way on the question set).
 */
import type { Knex } from 'knex';
import type { SqlFragment } from '../../platform/sql';
import { type TextEmbedder, vectorLiteral } from '../passages';
import {
  coveringPassagesSql,
  nearestPassagesSql,
  questionWordsSql,
  wordsInMeetingsSql,
  wordSentencesSql,
} from './question-sql';

/** Passages read from the vector index for a question. */
const PASSAGE_CANDIDATES = 40;
/** Sentences holding the question's words taken as candidates; and the most matches read to rank them. */
const WORD_CANDIDATES = 40;
const WORD_POOL = 500;
/** The words' bonus: at most WORD_WEIGHT, half of it at a cover density of WORD_HALF. */
const WORD_WEIGHT = 0.07;
const WORD_HALF = 0.3;
/** HNSW's candidate list while searching: more finds nearer passages, slower. */
const EF_SEARCH = 100;

export interface Ranked {
  meeting_id: string;
  idx: number;
}

interface Scored extends Ranked {
  score: number;
}

interface PassageRow {
  meeting_id: string;
  first_idx: number;
  last_idx: number;
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

/** The sentences of these meetings that hold the question's words, best first, with their cover density. */
async function wordsInMeetings(
  db: Knex,
  meetingIds: string[],
  question: string,
): Promise<(Ranked & { rank: number })[]> {
  if (!meetingIds.length) return [];
  const q = wordsInMeetingsSql(meetingIds, question, WORD_CANDIDATES);
  const rows = (await db.raw<{ rows: (Ranked & { rank: number })[] }>(q.sql, q.bindings)).rows;
  return rows.map((r) => ({ meeting_id: r.meeting_id, idx: r.idx, rank: Number(r.rank) }));
}

/** The passages nearest `vector`, through the model's index, read on until enough pass the filters. */
async function nearestPassages(
  db: Knex,
  embedder: TextEmbedder,
  visible: SqlFragment,
  vector: string,
): Promise<PassageRow[]> {
  const { name, dims } = embedder.info;
  return db.transaction(async (trx) => {
    await trx.raw(`set local hnsw.ef_search = ${EF_SEARCH}`);
    await trx.raw("set local hnsw.iterative_scan = 'relaxed_order'");
    const q = nearestPassagesSql(visible, name, dims, vector, PASSAGE_CANDIDATES);
    return (await trx.raw<{ rows: PassageRow[] }>(q.sql, q.bindings)).rows;
  });
}

/** Each candidate's meaning score: the mean similarity of the passages that hold it. */
async function meaningScores(
  db: Knex,
  embedder: TextEmbedder,
  vector: string,
  candidates: Ranked[],
): Promise<Map<string, number>> {
  if (!candidates.length) return new Map();
  const around = candidates.map((c) => ({ meeting_id: c.meeting_id, first_idx: c.idx, last_idx: c.idx }));
  const q = coveringPassagesSql(embedder.info.name, embedder.info.dims, vector, around);
  const rows = (await db.raw<{ rows: (PassageRow & { similarity: number })[] }>(q.sql, q.bindings)).rows;
  const wanted = new Set(candidates.map(momentKey));
  const sums = new Map<string, { sum: number; n: number }>();
  for (const p of rows) {
    for (let idx = p.first_idx; idx <= p.last_idx; idx++) {
      const k = momentKey({ meeting_id: p.meeting_id, idx });
      if (!wanted.has(k)) continue;
      const had = sums.get(k) ?? { sum: 0, n: 0 };
      had.sum += Number(p.similarity);
      had.n++;
      sums.set(k, had);
    }
  }
  return new Map([...sums].map(([k, v]) => [k, v.sum / v.n]));
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
  const passages = await nearestPassages(db, embedder, visible, vector);
  const words = await wordsInMeetings(db, [...new Set(passages.map((p) => p.meeting_id))], question);
  const candidates = new Map<string, Ranked>();
  for (const p of passages)
    for (let idx = p.first_idx; idx <= p.last_idx; idx++)
      candidates.set(momentKey({ meeting_id: p.meeting_id, idx }), { meeting_id: p.meeting_id, idx });
  for (const w of words) candidates.set(momentKey(w), { meeting_id: w.meeting_id, idx: w.idx });
  const meaning = await meaningScores(db, embedder, vector, [...candidates.values()]);
  const wordRank = new Map(words.map((w) => [momentKey(w), w.rank]));
  return [...candidates.entries()]
    .map(([k, r]) => {
      const rank = wordRank.get(k) ?? 0;
      return { ...r, score: (meaning.get(k) ?? 0) + (WORD_WEIGHT * rank) / (rank + WORD_HALF) };
    })
    .sort(byScore)
    .slice(0, pool);
}
