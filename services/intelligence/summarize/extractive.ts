import { spokenSentencesWithSources } from '../text/spoken-sentences';
import type { Sentence } from '../types';
import { extractActionItems } from './action-items';
import { classifyMeeting } from './meeting-type';
import { buildOutline } from './outline';
import { documentFrequencies, equalParts, pickTerms, prepare, scoreTerms, type Prepared } from './terms';
import type { ActionItem, Citation, MeetingType, OverviewLine, SummarizeOptions, Summary } from './types';

const KEYWORDS = 10;
const MAX_TOPICS = 8;
const MAX_ACTION_ITEMS = 50;

const TYPE_LABEL: Record<MeetingType, string> = {
  standup: 'Stand-up',
  sales: 'Sales call',
  interview: 'Interview',
  planning: 'Planning meeting',
  one_on_one: 'One-on-one',
  retrospective: 'Retrospective',
  demo: 'Demo',
  general: 'Meeting',
};

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

function speakersInOrder(sentences: readonly Sentence[]): string[] {
  const names: string[] = [];
  const seen = new Set<number>();
  for (const s of sentences) {
    if (!seen.has(s.speaker_id)) {
      seen.add(s.speaker_id);
      names.push(s.speaker_name);
    }
  }
  return names;
}

/** Lower-case name parts of everyone present, so names do not become keywords. */
function nameWords(names: string[]): Set<string> {
  const words = new Set<string>();
  for (const n of names) for (const w of n.toLowerCase().split(/[^\p{L}\p{N}'’-]+/u)) if (w) words.add(w);
  return words;
}

/** The meeting's most informative statements, one per section where possible, in time order. */
function keyPoints(
  prepared: Prepared,
  weights: Map<string, number>,
  sectionStarts: number[],
  count: number,
): Sentence[] {
  const scored = prepared.sentences
    .map((p, i) => {
      const unique = new Set(p.unigrams);
      let score = 0;
      for (const k of unique) score += weights.get(k) ?? 0;
      score /= Math.sqrt(p.wordCount + 1);
      const usable = p.wordCount >= 8 && p.wordCount <= 60 && !p.sentence.text.trim().endsWith('?');
      let section = 0;
      while (section + 1 < sectionStarts.length && sectionStarts[section + 1] <= i) section++;
      return { i, score: usable ? score : score * 0.1, section };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const picked: typeof scored = [];
  const sectionsUsed = new Set<number>();
  const textsUsed = new Set<string>();
  for (const onePerSection of [true, false]) {
    for (const c of scored) {
      if (picked.length >= count) break;
      const text = prepared.sentences[c.i].sentence.text.toLowerCase();
      if (c.score <= 0 || textsUsed.has(text)) continue;
      if (onePerSection && sectionsUsed.has(c.section)) continue;
      picked.push(c);
      sectionsUsed.add(c.section);
      textsUsed.add(text);
    }
  }
  return picked.sort((a, b) => a.i - b.i).map((c) => prepared.sentences[c.i].sentence);
}

function followUps(items: ActionItem[]): string {
  const owners = [...new Set(items.map((a) => a.assignee).filter((a): a is string => Boolean(a)))];
  const who = owners.length > 4 ? `${owners.slice(0, 3).join(', ')} and ${owners.length - 3} others` : listOf(owners);
  return `Follow-ups: ${items.length} action item${items.length === 1 ? '' : 's'}${who ? ` for ${who}` : ''}.`;
}

function minutesOf(seconds: number): string {
  const m = Math.max(1, Math.round(seconds / 60));
  return `${m} min`;
}

/**
 * The built-in summary: deterministic, offline, linear in the length of the meeting. Every field is
 * filled, or `notes` says why it is empty.
 */
export function summarize(transcript: readonly Sentence[], options: SummarizeOptions = {}): Summary {
  const notes: Summary['notes'] = {};
  // Real sentences, not caption cues: key points and action items must read as whole sentences.
  const { sentences, sources } = spokenSentencesWithSources(transcript);
  // What the notes say about a spoken sentence cites the stored sentence it starts in.
  const byIndex = new Map(transcript.map((s) => [s.index, s]));
  const cite = (spoken: number): Citation => {
    const stored = byIndex.get(sources[spoken])!;
    return { index: stored.index, start_time: stored.start_time };
  };
  const speakers = speakersInOrder(sentences);
  const people = [...new Set([...speakers, ...(options.participants ?? []).map((p) => p.name)])];
  if (sentences.length === 0) {
    const why = 'the transcript has no sentences';
    return {
      keywords: [],
      action_items: [],
      overview: '',
      overview_lines: [],
      short_summary: '',
      topics_discussed: [],
      meeting_type: 'general',
      outline: [],
      notes: {
        keywords: why,
        action_items: why,
        overview: why,
        short_summary: why,
        topics_discussed: why,
        outline: why,
        meeting_type: `${why}; classified as general`,
      },
      source: 'extractive',
    };
  }

  const prepared = prepare(sentences, nameWords(people));
  const n = sentences.length;
  const parts = equalParts(n, Math.min(24, Math.ceil(n / 12)));
  const scored = scoreTerms(prepared, documentFrequencies(prepared, parts), parts.length, [0, n]);
  const keywordTerms = pickTerms(scored, KEYWORDS);
  const keywords = keywordTerms.map((t) => prepared.display(t.key));
  if (keywords.length === 0) notes.keywords = 'no word beyond common conversation was said more than in passing';

  const outline = buildOutline(prepared);
  const sections = outline.sections.map((o) => ({ ...o, index: cite(o.index).index }));
  const { sectionTerms } = outline;
  // Topics follow the meeting's order: the leading terms of each section, or the keywords of a short meeting.
  const topicTerms: string[] = [];
  for (const t of sections.length > 1 ? sectionTerms.flat() : keywords.slice(0, 5)) {
    if (!topicTerms.some((x) => x.toLowerCase() === t.toLowerCase()) && topicTerms.length < MAX_TOPICS)
      topicTerms.push(t);
  }
  const topics = topicTerms.map(capitalize);
  if (topics.length === 0) notes.topics_discussed = 'no recurring subject stood out from everyday words';

  let actionItems = extractActionItems(sentences, { people, meetingDate: options.meetingDate, prepared }).map(
    (a): ActionItem => ({ ...a, ...cite(a.index), moments: a.moments.map((m) => cite(m.index)) }),
  );
  if (actionItems.length > MAX_ACTION_ITEMS) {
    notes.action_items = `${actionItems.length} candidate action items; the first ${MAX_ACTION_ITEMS} are kept`;
    actionItems = actionItems.slice(0, MAX_ACTION_ITEMS);
  } else if (actionItems.length === 0) {
    notes.action_items =
      "no sentence made a commitment or a request (I'll…, we need to…, let's…, can you…, action item, by <date>)";
  }

  const duration =
    sentences.reduce((t, s) => Math.max(t, s.end_time), 0) -
    sentences.reduce((t, s) => Math.min(t, s.start_time), Infinity);
  const lowerText = sentences.map((s) => s.text.toLowerCase().replace(/’/g, "'")).join('\n');
  const organizerDomain = options.participants?.[0]?.email?.split('@')[1];
  const { type } = classifyMeeting(lowerText, {
    speakers: speakers.length,
    durationSeconds: duration,
    title: options.title,
    hasExternalParticipants: Boolean(
      organizerDomain && options.participants?.some((p) => p.email && !p.email.endsWith(`@${organizerDomain}`)),
    ),
  });
  if (type === 'general') notes.meeting_type = 'no meeting type had enough telling phrases; classified as general';

  const label = TYPE_LABEL[type];
  const shownPeople =
    speakers.length <= 4 ? listOf(speakers) : `${speakers.slice(0, 3).join(', ')} and ${speakers.length - 3} others`;
  const topicText = topicTerms.length ? ` about ${listOf(topicTerms.slice(0, 3))}` : '';
  const itemsText = actionItems.length
    ? `; ${actionItems.length} action item${actionItems.length === 1 ? '' : 's'}`
    : '';
  const shortSummary = `${label} with ${shownPeople} (${minutesOf(duration)})${topicText}${itemsText}.`;

  const weights = new Map(scored.map((t) => [t.key, t.score]));
  const sectionStarts = sections.map((s) => sentences.findIndex((x) => x.start_time >= s.start_time));
  const points = keyPoints(prepared, weights, sectionStarts, Math.min(5, Math.max(2, sections.length)));
  const line = (text: string, at: Citation): OverviewLine => ({ text, ...at });
  const overviewLines: OverviewLine[] = [
    line(`${label} with ${listOf(speakers)}, ${minutesOf(duration)}.`, cite(0)),
    ...(topics.length
      ? [
          line(`Topics: ${listOf(topics.slice(0, 5))}.`, {
            index: sections[0].index,
            start_time: byIndex.get(sections[0].index)!.start_time,
          }),
        ]
      : []),
    ...points.map((s) => line(`- ${s.speaker_name}: ${s.text}`, cite(s.index))),
    ...(actionItems.length
      ? [line(followUps(actionItems), { index: actionItems[0].index, start_time: actionItems[0].start_time })]
      : []),
  ];

  return {
    keywords,
    action_items: actionItems,
    overview: overviewLines.map((l) => l.text).join('\n'),
    overview_lines: overviewLines,
    short_summary: shortSummary,
    topics_discussed: topics,
    meeting_type: type,
    outline: sections,
    notes,
    source: 'extractive',
  };
}
