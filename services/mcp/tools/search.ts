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
  QUESTION_LIMIT_MAX,
  QUESTION_MAX,
  QUESTION_POOL,
  RELEVANCE_POOL,
  SORTS,
  TOTAL_BOUND,
} from '../../core/meetings';
import { clock } from '../format';
import { meetingListOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const RETURNS =
  'Returns {meetings, total, total_is_lower_bound, has_more, next_skip, moments, moments_omitted}; each meeting has id (the transcript id), title, dateString (ISO, UTC), ' +
  'date (epoch ms), duration (minutes), organizer_email, participants (comma-separated emails), privacy, is_live, transcript_url ' +
  `and summary (a short summary, or null). total is how many meetings match (counting stops at ${TOTAL_BOUND.toLocaleString('en-US')}: ` +
  `total_is_lower_bound true means "at least ${TOTAL_BOUND.toLocaleString('en-US')}"); has_more says more follow this page. ` +
  'With a keyword (scope sentences or all), moments are the matching sentences of the listed meetings, a table of meeting_id, index, ' +
  `speaker_name, start_time (seconds), text (matched words in **bold**; … where a long sentence was cut) and link (the meeting page at that moment), ` +
  `at most \`moments\` a meeting (default ${MOMENTS_DEFAULT}), best first; moments_omitted counts those left out to keep the answer small. ` +
  'To answer a question, search with its key words and a small limit (3 to 5: the moments are the evidence, no transcript ' +
  'needs reading), then cite the moment as [meeting title, mm:ss](link), mm:ss being start_time, and quote the sentence. ' +
  'For every match in one meeting with the sentences around it, call svc_get_transcript with its id and the same keyword. ' +
  'Otherwise no transcript content: svc_get_transcript reads sentences, svc_get_summary the summary.';

const QUESTION_USE =
  `To find what was said in the user's own words (they remember the gist, not the words), pass question instead of keyword: ` +
  `the answer is the moments that answer it best across meetings, best first: each with meeting_id, title, index, speaker_name, ` +
  `start_time, text, before and after (the sentences either side) and link; limit counts moments (1-${QUESTION_LIMIT_MAX}, default ${QUESTION_LIMIT_DEFAULT}; ` +
  `skip + limit at most ${QUESTION_POOL}); filters still apply; keyword, scope, sort and moments do not go with it. answered_by says ` +
  `whether it was answered by meaning or by its words alone (note says why). Cite as with keyword moments. Use keyword for exact words, names or phrases.`;

const SORT_SYNTAX =
  `Order: date (newest first, default) or relevance (how well each meeting matches the keyword: its title and up to 20 matching sentences; ` +
  `newer first on ties; the ${RELEVANCE_POOL} newest matching meetings are ranked, older matches follow by date, so narrow with dates when total is larger).`;

const KEYWORD_SYNTAX =
  "Keywords use web-search syntax over the title and/or what was said: every word must occur (stemmed in each meeting's " +
  'language, so "plans" finds "planning" and "Häuser" finds "Haus"; in scope sentences anywhere in the meeting), "a quoted phrase" must occur as written within one sentence, ' +
  '`or` between words matches either, -word excludes meetings where it occurs. Words that are only stop words (the, and) match nothing.';

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
  description:
    'Find meetings you can see with structured filters; all filters are optional and combine (a meeting must pass each). ' +
    'Use this to list recent meetings, search by keyword, date range or people. ' +
    'svc_search does the same with one query string, when enabled for your team. ' +
    RETURNS +
    ` Page with skip = next_skip. ${QUESTION_USE} ${KEYWORD_SYNTAX} ` +
    `${SORT_SYNTAX} ` +
    'Example: {"keyword": "budget", "sort": "relevance", "fromDate": "2026-10-01", "participants": ["ana@example.com"]}.',
  input: {
    keyword: z
      .string()
      .max(KEYWORD_MAX, `at most ${KEYWORD_MAX} characters`)
      .optional()
      .describe(`Words to find, at most ${KEYWORD_MAX} characters; where is set by scope.`),
    question: z
      .string()
      .min(1, 'must not be empty')
      .max(QUESTION_MAX, `at most ${QUESTION_MAX} characters`)
      .optional()
      .describe(
        `A question in plain language, at most ${QUESTION_MAX} characters: answered with the moments that answer it (above).`,
      ),
    scope: z
      .enum(SCOPES, { error: 'must be one of title, sentences, all' })
      .optional()
      .describe('Where keyword must match: title, sentences (what was said), or all (either; default).'),
    fromDate: isoDate('Earliest meeting day, YYYY-MM-DD (UTC, inclusive).'),
    toDate: isoDate('Latest meeting day, YYYY-MM-DD (UTC, inclusive).'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(LIMIT_MAX, `at most ${LIMIT_MAX}; page with skip for more`)
      .optional()
      .describe(`Meetings per page, 1 to ${LIMIT_MAX} (default ${LIMIT_DEFAULT}).`),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(SKIP_MAX, `at most ${SKIP_MAX}; narrow the filters instead`)
      .optional()
      .describe('Meetings to skip: the next_skip of the previous page.'),
    organizers: emails('Only meetings organized by any of these emails.'),
    participants: emails('Only meetings any of these emails took part in.'),
    mine: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true: only meetings you organized or took part in.'),
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(CHANNEL_ID_MAX, `at most ${CHANNEL_ID_MAX} characters`)
      .optional()
      .describe(
        'Only meetings of this channel (id from svc_list_channels). A channel you cannot see is object_not_found.',
      ),
    sort: z
      .enum(SORTS, { error: 'must be one of date, relevance' })
      .optional()
      .describe(`${SORT_SYNTAX} relevance needs a keyword; without one the order is by date.`),
    moments: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(MOMENTS_MAX, `at most ${MOMENTS_MAX}; read all of one meeting's matches with svc_get_transcript and keyword`)
      .optional()
      .describe(
        `Matching sentences to show per meeting with a keyword, 0 to ${MOMENTS_MAX} (default ${MOMENTS_DEFAULT}).`,
      ),
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
    'Search meetings you can see with one query string (experimental). Same results as svc_get_transcripts, whose structured ' +
    'parameters are the better choice when you build filters programmatically. ' +
    RETURNS +
    ' Grammar: bare words and keyword:"term" are keywords (all must match); question:"..." asks in plain language (see svc_get_transcripts: ' +
    `moments that answer it, limit 1-${QUESTION_LIMIT_MAX}; not with keywords, scope, sort or moments); scope:title|sentences|all (default all); ` +
    'from:YYYY-MM-DD and to:YYYY-MM-DD (UTC days, inclusive); limit:N (1-50, default 10); skip:N (offset: use next_skip); ' +
    'organizers:email1,email2 and participants:email1,email2 (any of them; may repeat); mine:true|false (meetings you organized ' +
    'or attended); channel:<id> (a channel from svc_list_channels); sort:date|relevance; moments:N (0-10 matching sentences per meeting, default 3). ' +
    'Quote values with spaces ("..."; \\" inside). Each of scope, from, to, limit, skip, mine, channel, sort, moments at most once. ' +
    KEYWORD_SYNTAX +
    ` ${SORT_SYNTAX}` +
    ' Examples: `budget forecast from:2026-10-01 to:2026-10-31` · `keyword:"pricing page" scope:sentences participants:ana@example.com sort:relevance` · ' +
    '`mine:true limit:20 skip:20`.',
  input: {
    query: z
      .string()
      .min(1, 'must not be empty; e.g. keyword:"roadmap" from:2026-01-01')
      .max(QUERY_MAX, `at most ${QUERY_MAX} characters`)
      .describe('The query in the grammar above, e.g. keyword:"roadmap" scope:title mine:true.'),
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
