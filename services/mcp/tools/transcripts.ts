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
    .describe('First sentence to return (default 0): next_index of the previous page.'),
  maxTokens: z
    .number()
    .int('must be a whole number')
    .min(TRANSCRIPT_TOKENS.min, `at least ${TRANSCRIPT_TOKENS.min}`)
    .max(TRANSCRIPT_TOKENS.max, `at most ${TRANSCRIPT_TOKENS.max}`)
    .optional()
    .describe('Token budget of the page (default: the maximum).'),
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
    "One meeting's transcript: sentences (raw_text null where it equals text), per-speaker analytics and metadata; no summary (svc_get_summary). " +
    `Paged within maxTokens (at most ${TRANSCRIPT_TOKENS.max.toLocaleString('en-US')}): read on with fromIndex = next_index. ` +
    'A live meeting answers the sentences so far; one processing or failed has none (meeting_info.message says why). ' +
    'With keyword: only the matching sentences (matched words **bold**) and `context` neighbours, with match_count and matches (index, start_time, link) to cite.',
  input: {
    transcriptId: meetingId.describe('Meeting id.'),
    ...paging,
    keyword: z
      .string()
      .min(1, 'must not be empty')
      .max(KEYWORD_MAX, `at most ${KEYWORD_MAX} characters`)
      .optional()
      .describe('Only sentences matching these words or "phrases" (syntax of svc_get_transcripts).'),
    context: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(CONTEXT_MAX, `at most ${CONTEXT_MAX}`)
      .optional()
      .describe(`With keyword: neighbours either side of a match (default ${CONTEXT_DEFAULT}).`),
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
    'Experimental. One meeting whole: metadata, summary, analytics and sentences up to the transcript budget (read the rest with svc_get_transcript from next_index). ' +
    'Prefer svc_get_summary or svc_get_transcript for one part.',
  input: { id: meetingId.describe('Meeting id.') },
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
    "One meeting's notes: keywords, action_items, overview, overview_lines, short_summary, topics_discussed, meeting_type, outline; notes says why a field is empty. " +
    "Every overview line, action item and outline section cites its moment (index, start_time, link); an item's moments list each time it was said again. " +
    'Only when summary_status is processed; else (pending, processing, failed, unavailable) message says why.',
  input: { transcriptId: meetingId.describe('Meeting id.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: summaryOutput,
  scope: 'meetings:read',
  run: ({ transcriptId }, { principal, deps }) => getSummary(deps.db, deps.config, principal, transcriptId),
});

export const transcriptTools: ToolDef[] = [getTranscriptTool, fetchTool, getSummaryTool];
