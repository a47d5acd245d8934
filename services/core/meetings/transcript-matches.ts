/**
 * One meeting's matches (svc_get_transcript with a keyword): every sentence of the meeting that
 * matches, with `context` neighbours either side, paged within the transcript token budget like any
 * transcript page, so an assistant reads what was said around each match without the whole meeting.
 * What matches is what a list's moments mean (moments.ts): a sentence holding a word (stemmed) or a
 * quoted phrase of the keyword; negated words never match. The meeting is read through getTranscript,
 * so visibility and the read audit are a transcript read's.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { invalid } from '../../platform/errors';
import { numbered, runSql } from '../../platform/sql';
import type { Principal } from '../access';
import { estimateJsonTokens } from '../limits';
import { checkKeyword } from './filters';
import { keywordQuery, momentTsquery } from './keyword-query';
import { MEETING_CONFIG, meetingSentences, momentLink, PAGE_HEADLINE } from './moments';
import {
  estimateSentenceTokens,
  getTranscript,
  SENTENCE_JSON_EXTRA,
  SentenceRecord,
  SentenceRow,
  TRANSCRIPT_TOKENS,
  TranscriptPage,
} from './transcripts';

export const CONTEXT_DEFAULT = 1;
export const CONTEXT_MAX = 5;

export interface TranscriptMatch {
  index: number;
  start_time: number;
  link: string;
}

export interface TranscriptMatchPage extends TranscriptPage {
  keyword: string;
  /** Sentences of the whole meeting that match. */
  match_count: number;
  /** The matching sentences of this page (their neighbours are in sentences too). */
  matches: TranscriptMatch[];
}

export interface MatchPageOptions {
  keyword: string;
  /** The first sentence index to look for matches from (default 0); next_index of the previous page. */
  fromIndex?: number;
  maxTokens?: number;
  /** Neighbours either side of each match (default 1). */
  context?: number;
}

/**
 * The least a match costs (its sentence row at its least, as JSON, and its entry in matches, whose
 * link alone is a few dozen tokens): bounds how many matches a page fetches, and so how many
 * sentences ts_headline marks, its costliest step per sentence.
 */
const MATCH_MIN_TOKENS = 60;
const INT_MAX = 2147483647;

interface MatchRow extends SentenceRow {
  hit: boolean;
  marked: string | null;
  match_count: number;
}

/**
 * The sentences of one meeting that match `keyword`, each with `context` neighbours, from the first
 * match at or after fromIndex, within the token budget of a transcript page (sized for its JSON
 * form). has_more/next_index page on to the next match. Not visible → object_not_found (getTranscript).
 */
