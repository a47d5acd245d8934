/**
 * Matching moments of a list (svc_get_transcripts, svc_search with a keyword): the sentences of each
 * meeting of the page that match the keyword, so an assistant can cite the moment
 * ("[Budget review, 12:04](…#t=724)") instead of reading the whole transcript to find it. One meeting's
 * matches with their neighbours (svc_get_transcript with a keyword) are transcript-matches.ts.
 *
 * Each meeting of the page carries its best `moments` sentences (ts_rank over the keyword's words and
 * phrases, see momentTsquery), the matched words marked **so** by ts_headline, as one flat table keyed
 * by meeting_id so TOON keeps it a table. The whole answer holds LIST_TOKENS in its JSON form (what
 * structuredContent shows a model); moments past it are left out round-robin from the lowest-ranked,
 * and the answer says so.
 *
 * What matches is what the list's keyword means, sentence by sentence: a sentence is a moment when it
 * holds a word (stemmed) or a quoted phrase of the keyword; negated words never make a moment, and
 * scope title gives none. Only meetings the caller may read are ever asked for (the list's page, or
 * a read that passed visibleTo).
 *
 * Cost (figures: README.md, "Moments"): for a one-word keyword (momentWord), each meeting's best
 * sentences for the word are listed in best_moments (the 20261201000000 migration), so only they are
 * read, by key. Otherwise (several words, a phrase; a live meeting, which has no row), the sentences
 * of the page's meetings are read by their primary key (meeting_id, idx) and tested against the query
 * (meetingSentences). Either way ts_headline re-parses only the chosen sentences, the costliest step
 * per sentence. A sentence too short to be cut is marked whole (HighlightAll), which skips
 * ts_headline's search for the best fragment. Marking in our own code would need the stemmer's
 * lexemes of every word of the sentence, which only PostgreSQL has. The statements' texts never
 * change, so each is prepared once per connection (SEARCHED, BY_WORD): no parsing and planning a call.
 */
import type { Knex } from 'knex';
import { numbered, runSql, type Statement } from '../../platform/sql';
import { estimateDenseTokens, estimateTextTokens } from '../limits';
import { TRANSCRIPT_TOKENS } from './transcripts';
import { momentLink } from './records';

/** One matching sentence of a meeting in a list. */
export interface MomentRecord {
  meeting_id: string;
  index: number;
  speaker_name: string;
  /** Seconds from the meeting's start. */
  start_time: number;
  /** The sentence (or, for a very long one, the part around the match, with …) with matched words **marked**. */
  text: string;
  /** The meeting page at this moment: transcript_url#t=<whole seconds>. */
  link: string;
  /** With a question (question.ts): the meeting's title and the sentences either side. */
  title?: string;
  before?: string;
  after?: string;
}

/** A list answer, in its JSON form, stays within this (what transcript pages hold; clients refuse 25,000). */
export const LIST_TOKENS = TRANSCRIPT_TOKENS.max;

/** ts_headline for a moment: marks matched words; a sentence longer than MaxWords is cut around its match. */
const MOMENT_HEADLINE = 'StartSel=**, StopSel=**, MaxWords=60, MinWords=25, ShortWord=2';
/** Shorter than this, a sentence cannot hold MaxWords words (each word and the space after it is 2 characters at least). */
const UNCUT_CHARS = 120;
/** ts_headline for a sentence of a transcript page: the whole sentence, every matched word marked. */
export const PAGE_HEADLINE = 'HighlightAll=true, StartSel=**, StopSel=**';

/**
 * The sentences of one meeting as `s`, read by the primary key (meeting_id, idx) and only then tested
 * against a query: `offset 0` keeps PostgreSQL from pushing the test into the scan, where it would
 * AND the meeting's rows with the sentences GIN index's posting lists; for common words those lists
 * hold hundreds of thousands of entries, read again for every meeting, where the meeting's own rows
 * are a few hundred (README.md, "Sentences by key"). `columns`: what the statement reads of them
 * (default: the index and the lexemes).
 */
