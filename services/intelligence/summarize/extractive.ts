import { spokenSentencesWithSources } from '../text/spoken-sentences';
import type { Sentence } from '../types';
import { extractCandidates } from './action-items';
import { foldCommitments } from './commitments';
import { classifyMeeting } from './meeting-type';
import { buildOutline } from './outline';
import { overviewLines } from './overview';
import { smallTalkOf } from './small-talk';
import { documentFrequencies, equalParts, pickTerms, prepare, scoreTerms, type Prepared } from './terms';
import { topicNames, topicStretches } from './topics';
import type { ActionItem, Citation, MeetingType, SummarizeOptions, Summary } from './types';

const KEYWORDS = 10;
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

function minutesOf(seconds: number): string {
  const m = Math.max(1, Math.round(seconds / 60));
  return `${m} min`;
}

/** The transcript read once: spoken sentences, where each starts in the stored one, and the small talk. */
interface Reading {
  transcript: readonly Sentence[];
  sentences: Sentence[];
  sources: number[];
  smallTalk: boolean[];
}

function read(transcript: readonly Sentence[]): Reading {
  // Real sentences, not caption cues: key points and action items must read as whole sentences.
  const { sentences, sources } = spokenSentencesWithSources(transcript);
  return { transcript, sentences, sources, smallTalk: smallTalkOf(sentences) };
}

/** Sentences worth a vector: those that say something besides small talk. */
function worthEmbedding(r: Reading, i: number): boolean {
  return !r.smallTalk[i] && /\p{L}{3}/u.test(r.sentences[i].text);
}

/**
 * The built-in summary: deterministic, offline, linear in the length of the meeting. Every field is
 * filled, or `notes` says why it is empty. Compares words only; summarizeNotes uses the embedding model
 * of `options.embedder` as well.
 */
export function summarize(transcript: readonly Sentence[], options: SummarizeOptions = {}): Summary {
  return notesOf(read(transcript), options, null, {});
}

/**
 * The built-in summary with the embedding model, when `options.embedder` is set: each sentence that is
 * not small talk embedded once, so topic stretches and repeated commitments are found by meaning. A
 * model that fails leaves the words-only summary, with `notes.topics_discussed` saying why.
 */
export async function summarizeNotes(
  transcript: readonly Sentence[],
  options: SummarizeOptions = {},
): Promise<Summary> {
  const r = read(transcript);
  if (!options.embedder) return notesOf(r, options, null, {});
  const positions = r.sentences.map((_, i) => i).filter((i) => worthEmbedding(r, i));
  if (positions.length === 0) return notesOf(r, options, null, {});
  try {
    const embedded = await options.embedder.embedPassages(positions.map((i) => r.sentences[i].text));
    const vectors: (Float32Array | undefined)[] = new Array(r.sentences.length);
    positions.forEach((p, k) => (vectors[p] = embedded[k]));
    return notesOf(r, options, vectors, {});
  } catch (e) {
    return notesOf(r, options, null, {
      topics_discussed: `the embedding model failed (${(e as Error).message}); topics were found by comparing words`,
    });
  }
}

function notesOf(
  r: Reading,
  options: SummarizeOptions,
  vectors: (Float32Array | undefined)[] | null,
  notes: Summary['notes'],
): Summary {
  const { transcript, sentences, sources, smallTalk } = r;
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

  const everything = prepare(sentences, nameWords(people));
  // Small talk says nothing about what the meeting was about: its words are left out of keywords,
  // topics, the outline's names and the key points.
  const prepared: Prepared = {
    display: everything.display,
    sentences: everything.sentences.map((p, i) => (smallTalk[i] ? { ...p, unigrams: [], bigrams: [] } : p)),
  };
  const n = sentences.length;
  const parts = equalParts(n, Math.min(24, Math.ceil(n / 12)));
  const scored = scoreTerms(prepared, documentFrequencies(prepared, parts), parts.length, [0, n]);
  const keywordTerms = pickTerms(scored, KEYWORDS);
  const keywords = keywordTerms.map((t) => prepared.display(t.key));
  if (keywords.length === 0) notes.keywords = 'no word beyond common conversation was said more than in passing';

  const outline = buildOutline(prepared);
  const sections = outline.sections.map((o) => ({ ...o, index: cite(o.index).index }));
  const named = topicNames(topicStretches(prepared, smallTalk, vectors));
  const topics = named.map((t) => t.title);
  if (topics.length === 0) notes.topics_discussed ??= 'no subject was said more than in passing';

  let actionItems = foldCommitments(extractCandidates(sentences, { people, meetingDate: options.meetingDate }), {
    words: everything.sentences.map((p) => p.unigrams),
    texts: sentences.map((s) => s.text.toLowerCase()),
    vectors,
  }).map((a): ActionItem => {
    // Moments are stored sentences: two spoken sentences of one caption cue are one moment.
    const moments = [...new Map(a.moments.map((m) => cite(m.index)).map((c) => [c.index, c])).values()];
    return { ...a, ...cite(a.index), moments };
  });
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
  const organizerDomain = options.participants?.[0]?.email?.split('@')[1];
  const { type } = classifyMeeting(
    sentences.filter((_, i) => !smallTalk[i]).map((s) => s.text.toLowerCase().replace(/’/g, "'")),
    {
      speakers: speakers.length,
      durationSeconds: duration,
      title: options.title,
      hasExternalParticipants: Boolean(
        organizerDomain && options.participants?.some((p) => p.email && !p.email.endsWith(`@${organizerDomain}`)),
      ),
    },
  );
  if (type === 'general') notes.meeting_type = 'no meeting type had enough telling phrases; classified as general';

  const label = TYPE_LABEL[type];
  const shownPeople =
    speakers.length <= 4 ? listOf(speakers) : `${speakers.slice(0, 3).join(', ')} and ${speakers.length - 3} others`;
  const topicText = topics.length ? ` about ${listOf(topics.slice(0, 3).map((t) => t.toLowerCase()))}` : '';
  const itemsText = actionItems.length
    ? `; ${actionItems.length} action item${actionItems.length === 1 ? '' : 's'}`
    : '';
  const shortSummary = `${label} with ${shownPeople} (${minutesOf(duration)})${topicText}${itemsText}.`;

  const weights = new Map(scored.map((t) => [t.key, t.score]));
  const sectionStarts = outline.sections.map((s) => sentences.findIndex((x) => x.start_time >= s.start_time));
  const itemAt = new Set(actionItems.map((a) => a.index));
  const points = keyPoints(prepared, weights, sectionStarts, Math.min(5, Math.max(2, sections.length)))
    .map((s) => s.index)
    .filter((i) => !itemAt.has(cite(i).index));
  const lines = overviewLines({
    header: `${label} with ${listOf(speakers)}, ${minutesOf(duration)}.`,
    topics: named.map((t) => ({ title: t.title, at: cite(t.stretch.from) })),
    sentences,
    cite,
    smallTalk,
    keyPoints: points,
    items: actionItems,
  });

  return {
    keywords,
    action_items: actionItems,
    overview: lines.map((l) => l.text).join('\n'),
    overview_lines: lines,
    short_summary: shortSummary,
    topics_discussed: topics,
    meeting_type: type,
    outline: sections,
    notes,
    source: 'extractive',
  };
}
