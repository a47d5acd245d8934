/**
 * The statements of a question (question.ts): passages nearest the question's vector, the sentences
 * inside them scored on their own, the sentences that hold the question's words, and the details of
 * the moments answered. Each runs within the meetings the caller may see that pass the list's filters
 * (listedAndVisible: the visibility rule of access/rules.ts, as every list applies it), so no passage,
 * sentence or title of another meeting is ever read into an answer.
 */
import type { SqlFragment } from '../../platform/sql';
import { meetingColumns } from './records';
import { PAGE_DETAILS } from './list-sql';
import { PASSAGE_SENTENCES } from '../passages';

/** A vector in pgvector's text form, cast to the model's dimension. */
const asHalfvec = (dims: number) => `?::halfvec(${dims})`;

/**
 * The question's lexemes as the text search configurations in use parse them (each meeting is indexed
 * with its language's: the 20261212000500 migration), stop words dropped, each once, as relation `w(l)`.
 */
const QUESTION_LEXEMES =
  '(select distinct u.l from search_configs c, unnest(tsvector_to_array(to_tsvector(c.config::regconfig, ?))) u(l)) w(l)';

/**
 * The HNSW search's settings, made by the statement that searches: `efSearch` candidates kept while
 * searching (more finds nearer passages, slower), and iterative scans on, so the index is read on until
 * the LIMIT's passages pass the filter. set_config(…, true) lasts until the statement's transaction
 * ends, so the pooled connection is left as it was, and no transaction of several round trips is
 * needed. The condition refers to no row, so PostgreSQL tests it once, before its input's first row
 * (a gating One-Time Filter), and pgvector reads both settings when the scan fetches its first row.
 */
const SCAN_SETTINGS =
  "(select set_config('hnsw.ef_search', ?, true) || set_config('hnsw.iterative_scan', 'relaxed_order', true)) is not null";

/**
 * The `limit` passages of `model` nearest `vector` (cosine distance, through the model's HNSW index)
 * among the meetings that pass `visible`, searched with `efSearch` candidates and iterative scans on
 * (SCAN_SETTINGS).
 */
export function nearestPassagesSql(
  visible: SqlFragment,
  model: string,
  dims: number,
  vector: string,
  limit: number,
  efSearch: number,
): SqlFragment {
  const distance = `pv.embedding::halfvec(${dims}) <=> ${asHalfvec(dims)}`;
  return {
    sql:
      `select pv.meeting_id, pv.first_idx, pv.last_idx, ${distance} as distance` +
      ' from passage_vectors pv join meetings m on m.id = pv.meeting_id' +
      ` where ${SCAN_SETTINGS} and pv.model = ? and ${visible.sql} order by ${distance} limit ?`,
    bindings: [vector, String(efSearch), model, ...visible.bindings, vector, limit],
  };
}

/** How rankByMeaningSql ranks: how many passages it reads, how far around them it looks for the question's words, and the words' bonus. */
export interface MeaningRanking {
  passages: number;
  efSearch: number;
  wordSpan: number;
  words: number;
  wordWeight: number;
  wordHalf: number;
  pool: number;
}

/**
 * A question ranked in one statement (question-rank.ts says why this way): the `passages` nearest
 * `vector` through the model's HNSW index among the meetings that pass `visible`; the sentences within
 * `wordSpan` of them that hold the question's words (each range read by key, then tested, so the cost
 * follows the passages, not how common the words are), the `words` best by cover density; every
 * sentence of those passages and those words a candidate, scored the mean similarity of the passages
 * that hold it plus the words' bonus; the best `pool`, best first. The statement makes its own HNSW
 * settings (nearestPassagesSql), so it runs alone, in one round trip.
 */
