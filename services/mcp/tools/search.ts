/**
 * Finding meetings: svc_get_transcripts with structured filters and svc_search (experimental) with
 * one query string in the grammar of services/core/meetings/grammar.ts. Both call the same core list, so they
 * answer the same records for the same filters.
 */
import { z } from 'zod';
import { listMeetings, MeetingList, searchMeetings } from '../../core/meetings';
import {
  EMAILS_MAX,
  isCalendarDate,
  isSearchEmail,
  KEYWORD_MAX,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  SCOPES,
  SKIP_MAX,
} from '../../core/meetings';
import {
  CHANNEL_ID_MAX,
  MOMENTS_DEFAULT,
  MOMENTS_MAX,
  QUERY_MAX,
  QUESTION_LIMIT_DEFAULT,
  QUESTION_MAX,
  QUESTION_POOL,
  RELEVANCE_POOL,
  SORTS,
} from '../../core/meetings';
import { clock } from '../format';
import { meetingListOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const FINDS =
  'Each meeting has id, title, date, duration (minutes), people, transcript_url and summary (short, or null); total counts ' +
  `the matches (at least total when total_is_lower_bound). Keywords use web-search syntax over the title and/or sentences (scope): ` +
  'every word must occur (stemmed in each meeting\'s language), "a phrase" within one sentence, `or` between words, -word excludes; ' +
  'stop words alone match nothing. ' +
  'With a keyword, moments are the matching sentences (**marked**), up to `moments` a meeting, best first: cite them as [title, mm:ss](link), no transcript ' +
  "needs reading (svc_get_transcript with the keyword reads all of one meeting's). For what was said in the user's own words, " +
  `pass question instead of keyword: the moments that answer it across meetings, best first, each with title, before and after; ` +
  `limit counts moments (skip + limit at most ${QUESTION_POOL}); not with keyword, scope, sort or moments; answered_by says ` +
  `meaning or words (note says why). Sort relevance ranks the ${RELEVANCE_POOL} newest matches by title and matching sentences, older ones follow by date.`;

export const isoDate = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an ISO date YYYY-MM-DD')
    .refine(isCalendarDate, 'must be a real calendar date YYYY-MM-DD')
    .optional()
    .describe(what);

const emails = (what: string) =>
  z
    .array(z.string().refine(isSearchEmail, 'must be an email address like name@example.com'))
    .max(EMAILS_MAX, `at most ${EMAILS_MAX} emails`)
    .optional()
    .describe(what);

const getTranscripts = defineTool({
  name: 'svc_get_transcripts',
  title: 'List meetings',
  description: 'Find meetings you can see; filters are optional and combine. ' + FINDS,
  input: {
    keyword: z
      .string()
      .max(KEYWORD_MAX, `at most ${KEYWORD_MAX} characters`)
      .optional()
      .describe('Words to find, matched where scope says.'),
    question: z
      .string()
      .min(1, 'must not be empty')
      .max(QUESTION_MAX, `at most ${QUESTION_MAX} characters`)
      .optional()
      .describe('A question in plain language, answered with moments.'),
    scope: z
      .enum(SCOPES, { error: 'must be one of title, sentences, all' })
      .optional()
      .describe('Where keyword matches (default all).'),
    fromDate: isoDate('First meeting day (UTC).'),
    toDate: isoDate('Last meeting day (UTC).'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(LIMIT_MAX, `at most ${LIMIT_MAX}; page with skip for more`)
      .optional()
      .describe(
        `Meetings (with question: moments) per page (default ${LIMIT_DEFAULT}; question ${QUESTION_LIMIT_DEFAULT}).`,
      ),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(SKIP_MAX, `at most ${SKIP_MAX}; narrow the filters instead`)
      .optional()
      .describe('next_skip of the previous page.'),
    organizers: emails('Organized by any of these.'),
    participants: emails('Attended by any of these.'),
    mine: z.boolean({ error: 'must be true or false' }).optional().describe('Only meetings you organized or attended.'),
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(CHANNEL_ID_MAX, `at most ${CHANNEL_ID_MAX} characters`)
      .optional()
      .describe('Only meetings of this channel (svc_list_channels).'),
    sort: z
      .enum(SORTS, { error: 'must be one of date, relevance' })
      .optional()
      .describe('date (newest first, default) or relevance (needs a keyword).'),
    moments: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(MOMENTS_MAX, `at most ${MOMENTS_MAX}; read all of one meeting's matches with svc_get_transcript and keyword`)
      .optional()
      .describe(`Matching sentences per meeting with a keyword (default ${MOMENTS_DEFAULT}).`),
  },
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: meetingListOutput,
  scope: 'meetings:read',
  run: (filters, { principal, deps }) => listMeetings(deps.db, deps.config, principal, filters, deps.embedder),
  text: (r: MeetingList) => listText(r, (skip) => `call again with skip: ${skip}`),
});

const search = defineTool({
  name: 'svc_search',
  title: 'Search meetings (query grammar)',
  description:
    'Experimental: svc_get_transcripts with one query string, the same answers. Grammar: bare words and keyword:"term" are keywords; ' +
    'question:"..."; scope:title|sentences|all; from:YYYY-MM-DD; to:YYYY-MM-DD; limit:N; skip:N; organizers:email1,email2 and ' +
    'participants:email1,email2 (may repeat); mine:true|false; channel:<id>; sort:date|relevance; moments:N. Quote values with spaces ' +
    '("...", \\" inside); other options at most once. E.g. `keyword:"pricing page" scope:sentences sort:relevance from:2026-10-01`.',
  input: {
    query: z
      .string()
      .min(1, 'must not be empty; e.g. keyword:"roadmap" from:2026-01-01')
      .max(QUERY_MAX, `at most ${QUERY_MAX} characters`)
      .describe('The query in the grammar above.'),
  },
  formats: true,
  flag: 'search',
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: meetingListOutput,
  scope: 'meetings:read',
  run: ({ query }, { principal, deps }) => searchMeetings(deps.db, deps.config, principal, query, deps.embedder),
  text: (r: MeetingList) => listText(r, (skip) => `add skip:${skip} to the query`),
});

/** "2026-11-02T15:00:00.000Z" → "2026-11-02 15:00 UTC". */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const totalText = (r: MeetingList) =>
  r.total_is_lower_bound
    ? `At least ${(r.total ?? 0).toLocaleString('en-US')} meetings match.`
    : `${r.total ?? r.meetings.length} meeting${r.total === 1 ? '' : 's'} match.`;

/** A question's answer: its moments as numbered citations, best first, each with the sentences around it. */
function answerText(r: MeetingList, nextPage: (skip: number) => string): string {
  const lines: string[] = [];
  if (r.note) lines.push(r.note);
  if (!r.moments?.length) {
    lines.push('No moment answers this question; try other words, a keyword, or wider filters.');
    return lines.join('\n');
  }
  r.moments.forEach((x, i) => {
    lines.push(
      `${i + 1}. [${oneLine(x.title ?? '')}, ${clock(x.start_time)}](${x.link}) ${x.speaker_name}: ${oneLine(x.text)}`,
    );
    const around = [x.before && `before: ${oneLine(x.before)}`, x.after && `after: ${oneLine(x.after)}`].filter(
      Boolean,
    );
    if (around.length) lines.push(`   (${around.join(' · ')})`);
  });
  if (r.moments_omitted) lines.push(`(${r.moments_omitted} more moments left out to keep this answer small.)`);
  lines.push(r.has_more ? `More answers: ${nextPage(r.next_skip!)}.` : 'No more answers.');
  return lines.join('\n');
}

/** One line per meeting (its moments below it, as citations), then how many match and how to get more. */
export function listText(r: MeetingList, nextPage: (skip: number) => string): string {
  if (r.answered_by) return answerText(r, nextPage);
  if (r.meetings.length === 0)
    return r.has_more ? `No meetings on this page; ${nextPage(r.next_skip ?? 0)}.` : 'No meetings match.';
  const lines = r.meetings.flatMap((m) => {
    const parts = [
      `${when(m.dateString)}`,
      `${oneLine(m.title)} (${m.duration} min)${m.is_live ? ' [live]' : ''}`,
      `id ${m.id}`,
      `organizer ${m.organizer_email}`,
      `participants ${m.participants || '(none)'}`,
    ];
    if (m.summary) parts.push(`summary: ${oneLine(m.summary)}`);
    const moments = (r.moments ?? []).filter((x) => x.meeting_id === m.id);
    return [
      parts.join(' · '),
      ...moments.map(
        (x) => `  - [${oneLine(m.title)}, ${clock(x.start_time)}](${x.link}) ${x.speaker_name}: ${oneLine(x.text)}`,
      ),
    ];
  });
  if (r.moments_omitted)
    lines.push(
      `(${r.moments_omitted} more moments left out to keep this answer small: svc_get_transcript with the meeting id and keyword reads them all.)`,
    );
  lines.push(
    `${totalText(r)} ${r.has_more ? `More on the next page: ${nextPage(r.next_skip!)}.` : 'No more meetings match.'}`,
  );
  return lines.join('\n');
}

export const searchTools: ToolDef[] = [search, getTranscripts];
