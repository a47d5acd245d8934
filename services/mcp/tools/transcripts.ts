import { z } from 'zod';
import {
  fetchMeeting,
  FullMeeting,
  getSummary,
  getTranscript,
  SummaryFields,
  TRANSCRIPT_TOKENS,
  TranscriptPage,
} from '../../core/meetings';
import {
  CONTEXT_DEFAULT,
  CONTEXT_MAX,
  getTranscriptMatches,
  KEYWORD_MAX,
  TranscriptMatchPage,
} from '../../core/meetings';
import { clock } from '../format';
import { fetchOutput, summaryOutput, transcriptOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const meetingId = z.string().min(1, 'must not be empty').max(64, 'at most 64 characters');

const paging = {
  fromIndex: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .optional()
    .describe('Index of the first sentence to return (default 0). Pass next_index from the previous page to read on.'),
  maxTokens: z
    .number()
    .int('must be a whole number')
    .min(TRANSCRIPT_TOKENS.min, `at least ${TRANSCRIPT_TOKENS.min}`)
    .max(TRANSCRIPT_TOKENS.max, `at most ${TRANSCRIPT_TOKENS.max}`)
    .optional()
    .describe(
      `Token budget of this page, ${TRANSCRIPT_TOKENS.min} to ${TRANSCRIPT_TOKENS.max} (default set by the server, normally ${TRANSCRIPT_TOKENS.max}). ` +
        `The maximum keeps one answer within what MCP clients accept (25,000 tokens); read longer meetings page by page.`,
    ),
};

// ---------------------------------------------------------------------------------------------------
// Text renderings: a header line, one line per sentence, then how to read on.
// ---------------------------------------------------------------------------------------------------

function header(t: TranscriptPage): string {
  const live = t.is_live ? ' [LIVE: snapshot of the sentences so far]' : '';
  const state = t.status === 'completed' ? '' : ` (${t.meeting_info.message})`;
  const inferred = t.meeting_info.inferred_speakers?.length
    ? ` | named by voiceprint: ${t.meeting_info.inferred_speakers.map((x) => `${x.speaker} (${x.confidence})`).join(', ')}`
    : '';
  return `${t.title} | ${t.dateString} | ${t.duration} min | id ${t.id} | participants: ${t.participants || '(none)'}${live}${state}${inferred}`;
}

function sentenceLines(t: TranscriptPage, tool: string, idParam: string): string[] {
  const lines = t.sentences.map((s) => `[${clock(s.start_time)} - ${clock(s.end_time)}] ${s.speaker_name}: ${s.text}`);
  if (t.has_more)
    lines.push(`(more sentences follow: call ${tool} with ${idParam} "${t.id}" and fromIndex ${t.next_index})`);
  return lines;
}

const itemText = (x: unknown): string =>
  typeof x === 'string'
    ? x
    : x && typeof x === 'object' && 'text' in x
      ? String((x as { text: unknown }).text)
      : JSON.stringify(x);

/** "[12:04](link)" for a cited summary line, or nothing for a line stored before citations. */
const citation = (x: unknown): string => {
  const r = x && typeof x === 'object' ? (x as { start_time?: unknown; link?: unknown }) : {};
  return typeof r.start_time === 'number' && typeof r.link === 'string' ? ` [${clock(r.start_time)}](${r.link})` : '';
};

const outlineText = (x: unknown): string =>
  x && typeof x === 'object' && 'title' in x ? String((x as { title: unknown }).title) : itemText(x);

function summaryLines(s: SummaryFields | null, fallback: string): string[] {
  if (!s) return [`Summary: none (${fallback})`];
  const lines = [`Summary: ${s.short_summary || '(none)'}`];
  if (s.overview_lines.length)
    lines.push('Overview:', ...s.overview_lines.map((l) => `- ${itemText(l)}${citation(l)}`));
  else lines.push(`Overview: ${s.overview || '(none)'}`);
  lines.push(`Keywords: ${s.keywords.join(', ') || '(none)'}`);
  lines.push(
    `Meeting type: ${s.meeting_type ?? '(unknown)'}`,
    `Topics: ${s.topics_discussed.map(itemText).join('; ') || '(none)'}`,
  );
  lines.push(
    s.action_items.length ? 'Action items:' : 'Action items: (none)',
    ...s.action_items.map((a) => `- ${itemText(a)}${citation(a)}`),
  );
  if (s.outline.length) lines.push('Outline:', ...s.outline.map((o) => `- ${outlineText(o)}${citation(o)}`));
  return lines;
}

function matchLines(t: TranscriptMatchPage): string[] {
  const matched = new Set(t.matches.map((x) => x.index));
  const lines = [
    `${t.match_count} sentence${t.match_count === 1 ? '' : 's'} match "${t.keyword}"; this page shows ${t.matches.length} (marked >) with their neighbours.`,
  ];
  let last = -2;
  for (const s of t.sentences) {
    if (last >= 0 && s.index > last + 1) lines.push('…');
    const link = matched.has(s.index) ? ` (${t.transcript_url}#t=${Math.floor(s.start_time)})` : '';
    lines.push(`${matched.has(s.index) ? '>' : ' '} [${clock(s.start_time)}] ${s.speaker_name}: ${s.text}${link}`);
    last = s.index;
  }
  if (t.has_more)
    lines.push(
      `(more matches follow: call svc_get_transcript with transcriptId "${t.id}", keyword and fromIndex ${t.next_index})`,
    );
  return lines;
}

const transcriptText = (t: TranscriptPage | TranscriptMatchPage) =>
  'matches' in t
    ? [header(t), ...matchLines(t)].join('\n')
    : [header(t), ...sentenceLines(t, 'svc_get_transcript', 'transcriptId')].join('\n');

const fetchText = (f: FullMeeting) =>
  [
    header(f),
    ...summaryLines(f.summary, f.meeting_info.message),
    '',
    ...sentenceLines(f, 'svc_get_transcript', 'transcriptId'),
  ].join('\n');

// ---------------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------------

const getTranscriptTool = defineTool({
  name: 'svc_get_transcript',
  title: 'Read a transcript',
  description:
    "Read one meeting's transcript by id (from svc_get_transcripts or svc_search): sentences as a table (tab-separated in TOON; index, speaker_name, speaker_id, text, raw_text, " +
    'start_time, end_time in seconds; raw_text is the words before clean-up, null where they are the same as text), per-speaker analytics (duration, word_count, longest_monologue, monologues_count, filler_words, questions, duration_pct, ' +
    'words_per_minute, sentiment as positive_pct/neutral_pct/negative_pct), meeting_analytics, and metadata (title, dateString, duration in minutes, ' +
    'participants, privacy, status, meeting_info). No summary: use svc_get_summary for that. ' +
    `Long meetings come in pages within a token budget (maxTokens, at most ${TRANSCRIPT_TOKENS.max.toLocaleString('en-US')} so an answer stays under clients' 25,000-token limit): when has_more is true, call again with fromIndex set to next_index. ` +
    'A live meeting (is_live: true) answers a snapshot of the sentences captured so far. A meeting still processing or failed has no sentences; meeting_info.message says why. ' +
    'format text gives "[mm:ss - mm:ss] Speaker: text" lines. ' +
    'With keyword: only the sentences that match it (same syntax as svc_get_transcripts; matched words **bold**) and `context` neighbours either side, ' +
    'plus keyword, match_count (in the whole meeting) and matches (index, start_time, link of each matching sentence of the page); fromIndex/next_index page through the matches. ' +
    'Cite a moment as [meeting title, mm:ss](link).',
  input: {
    transcriptId: meetingId.describe('Meeting (transcript) id.'),
    ...paging,
    keyword: z
      .string()
      .min(1, 'must not be empty')
      .max(KEYWORD_MAX, `at most ${KEYWORD_MAX} characters`)
      .optional()
      .describe(
        'Only the sentences that match these words or "phrases", with their neighbours (e.g. the keyword of svc_get_transcripts).',
      ),
    context: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(CONTEXT_MAX, `at most ${CONTEXT_MAX}`)
      .optional()
      .describe(
        `With keyword: sentences before and after each match, 0 to ${CONTEXT_MAX} (default ${CONTEXT_DEFAULT}).`,
      ),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: transcriptOutput,
  scope: 'meetings:read',
  formats: true,
  run: ({ transcriptId, fromIndex, maxTokens, keyword, context }, { principal, deps }) =>
    keyword !== undefined
      ? getTranscriptMatches(deps.db, deps.config, principal, transcriptId, { keyword, fromIndex, maxTokens, context })
      : // Sized for the JSON form: the answer's structuredContent, which some clients show the model.
        getTranscript(deps.db, deps.config, principal, transcriptId, {
          fromIndex,
          maxTokens,
          rawText: 'when-different',
          budgetFor: 'json',
        }),
  text: transcriptText,
  toonDelimiter: '\t',
});

const fetchTool = defineTool({
  name: 'svc_fetch',
  title: 'Fetch a whole meeting',
  description:
    'Experimental. Everything about one meeting in one call: metadata, summary (keywords, action_items, overview, overview_lines, short_summary, topics_discussed, ' +
    'meeting_type, outline, notes; every overview line, action item and outline section cites its moment: index, start_time, link), analytics, and the transcript sentences (raw_text null where it is the same as text). Sentences are capped by the transcript token budget: when has_more is true, ' +
    'read the rest with svc_get_transcript and fromIndex = next_index. Prefer svc_get_summary or svc_get_transcript when you need only one part.',
  input: { id: meetingId.describe('Meeting (transcript) id.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: fetchOutput,
  scope: 'meetings:read',
  flag: 'fetch',
  formats: true,
  run: ({ id }, { principal, deps }) =>
    fetchMeeting(deps.db, deps.config, principal, id, { rawText: 'when-different', budgetFor: 'json' }),
  text: fetchText,
  toonDelimiter: '\t',
});

const getSummaryTool = defineTool({
  name: 'svc_get_summary',
  title: 'Read a meeting summary',
  description:
    'The summary of one meeting, without its transcript: keywords, action_items, overview, overview_lines, short_summary, topics_discussed, meeting_type, outline, ' +
    'and notes explaining any empty field. Every overview line, action item and outline section cites the moment it rests on (sentence index, ' +
    'start_time, link to the meeting page at that moment); an action item lists in moments every time it was said again. summary_status is processed when a summary exists; otherwise it is pending (live meeting), processing, ' +
    'failed or unavailable, with a message saying why and no summary fields. Use svc_get_transcript for what was said.',
  input: { transcriptId: meetingId.describe('Meeting (transcript) id.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: summaryOutput,
  scope: 'meetings:read',
  run: ({ transcriptId }, { principal, deps }) => getSummary(deps.db, deps.config, principal, transcriptId),
});

export const transcriptTools: ToolDef[] = [getTranscriptTool, fetchTool, getSummaryTool];