export function rankByMeaningSql(
  visible: SqlFragment,
  model: string,
  dims: number,
  vector: string,
  question: string,
  r: MeaningRanking,
): SqlFragment {
  const v = asHalfvec(dims);
  const e = `pv.embedding::halfvec(${dims})`;
  const near = nearestPassagesSql(visible, model, dims, vector, r.passages, r.efSearch);
  return {
    sql:
      `with near as materialized (${near.sql}),` +
      " w as materialized (select coalesce(string_agg(quote_literal(w.l), ' | '), '')::tsquery as q" +
      ` from ${QUESTION_LEXEMES}),` +
      ' words as (select distinct s.meeting_id, s.idx, ts_rank_cd(s.tsv, w.q) as rank from w, near n' +
      ' cross join lateral (select s0.meeting_id, s0.idx, s0.tsv from sentences s0' +
      ' where s0.meeting_id = n.meeting_id and s0.idx between n.first_idx - ? and n.last_idx + ? offset 0) s' +
      " where w.q <> ''::tsquery and s.tsv @@ w.q order by rank desc, s.meeting_id, s.idx limit ?)," +
      ' cand as (select n.meeting_id, g.idx from near n, generate_series(n.first_idx, n.last_idx) g(idx)' +
      ' union select meeting_id, idx from words),' +
      ` scored as (select c.meeting_id, c.idx, coalesce(avg(1 - (${e} <=> ${v})), 0) as meaning from cand c` +
      ' left join passage_vectors pv on pv.meeting_id = c.meeting_id and pv.model = ?' +
      ' and pv.first_idx between c.idx - ? and c.idx and pv.last_idx >= c.idx group by c.meeting_id, c.idx)' +
      ' select s.meeting_id, s.idx, row_number() over (order by s.meaning + ? * coalesce(wd.rank, 0) / (coalesce(wd.rank, 0) + ?) desc,' +
      ' s.meeting_id, s.idx) as n from scored s left join words wd on wd.meeting_id = s.meeting_id and wd.idx = s.idx order by n limit ?',
    bindings: [
      ...near.bindings,
      question,
      r.wordSpan,
      r.wordSpan,
      r.words,
      vector,
      model,
      PASSAGE_SENTENCES - 1,
      r.wordWeight,
      r.wordHalf,
      r.pool,
    ],
  };
}

/** The question's words as a tsquery that any of them matches (each language's stemming, stop words dropped; '' for none). */
export function questionWordsSql(question: string): SqlFragment {
  return {
    sql: `select coalesce(string_agg(quote_literal(w.l), ' | '), '') as q from ${QUESTION_LEXEMES}`,
    bindings: [question],
  };
}

/**
 * The sentences that match `words` (questionWordsSql), ranked by ts_rank_cd, at most `limit`; at most
 * `pool` matches are ranked, so a question of common words costs a bounded read. The query is bound
 * rather than made in the statement, so the planner knows how many sentences it matches and stops
 * reading at the pool.
 */
export function wordSentencesSql(visible: SqlFragment, words: string, pool: number, limit: number): SqlFragment {
  return {
    sql:
      'with hits as (select s.meeting_id, s.idx, s.tsv from sentences s join meetings m on m.id = s.meeting_id' +
      ` where s.tsv @@ ?::tsquery and ${visible.sql} limit ?)` +
      ' select h.meeting_id, h.idx, row_number() over (order by ts_rank_cd(h.tsv, ?::tsquery) desc, h.meeting_id, h.idx) as n' +
      ' from hits h order by n limit ?',
    bindings: [words, ...visible.bindings, pool, words, limit],
  };
}

/**
 * A ranking statement's rows (meeting_id, idx and n, its place from 1, best first) in their order,
 * each on the page (places `skip` + 1 to `skip` + `limit`) with its sentence, the sentence either side
 * and its meeting as a list answers it (record, participants, short summary); the rest with their place
 * only, so the caller counts them. The ranking and its page are one statement: one round trip, one
 * snapshot. The meetings are read by id: the ranking read only meetings the caller may see.
 */
export function answerPageSql(ranking: SqlFragment, skip: number, limit: number): SqlFragment {
  // The page's rows are read on their own, so only they look up their sentences and meeting.
  const beside = (alias: string, step: string) =>
    `left join sentences ${alias} on ${alias}.meeting_id = p.meeting_id and ${alias}.idx = p.idx ${step} 1`;
  return {
    sql:
      `with ranked as materialized (${ranking.sql}),` +
      ' answered as (select p.n, s.speaker_name, s.start_time, s.text, b.text as before, a.text as after, d.*' +
      ' from ranked p join sentences s on s.meeting_id = p.meeting_id and s.idx = p.idx' +
      ` ${beside('b', '-')} ${beside('a', '+')}` +
      ` cross join lateral (${PAGE_DETAILS} null as matched from (select ${meetingColumns('m').join(', ')} from meetings m` +
      ' where m.id = p.meeting_id) as page left join summaries su on su.meeting_id = page.id) d where p.n > ? and p.n <= ?)' +
      ' select r.meeting_id, r.idx, answered.* from ranked r left join answered on answered.n = r.n order by r.n',
    bindings: [...ranking.bindings, skip, skip + limit],
  };
}
