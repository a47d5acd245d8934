/**
 * The statements of a question (question.ts): passages nearest the question's vector, the sentences
 * inside them scored on their own, the sentences that hold the question's words, and the details of
 * the moments answered. Each runs within the meetings the caller may see that pass the list's filters
 * (listedAndVisible: the visibility rule of access.ts, as every list applies it), so no passage,
 * sentence or title of another meeting is ever read into an answer.
 */
import type { SqlFragment } from '../../platform/sql';
import { meetingColumns } from './records';
import { PAGE_DETAILS } from './list-sql';
import { PASSAGE_SENTENCES } from '../passages';

/** A vector in pgvector's text form, cast to the model's dimension. */
const asHalfvec = (dims: number) => `?::halfvec(${dims})`;

/**
 * The `limit` passages of `model` nearest `vector` (cosine distance, through the model's HNSW index)
 * among the meetings that pass `visible`. Run with hnsw.iterative_scan on, so the index is read on
 * until `limit` passages pass the filter.
 */
export function nearestPassagesSql(
  visible: SqlFragment,
  model: string,
  dims: number,
  vector: string,
  limit: number,
): SqlFragment {
  const distance = `pv.embedding::halfvec(${dims}) <=> ${asHalfvec(dims)}`;
  return {
    sql:
      `select pv.meeting_id, pv.first_idx, pv.last_idx, ${distance} as distance` +
      ' from passage_vectors pv join meetings m on m.id = pv.meeting_id' +
      ` where pv.model = ? and ${visible.sql} order by ${distance} limit ?`,
    bindings: [vector, model, ...visible.bindings, vector, limit],
  };
}

/**
 * Every passage of `model` that holds a sentence of the given passages (its first sentence at most
 * PASSAGE_SENTENCES - 1 before theirs), with its similarity to `vector`: a moment scores the mean of
 * the passages that hold it.
 */
export function coveringPassagesSql(
  model: string,
  dims: number,
  vector: string,
  passages: { meeting_id: string; first_idx: number; last_idx: number }[],
): SqlFragment {
  return {
    sql:
      `select distinct pv.meeting_id, pv.first_idx, pv.last_idx, 1 - (pv.embedding::halfvec(${dims}) <=> ${asHalfvec(dims)}) as similarity` +
      ' from unnest(?::text[], ?::int[], ?::int[]) as c(mid, lo, hi)' +
      ' join passage_vectors pv on pv.meeting_id = c.mid and pv.first_idx between c.lo and c.hi and pv.model = ?',
    bindings: [
      vector,
      passages.map((p) => p.meeting_id),
      passages.map((p) => p.first_idx - (PASSAGE_SENTENCES - 1)),
      passages.map((p) => p.last_idx),
      model,
    ],
  };
}

/**
 * The question's lexemes as the text search configurations in use parse them (each meeting is indexed
 * with its language's: the 20261212000500 migration), stop words dropped, each once, as relation `w(l)`.
 */
const QUESTION_LEXEMES =
  '(select distinct u.l from search_configs c, unnest(tsvector_to_array(to_tsvector(c.config::regconfig, ?))) u(l)) w(l)';

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
      ' select h.meeting_id, h.idx, ts_rank_cd(h.tsv, ?::tsquery) as rank from hits h order by rank desc, h.meeting_id, h.idx limit ?',
    bindings: [words, ...visible.bindings, pool, words, limit],
  };
}

/**
 * The sentences of the given meetings that hold any of the question's words (each language's
 * stemming, stop words dropped), ranked by ts_rank_cd, at most `limit`. Each meeting's sentences are read by key and
 * then tested (as moments are: list-sql's "Sentences by key"), so the cost follows the meetings, not
 * how common the words are.
 */
export function wordsInMeetingsSql(meetingIds: string[], question: string, limit: number): SqlFragment {
  return {
    sql:
      "with w as (select coalesce(string_agg(quote_literal(w.l), ' | '), '')::tsquery as q" +
      ` from ${QUESTION_LEXEMES})` +
      ' select s.meeting_id, s.idx, ts_rank_cd(s.tsv, w.q) as rank from w, unnest(?::text[]) as c(mid)' +
      ' cross join lateral (select s0.meeting_id, s0.idx, s0.tsv from sentences s0 where s0.meeting_id = c.mid offset 0) s' +
      " where w.q <> ''::tsquery and s.tsv @@ w.q order by rank desc, s.meeting_id, s.idx limit ?",
    bindings: [question, meetingIds, limit],
  };
}

/** The moments' sentences and the sentence either side of each. */
export function momentSentencesSql(moments: { meeting_id: string; idx: number }[]): SqlFragment {
  return {
    sql:
      'select distinct s.meeting_id, s.idx, s.speaker_name, s.start_time, s.text' +
      ' from unnest(?::text[], ?::int[]) as c(mid, i)' +
      ' join sentences s on s.meeting_id = c.mid and s.idx between c.i - 1 and c.i + 1',
    bindings: [moments.map((m) => m.meeting_id), moments.map((m) => m.idx)],
  };
}

/** The moments' meetings as a list answers them (record, participants, short summary). */
export function momentMeetingsSql(ids: string[]): SqlFragment {
  return {
    sql:
      `${PAGE_DETAILS} null as matched from (select ${meetingColumns('m').join(', ')} from meetings m where m.id = any(?::text[])) as page` +
      ' left join summaries su on su.meeting_id = page.id',
    bindings: [ids],
  };
}
