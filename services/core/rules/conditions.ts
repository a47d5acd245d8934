/**
 * Whether a meeting meets a rule's conditions (all must hold). The facts are read once per meeting;
 * keyword conditions ask PostgreSQL, the rest are compared here.
 *
 * What each condition means:
 *   - title_contains: the title contains the text, ignoring case (a plain substring, not a word match);
 *   - organizer / participant with email: that address (ignoring case) organized / took part; the
 *     organizer counts as a participant; with domain: an address at exactly that domain
 *     (example.com matches ana@example.com, not ana@eu.example.com);
 *   - keyword: the words were said, matched exactly as svc_get_transcripts matches a keyword with
 *     scope `sentences` (web-search syntax, English stemming; every word somewhere in the meeting,
 *     a "quoted phrase" within one sentence, -word never; only stop words match nothing);
 *   - meeting_type: the type the summarizer gave the meeting;
 *   - channel: the meeting is in that channel now;
 *   - min_duration: the recording lasts at least that many minutes.
 */
import type { Knex } from 'knex';
import { keywordQuery, transcriptMatch, type KeywordQuery } from '../meetings';
import type { RuleCondition } from './validation';

export interface MeetingFacts {
  id: string;
  team_id: string;
  title: string;
  organizer_email: string;
  channel_id: string | null;
  duration_seconds: number;
  status: string;
  meeting_type: string | null;
  /** Lower-cased emails of everyone who took part, the organizer included. */
  participants: string[];
}

export async function loadMeetingFacts(db: Knex, meetingId: string): Promise<MeetingFacts | undefined> {
  const row = await db('meetings as m')
    .leftJoin('summaries as su', 'su.meeting_id', 'm.id')
    .where('m.id', meetingId)
    .first(
      'm.id',
      'm.team_id',
      'm.title',
      'm.organizer_email',
      'm.channel_id',
      'm.duration_seconds',
      'm.status',
      db.raw('coalesce(su.meeting_type, m.meeting_type) as meeting_type'),
      db.raw('array(select lower(mp.email) from meeting_participants mp where mp.meeting_id = m.id) as participants'),
    );
  if (!row) return undefined;
  const participants = new Set<string>([...(row.participants as string[]), String(row.organizer_email).toLowerCase()]);
  return { ...row, duration_seconds: Number(row.duration_seconds), participants: [...participants] } as MeetingFacts;
}

export interface ConditionOutcome {
  /** Position in the rule's conditions. */
  index: number;
  type: RuleCondition['type'];
  held: boolean;
  /** What was compared, for a person reading a test run: `title "Board sync" contains "board"`. */
  detail: string;
}

const q = (s: string) => JSON.stringify(s);
const atDomain = (email: string, domain: string) => email.toLowerCase().endsWith(`@${domain}`);

function describe(c: RuleCondition): string {
  switch (c.type) {
    case 'title_contains':
      return `title contains ${q(c.text)}`;
    case 'keyword':
      return `${q(c.text)} was said`;
    case 'organizer':
      return 'email' in c ? `organizer is ${c.email}` : `organizer is at ${c.domain}`;
    case 'participant':
      return 'email' in c ? `${c.email} took part` : `someone at ${c.domain} took part`;
    case 'meeting_type':
      return `meeting type is ${c.meeting_type}`;
    case 'channel':
      return `meeting is in channel ${c.channel_id}`;
    case 'min_duration':
      return `meeting lasts at least ${c.minutes} min`;
  }
}

/** Conditions decided without the database, given the meeting's facts. */
function heldLocally(c: Exclude<RuleCondition, { type: 'keyword' }>, f: MeetingFacts): boolean {
  switch (c.type) {
    case 'title_contains':
      return f.title.toLowerCase().includes(c.text.toLowerCase());
    case 'organizer':
      return 'email' in c ? f.organizer_email.toLowerCase() === c.email : atDomain(f.organizer_email, c.domain);
    case 'participant':
      return 'email' in c ? f.participants.includes(c.email) : f.participants.some((e) => atDomain(e, c.domain));
    case 'meeting_type':
      return f.meeting_type === c.meeting_type;
    case 'channel':
      return f.channel_id === c.channel_id;
    case 'min_duration':
      // Compared in seconds: 30 minutes means 1800 s or more.
      return f.duration_seconds >= c.minutes * 60;
  }
}

function actual(c: RuleCondition, f: MeetingFacts): string {
  switch (c.type) {
    case 'title_contains':
      return `title is ${q(f.title)}`;
    case 'keyword':
      return '';
    case 'organizer':
      return `organizer is ${f.organizer_email}`;
    case 'participant':
      return `participants: ${f.participants.join(', ') || 'none'}`;
    case 'meeting_type':
      return `meeting type is ${f.meeting_type ?? 'not known yet'}`;
    case 'channel':
      return f.channel_id ? `meeting is in channel ${f.channel_id}` : 'meeting is in no channel';
    case 'min_duration':
      return `meeting lasts ${Math.round((f.duration_seconds / 60) * 10) / 10} min`;
  }
}

// --- keyword: the search's semantics for one meeting --------------------------------------------------

/** A keyword that can never match: only stop words ("the and"). */
export const matchesNothing = (kq: KeywordQuery) => !kq.tree && !kq.opaque;

/** Whether the keyword was said in the meeting, exactly as the search would find it. */
export async function keywordSaid(db: Knex, meetingId: string, keyword: string): Promise<boolean> {
  const kq = await keywordQuery(db, keyword);
  if (matchesNothing(kq)) return false;
  const { rows } = await db.raw('select coalesce((?), false) as hit from meetings m where m.id = ?', [
    transcriptMatch(db, kq),
    meetingId,
  ]);
  return rows.length > 0 && rows[0].hit === true;
}

/**
 * Each condition's outcome, in order. With `all: false` (a real run) it stops at the first that does
 * not hold, so a rule that fails on its title never pays for a keyword search.
 */
export async function evaluateConditions(
  db: Knex,
  f: MeetingFacts,
  conditions: RuleCondition[],
  opts: { all?: boolean } = {},
): Promise<ConditionOutcome[]> {
  const out: ConditionOutcome[] = [];
  for (const [index, c] of conditions.entries()) {
    let held: boolean;
    let detail: string;
    if (c.type === 'keyword') {
      held = await keywordSaid(db, f.id, c.text);
      detail = `${q(c.text)} was ${held ? '' : 'not '}said`;
    } else {
      held = heldLocally(c, f);
      detail = held ? describe(c) : `not (${describe(c)}): ${actual(c, f)}`;
    }
    out.push({ index, type: c.type, held, detail });
    if (!held && !opts.all) break;
  }
  return out;
}

/** All conditions hold (an empty list always does). */
export const allHeld = (outcomes: ConditionOutcome[], conditions: RuleCondition[]) =>
  outcomes.length === conditions.length && outcomes.every((o) => o.held);

/** The sentence that says why a rule did not match: its first condition that does not hold. */
export function unmetReason(outcomes: ConditionOutcome[]): string | null {
  const first = outcomes.find((o) => !o.held);
  return first ? `conditions not met: condition ${first.index} (${first.type}) does not hold: ${first.detail}` : null;
}
