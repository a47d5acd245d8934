/**
 * A meeting read as ONE SQL statement: the visible meeting row (through visibleToSql) with its
 * participants, summary, analytics and a page of sentences as correlated subqueries, run as a named
 * statement (transcripts.ts shapes what it returns).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { notFound } from '../../platform/errors';
import { numbered, runSql, type Statement } from '../../platform/sql';
import { visibleToSql, type Principal } from '../access';
import { recordRead } from '../audit';
import { meetingColumns, type MeetingRow } from './records';
import type { MeetingAnalyticsRecord, SentenceRecord, SpeakerAnalyticsRecord } from './transcripts';

/**
 * Everything a read returns comes from ONE SQL statement: the visible meeting row (through visibleToSql)
 * with its participants, summary, analytics and first sentences as correlated subqueries. A single
 * statement runs on one snapshot, so the answer is a consistent point in time (a live meeting's
 * sentences, its metadata and analytics all from the same instant) without an explicit transaction,
 * and a call costs one round-trip instead of eight.
 */
export interface ReadWants {
  /** 'full': the summary fields · 'exists': only whether a summary exists (for meeting_info). */
  summary: 'full' | 'exists';
  /** Analytics, participants and a sentence page (from, at most `cap` rows); absent for the summary read. */
  page?: { fromIndex: number; cap: number; rawTextWhenDifferent: boolean };
}

interface SummaryRow {
  keywords: unknown;
  action_items: unknown;
  overview: string | null;
  overview_lines: unknown;
  short_summary: string | null;
  topics_discussed: unknown;
  meeting_type: string | null;
  outline: unknown;
  notes: Record<string, unknown> | null;
}

/** A row of `sentences` as selected (idx, speaker, text, times). */
export interface SentenceRow extends Omit<SentenceRecord, 'index'> {
  idx: number;
}

/** The meeting row plus what `ReadWants` asked for; summary and has_summary are null/false unless status is completed. */
export interface ReadRow extends MeetingRow {
  summary?: SummaryRow | null;
  has_summary?: boolean;
  participants?: string[];
  analytics?: SpeakerAnalyticsRecord[] | null;
  meeting_analytics?: MeetingAnalyticsRecord | null;
  /** null when the meeting is not readable yet (see `readable`) or no sentence is at or past fromIndex. */
  sentences?: SentenceRow[] | null;
}

const SUMMARY_SQL = `(select json_build_object('keywords', s.keywords, 'action_items', s.action_items, 'overview', s.overview,
    'overview_lines', s.overview_lines, 'short_summary', s.short_summary, 'topics_discussed', s.topics_discussed, 'meeting_type', s.meeting_type, 'outline', s.outline, 'notes', s.notes)
  from summaries s where s.meeting_id = m.id and m.status = 'completed') as summary`;
const HAS_SUMMARY_SQL = `(m.status = 'completed' and exists (select 1 from summaries s where s.meeting_id = m.id)) as has_summary`;
const PARTICIPANTS_SQL = `coalesce((select array_agg(mp.email order by mp.email) from meeting_participants mp where mp.meeting_id = m.id), '{}') as participants`;
const ANALYTICS_SQL = `(select json_agg(json_build_object('speaker_id', sa.speaker_id, 'name', sa.name, 'duration', sa.duration,
    'word_count', sa.word_count, 'longest_monologue', sa.longest_monologue, 'monologues_count', sa.monologues_count,
    'filler_words', sa.filler_words, 'questions', sa.questions, 'duration_pct', sa.duration_pct, 'words_per_minute', sa.words_per_minute,
    'positive_pct', sa.positive_pct, 'neutral_pct', sa.neutral_pct, 'negative_pct', sa.negative_pct) order by sa.speaker_id)
  from speaker_analytics sa where sa.meeting_id = m.id) as analytics`;
const MEETING_ANALYTICS_SQL = `(select json_build_object('duration_seconds', ma.duration_seconds, 'silence_seconds', ma.silence_seconds,
    'talk_listen_ratio', ma.talk_listen_ratio, 'positive_pct', ma.positive_pct, 'neutral_pct', ma.neutral_pct, 'negative_pct', ma.negative_pct)
  from meeting_analytics ma where ma.meeting_id = m.id) as meeting_analytics`;
// Sentences are readable only once transcription finished, or live as a snapshot (same rule as `readable`).
const SENTENCES_SQL = `case when m.status in ('completed', 'live') or m.is_live then
  (select json_agg(se order by se.idx) from (
    select st.idx, st.speaker_name, st.speaker_id, st.text,
           case when ?::boolean and st.raw_text = st.text then null else st.raw_text end as raw_text, st.start_time, st.end_time
    from sentences st where st.meeting_id = m.id and st.idx >= ? order by st.idx limit ?) se)
  end as sentences`;

const READ_COLUMNS = [...meetingColumns('m'), 'm.progress'].join(', ');

/** Each read's SQL text and its statement name, so a call hashes no text seen before. */
const readNames = new LRUCache<string, string>({ max: 256 });

/**
 * The read as one named statement, which PostgreSQL parses and plans once per connection rather than
 * on every call: planning this statement costs about as much server CPU as running it. The name is a
 * digest of the SQL text, so every distinct shape (admin or not, summary or page) is a statement of
 * its own, and pg refuses to reuse a name for different text. It runs through runSql, as the API-key
 * lookup before it does: on its generic plan (a read by the meeting's key), without knex building it
 * on every call, and with no reset of the connection's plan setting before it and no set again on the
 * next call (platform/sql). (A transaction-mode pooler in front of PostgreSQL would need
 * protocol-level prepared statements, e.g. PgBouncer 1.21+ max_prepared_statements.)
 */
function readStatement(p: Principal, id: string, wants: ReadWants): [Statement, string] {
  const columns = [READ_COLUMNS, wants.summary === 'full' ? SUMMARY_SQL : HAS_SUMMARY_SQL];
  const bindings: unknown[] = [];
  if (wants.page) {
    columns.push(PARTICIPANTS_SQL, ANALYTICS_SQL, MEETING_ANALYTICS_SQL, SENTENCES_SQL);
    bindings.push(wants.page.rawTextWhenDifferent, wants.page.fromIndex, wants.page.cap);
  }
  const visible = visibleToSql(p, 'm');
  const st = numbered({
    sql: `select ${columns.join(', ')} from meetings as m where ${visible.sql} and m.id = ? limit 1`,
    bindings: [...bindings, ...visible.bindings, id] as Knex.RawBinding[],
  });
  let name = readNames.get(st.text);
  if (name === undefined) {
    name = `mi_read_meeting_${createHash('sha1').update(st.text).digest('hex').slice(0, 24)}`;
    readNames.set(st.text, name);
  }
  return [st, name];
}

export async function readMeeting(db: Knex, p: Principal, id: string, wants: ReadWants): Promise<ReadRow> {
  const [m] = await runSql<ReadRow>(db, ...readStatement(p, id, wants));
  if (!m) throw notFound('meeting', id);
  // The read audit: only a read that found a visible meeting is one (audit/reads.ts, recordRead).
  recordRead(db, p, { id: m.id, teamId: m.team_id });
  return m;
}