export const meetingSentences = (meeting: string, columns = 'idx, tsv') =>
  `(select ${columns} from sentences s0 where s0.meeting_id = ${meeting} offset 0) s`;
/**
 * The text search configuration of a meeting (an SQL expression of its id), as ts_headline takes it:
 * the one its sentences were indexed with, so the words it marks are the words that matched.
 */
export const MEETING_CONFIG = (meeting: string) =>
  `(select mc.search_config from meetings mc where mc.id = ${meeting})::regconfig`;
/** The columns a moment reads: naming them rather than `*` spares projecting every column of every sentence a page tests. */
const MOMENT_COLUMNS = 'meeting_id, idx, speaker_name, start_time, text, tsv';

export { momentLink };

/** `**` marks and an ellipsis where ts_headline cut a long sentence. */
function markedText(text: string, headline: string): string {
  const plain = headline.replace(/\*\*/g, '');
  if (plain === text) return headline;
  const at = text.indexOf(plain);
  if (at < 0) return headline;
  return `${at > 0 ? '… ' : ''}${headline}${at + plain.length < text.length ? ' …' : ''}`;
}

/** Tokens of a moment's JSON: its text at the prose rate, the rest (ids, links, names) at the denser one. */
function momentTokens(m: MomentRecord): number {
  const prose = Buffer.byteLength(m.text, 'utf8');
  return estimateTextTokens(m.text) + estimateDenseTokens(Buffer.byteLength(JSON.stringify(m), 'utf8') - prose) + 2;
}

interface MomentRow {
  meeting_id: string;
  idx: number;
  speaker_name: string;
  start_time: number;
  text: string;
  marked: string;
}

/** Moments of one word read from best_moments, kept to this many a meeting (the 20261201000000 migration). */
export const BEST_MOMENTS_DEPTH = 10;

/**
 * A meeting's best `?` (per meeting) sentences for the query, searched: `pm.id` read by its primary
 * key and tested. `onlyIf`: a condition for searching at all (a one-time filter of the lateral).
 */
const searchedMoments = (onlyIf: string) =>
  '  select s.meeting_id, s.idx, s.speaker_name, s.start_time, s.text, ts_rank(s.tsv, ?::tsquery) as rank' +
  `  from ${meetingSentences('pm.id', MOMENT_COLUMNS)} where ${onlyIf}s.tsv @@ ?::tsquery order by rank desc, s.idx limit ?`;

/**
 * Each meeting's moments (`moments`, a lateral over `pm`), ts_headline marking them with the
 * meeting's text search configuration (the one its sentences were indexed with), in the meetings' order.
 */
const momentsSql = (from: string, moments: string, meetings = 'unnest(?::text[]) with ordinality as pm(id, ord)') =>
  'select x.meeting_id, x.idx, x.speaker_name, x.start_time, x.text,' +
  `  ts_headline(${MEETING_CONFIG('pm.id')}, x.text, ?::tsquery, case when length(x.text) < ${UNCUT_CHARS} then ? else ? end) as marked` +
  ` from ${meetings}${from} cross join lateral (${moments}) x` +
  ' order by pm.ord, x.rank desc, x.idx';

/** findMoments' statements, each prepared on each connection under its name (their texts are fixed). */
const SEARCHED = {
  name: 'mi_list_moments',
  text: numbered({
    sql: momentsSql('', searchedMoments('')),
    bindings: ['query', 'page headline', 'moment headline', 'meetings', 'query', 'query', 'per meeting'],
  }).text,
};
/**
 * For a one-word query: the word's best sentences of each meeting as best_moments lists them, read by
 * key (ranked again, for the order, from their own lexemes); a meeting with no best_moments row (live,
 * or too large for its lexeme sets) is searched. The word is each meeting's own (`pm.word`): its
 * language's lexeme of the keyword (keyword-query.ts, momentWords).
 */