export async function getTranscriptMatches(
  db: Knex,
  config: Config,
  p: Principal,
  id: string,
  opts: MatchPageOptions,
): Promise<TranscriptMatchPage> {
  const keyword = checkKeyword('keyword', opts.keyword).trim();
  if (!keyword)
    throw invalid(
      'keyword',
      'must not be empty',
      'keyword must not be empty; leave it out to read the transcript in order',
    );
  const context = opts.context ?? CONTEXT_DEFAULT;
  if (!Number.isInteger(context) || context < 0 || context > CONTEXT_MAX) {
    throw invalid(
      'context',
      `a whole number from 0 to ${CONTEXT_MAX}`,
      `context must be a whole number from 0 to ${CONTEXT_MAX}; got ${context}`,
    );
  }
  const fromIndex = opts.fromIndex ?? 0;
  if (!Number.isInteger(fromIndex) || fromIndex < 0)
    throw invalid(
      'fromIndex',
      'a whole number, 0 or more',
      `fromIndex must be a whole number, 0 or more; got ${fromIndex}`,
    );
  // The meeting's envelope through the one visible read (past the last sentence: no sentences).
  const head = await getTranscript(db, config, p, id, {
    fromIndex: INT_MAX,
    maxTokens: opts.maxTokens,
    budgetFor: 'json',
  });
  const maxTokens =
    opts.maxTokens ?? Math.min(TRANSCRIPT_TOKENS.max, Math.max(TRANSCRIPT_TOKENS.min, config.mcpMaxTranscriptTokens));
  const base = {
    ...head,
    keyword,
    sentences: [] as SentenceRecord[],
    has_more: false,
    next_index: null as number | null,
  };
  const kq = await keywordQuery(db, keyword);
  const q = momentTsquery(kq);
  const readable = head.status === 'completed' || head.status === 'live' || head.is_live;
  if (!q || !readable) return { ...base, match_count: 0, matches: [] };

  const budget = maxTokens - estimateJsonTokens({ ...base, match_count: 0, matches: [] });
  const cap = Math.max(1, Math.floor(budget / MATCH_MIN_TOKENS)) + 1;
  const rows = await runSql<MatchRow>(
    db,
    numbered({
      sql:
        `with hits as (select s.idx from ${meetingSentences('?')} where s.idx >= ? and s.tsv @@ ?::tsquery order by s.idx limit ?)` +
        ' select s.idx, s.speaker_name, s.speaker_id, s.text, case when s.raw_text = s.text then null else s.raw_text end as raw_text,' +
        '  s.start_time, s.end_time, h.idx is not null as hit,' +
        `  case when h.idx is not null then ts_headline(${MEETING_CONFIG('s.meeting_id')}, s.text, ?::tsquery, ?) end as marked,` +
        `  (select count(*) from ${meetingSentences('?')} where s.tsv @@ ?::tsquery)::int as match_count` +
        ' from sentences s left join hits h on h.idx = s.idx' +
        ' where s.meeting_id = ? and s.idx in (select hh.idx + g from hits hh, generate_series(-?::int, ?::int) g)' +
        ' order by s.idx',
      bindings: [head.id, fromIndex, q, cap, q, PAGE_HEADLINE, head.id, q, head.id, context, context],
    }),
  );

  const byIdx = new Map(rows.map((r) => [r.idx, r]));
  const sentences: SentenceRecord[] = [];
  const matches: TranscriptMatch[] = [];
  const shown = new Set<number>();
  let used = 0;
  let nextIndex: number | null = null;
  for (const hit of rows.filter((r) => r.hit)) {
    const window = [];
    for (let i = hit.idx - context; i <= hit.idx + context; i++) {
      const r = byIdx.get(i);
      if (r && !shown.has(i)) window.push(r);
    }
    const records = window.map((r) => ({
      index: r.idx,
      speaker_name: r.speaker_name,
      speaker_id: r.speaker_id,
      text: r.hit && r.marked ? r.marked : r.text,
      raw_text: r.raw_text,
      start_time: Number(r.start_time),
      end_time: Number(r.end_time),
    }));
    const match = {
      index: hit.idx,
      start_time: Number(hit.start_time),
      link: momentLink(head.transcript_url, Number(hit.start_time)),
    };
    const cost =
      records.reduce((n, s) => n + estimateSentenceTokens(s) + SENTENCE_JSON_EXTRA, 0) + estimateJsonTokens(match) - 10;
    if (matches.length > 0 && used + cost > budget) {
      nextIndex = hit.idx;
      break;
    }
    used += cost;
    matches.push(match);
    for (const s of records) {
      shown.add(s.index);
      sentences.push(s);
    }
  }
  sentences.sort((a, b) => a.index - b.index);
  const matchCount = rows.length
    ? rows[0].match_count
    : Number(
        (
          await runSql<{ n: number }>(
            db,
            numbered({
              sql: `select count(*)::int as n from ${meetingSentences('?')} where s.tsv @@ ?::tsquery`,
              bindings: [head.id, q],
            }),
          )
        )[0].n,
      );
  // Hits past the fetched cap: more matches than this page could hold follow the last one shown.
  if (nextIndex === null && rows.filter((r) => r.hit).length >= cap) nextIndex = matches[matches.length - 1].index + 1;
  return { ...base, sentences, has_more: nextIndex !== null, next_index: nextIndex, match_count: matchCount, matches };
}