const BY_WORD = {
  name: 'mi_list_moments_word',
  text: numbered({
    sql: momentsSql(
      ' left join best_moments b on b.meeting_id = pm.id',
      '  select s.meeting_id, s.idx, s.speaker_name, s.start_time, s.text, ts_rank(s.tsv, ?::tsquery) as rank' +
        '  from jsonb_array_elements_text(b.by_word -> pm.word) with ordinality as w(idx, n)' +
        '  join sentences s on s.meeting_id = pm.id and s.idx = w.idx::int' +
        '  where w.n <= ?' +
        ` union all (${searchedMoments('b.meeting_id is null and ')})`,
      'unnest(?::text[], ?::text[]) with ordinality as pm(id, word, ord)',
    ),
    bindings: [
      'query',
      'page headline',
      'moment headline',
      'meetings',
      'words',
      'query',
      'per meeting',
      'query',
      'query',
      'per meeting',
    ],
  }).text,
};

/**
 * The statement findMoments runs for these meetings, and the name it is prepared under (the benchmark
 * runs it alone too). `word`: the query's one lexeme (momentWord), when it has just one, or each
 * meeting's own (momentWords), in the meetings' order.
 */
export function momentsStatement(
  meetingIds: string[],
  sentenceQuery: string,
  perMeeting: number,
  word: string | string[] | null = null,
): Statement & { name: string } {
  const head = [sentenceQuery, PAGE_HEADLINE, MOMENT_HEADLINE, meetingIds];
  if (word !== null && perMeeting <= BEST_MOMENTS_DEPTH) {
    const words = typeof word === 'string' ? meetingIds.map(() => word) : word;
    return {
      ...BY_WORD,
      values: [...head, words, sentenceQuery, perMeeting, sentenceQuery, sentenceQuery, perMeeting],
    };
  }
  return { ...SEARCHED, values: [...head, sentenceQuery, sentenceQuery, perMeeting] };
}

/**
 * The best `perMeeting` moments of each meeting, best first (rank, then earlier), in the meetings' order.
 * `sentenceQuery` is momentTsquery of the keyword, `word` its momentWord.
 */
export async function findMoments(
  db: Knex,
  meetings: { id: string; transcript_url: string }[],
  sentenceQuery: string,
  perMeeting: number,
  word: string | string[] | null = null,
): Promise<MomentRecord[][]> {
  if (!meetings.length || perMeeting <= 0) return meetings.map(() => []);
  const statement = momentsStatement(
    meetings.map((m) => m.id),
    sentenceQuery,
    perMeeting,
    word,
  );
  const rows = await runSql<MomentRow>(db, statement, statement.name);
  const urls = new Map(meetings.map((m) => [m.id, m.transcript_url]));
  const byMeeting = new Map<string, MomentRecord[]>(meetings.map((m) => [m.id, []]));
  for (const r of rows) {
    const start = Number(r.start_time);
    byMeeting.get(r.meeting_id)!.push({
      meeting_id: r.meeting_id,
      index: r.idx,
      speaker_name: r.speaker_name,
      start_time: start,
      text: markedText(r.text, r.marked),
      link: momentLink(urls.get(r.meeting_id)!, start),
    });
  }
  return meetings.map((m) => byMeeting.get(m.id)!);
}

/**
 * Moments within `budget` tokens, taken round-robin (every meeting's best, then every meeting's
 * second, …) so a cut drops the weakest moments, never a whole meeting's. Answered in the meetings'
 * order, best first within a meeting.
 */
export function fitMoments(perMeeting: MomentRecord[][], budget: number): { moments: MomentRecord[]; omitted: number } {
  const taken = perMeeting.map(() => 0);
  let used = 0;
  let full = false;
  const depth = Math.max(0, ...perMeeting.map((ms) => ms.length));
  for (let rank = 0; rank < depth && !full; rank++) {
    for (let i = 0; i < perMeeting.length; i++) {
      const m = perMeeting[i][rank];
      if (!m) continue;
      const cost = momentTokens(m);
      if (used + cost > budget) {
        full = true;
        break;
      }
      used += cost;
      taken[i]++;
    }
  }
  const moments = perMeeting.flatMap((ms, i) => ms.slice(0, taken[i]));
  const all = perMeeting.reduce((n, ms) => n + ms.length, 0);
  return { moments, omitted: all - moments.length };
}
