/**
 * The project's labelled set of meeting notes (test/fixtures/notes) and the scorer that holds a
 * summarizer to it: type accuracy, topic precision (small talk and pleasantries count against) and
 * recall, action-item precision and recall, owner and due accuracy of the items found, and duplicates
 * (a second item for a commitment already listed). The labels were written by hand before tuning.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaptions } from '../../services/intelligence/captions';
import type { SummarizeOptions, Summary } from '../../services/intelligence/summarize';
import type { Sentence } from '../../services/intelligence/types';
import { demoManifest } from './questions';

const ROOT = join(__dirname, '..', '..');
export const NOTES_DIR = join(ROOT, 'test', 'fixtures', 'notes');

export interface LabelledItem {
  owner: string | string[] | null;
  due: string | string[] | null;
  index: number;
  also: number[];
  kind: 'commitment' | 'request' | 'offer';
}

export interface NotesLabels {
  transcript: string;
  title?: string | null;
  date?: string;
  type: string;
  topics: { name: string; words: string[] }[];
  off_topic: string[];
  items: LabelledItem[];
  optional: number[];
  not_items: number[];
}

export interface LabelledMeeting {
  /** The labels file's name without `.labels.json`. */
  name: string;
  labels: NotesLabels;
  sentences: Sentence[];
  /** What the summarize activity would pass: title, date and the people invited. */
  options: SummarizeOptions;
}

function readLabels(dir: string): { name: string; labels: NotesLabels }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.labels.json'))
    .sort()
    .map((f) => ({
      name: f.replace(/\.labels\.json$/, ''),
      labels: JSON.parse(readFileSync(join(dir, f), 'utf8')) as NotesLabels,
    }));
}

let cached: LabelledMeeting[] | undefined;

/** Every labelled meeting: the demo's (title, date and participants from its manifest) and the extra ones. */
export function loadLabelledSet(): LabelledMeeting[] {
  if (cached) return cached;
  const manifest = demoManifest() as Map<
    string,
    { title: string; date: string; participants?: { name: string; email: string }[] }
  >;
  cached = [...readLabels(join(NOTES_DIR, 'demo')), ...readLabels(join(NOTES_DIR, 'extra'))].map(({ name, labels }) => {
    const sentences = parseCaptions(readFileSync(join(ROOT, labels.transcript))).sentences;
    const demo = manifest.get(labels.transcript.split('/').pop()!);
    const speakers = [...new Set(sentences.map((s) => s.speaker_name))];
    const options: SummarizeOptions = demo
      ? { title: demo.title, meetingDate: demo.date, participants: demo.participants }
      : {
          ...(labels.title ? { title: labels.title } : {}),
          ...(labels.date ? { meetingDate: labels.date } : {}),
          participants: speakers.map((name) => ({ name })),
        };
    return { name, labels, sentences, options };
  });
  return cached;
}

/** Words that are never a topic: greetings, thanks and the filler of talk. */
const PLEASANTRIES = new Set(
  (
    'thanks thank great lovely perfect nice morning hello hi hey bye goodbye welcome weekend weather cool awesome ' +
    'sounds good okay ok yeah sure fine glad happy sorry everyone everybody guys folks question questions minute ' +
    'time today yesterday tomorrow thing things stuff lot bit kind sort'
  ).split(' '),
);

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
}

/** The same word, or one the start of the other ("retry" and "retries" share "retr"). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < 4) return false;
  const stem = short.length >= 6 ? short.slice(0, short.length - 2) : short.slice(0, 4);
  return long.startsWith(stem);
}

function names(owner: string | string[] | null): string[] {
  return owner === null ? [] : Array.isArray(owner) ? owner : [owner];
}

function samePerson(a: string | null, b: string): boolean {
  if (!a) return false;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || x.split(/\s+/)[0] === y.split(/\s+/)[0];
}

export interface MeetingScore {
  name: string;
  typeRight: boolean;
  type: string;
  expectedType: string;
  topics: number;
  topicsRight: number;
  /** Topics that carry small talk or a pleasantry. */
  smallTalkTopics: string[];
  labelledTopics: number;
  labelledTopicsFound: number;
  items: number;
  /** Items on optional moments: neither right nor wrong. */
  optionalItems: number;
  itemsRight: number;
  labelledItems: number;
  labelledItemsFound: number;
  /** Items found whose labelled owner is one person or a list (not everyone). */
  ownersChecked: number;
  ownersRight: number;
  duesChecked: number;
  duesRight: number;
  duplicates: number;
  /** Each duplicate: its text and the labelled commitment (the sentence stating it) it repeats. */
  duplicateItems: { text: string; of: number }[];
  /** Items made of a sentence labelled as not an item (a concern, meeting mechanics). */
  notItems: number;
  /** Texts of items that matched no label and no optional moment, for reading a run. */
  wrongItems: string[];
  missedItems: number[];
}

export function scoreMeeting(m: LabelledMeeting, summary: Summary): MeetingScore {
  const { labels } = m;
  const offTopic = labels.off_topic.map((w) => w.toLowerCase());
  const topicWords = labels.topics.map((t) => t.words.flatMap(wordsOf));
  const smallTalkTopics: string[] = [];
  let topicsRight = 0;
  const found = new Set<number>();
  for (const topic of summary.topics_discussed) {
    const words = wordsOf(topic);
    if (words.some((w) => PLEASANTRIES.has(w) || offTopic.some((o) => sameWord(o, w)))) {
      smallTalkTopics.push(topic);
      continue;
    }
    let right = false;
    topicWords.forEach((tw, i) => {
      if (words.some((w) => tw.some((x) => sameWord(w, x)))) {
        right = true;
        found.add(i);
      }
    });
    if (right) topicsRight++;
  }

  const optional = new Set(labels.optional);
  const notItems = new Set(labels.not_items);
  const matched = new Map<number, number>(); // label → times matched
  let itemsRight = 0;
  let optionalItems = 0;
  const duplicateItems: { text: string; of: number }[] = [];
  let notItemHits = 0;
  let ownersChecked = 0;
  let ownersRight = 0;
  let duesChecked = 0;
  let duesRight = 0;
  const wrongItems: string[] = [];
  for (const item of summary.action_items) {
    const moments = new Set([item.index, ...(item.moments ?? []).map((c) => c.index)]);
    const candidates = labels.items
      .map((l, i) => ({ l, i }))
      .filter(({ l }) => [l.index, ...l.also].some((x) => moments.has(x)));
    const pick =
      candidates.find(({ i, l }) => !matched.has(i) && names(l.owner).some((o) => samePerson(item.assignee, o))) ??
      candidates.find(({ i }) => !matched.has(i)) ??
      candidates[0];
    if (!pick) {
      if ([...moments].some((x) => optional.has(x))) optionalItems++;
      else {
        if (notItems.has(item.index)) notItemHits++;
        wrongItems.push(item.text);
      }
      continue;
    }
    if (matched.has(pick.i)) {
      duplicateItems.push({ text: item.text, of: pick.l.index });
      matched.set(pick.i, matched.get(pick.i)! + 1);
      continue;
    }
    matched.set(pick.i, 1);
    itemsRight++;
    const owners = names(pick.l.owner);
    if (owners.length) {
      ownersChecked++;
      if (owners.some((o) => samePerson(item.assignee, o))) ownersRight++;
    }
    const dues = pick.l.due === null ? [] : Array.isArray(pick.l.due) ? pick.l.due : [pick.l.due];
    if (dues.length) {
      duesChecked++;
      const said = (item.due ?? '').toLowerCase();
      if (said && dues.some((d) => said.includes(d.toLowerCase()) || d.toLowerCase().includes(said))) duesRight++;
    }
  }

  return {
    name: m.name,
    typeRight: summary.meeting_type === labels.type,
    type: summary.meeting_type,
    expectedType: labels.type,
    topics: summary.topics_discussed.length,
    topicsRight,
    smallTalkTopics,
    labelledTopics: labels.topics.length,
    labelledTopicsFound: found.size,
    items: summary.action_items.length,
    optionalItems,
    itemsRight,
    labelledItems: labels.items.length,
    labelledItemsFound: matched.size,
    ownersChecked,
    ownersRight,
    duesChecked,
    duesRight,
    duplicates: duplicateItems.length,
    duplicateItems,
    notItems: notItemHits,
    wrongItems,
    missedItems: labels.items.map((l, i) => (matched.has(i) ? -1 : l.index)).filter((x) => x >= 0),
  };
}

export interface SetScore {
  meetings: number;
  typeAccuracy: number;
  topicPrecision: number;
  topicRecall: number;
  smallTalkTopics: number;
  itemPrecision: number;
  itemRecall: number;
  ownerAccuracy: number;
  dueAccuracy: number;
  duplicates: number;
  notItems: number;
  perMeeting: MeetingScore[];
}

function ratio(a: number, b: number): number {
  return b === 0 ? 1 : a / b;
}

export function scoreSet(scores: MeetingScore[]): SetScore {
  const sum = (f: (s: MeetingScore) => number) => scores.reduce((t, s) => t + f(s), 0);
  return {
    meetings: scores.length,
    typeAccuracy: ratio(
      sum((s) => (s.typeRight ? 1 : 0)),
      scores.length,
    ),
    topicPrecision: ratio(
      sum((s) => s.topicsRight),
      sum((s) => s.topics),
    ),
    topicRecall: ratio(
      sum((s) => s.labelledTopicsFound),
      sum((s) => s.labelledTopics),
    ),
    smallTalkTopics: sum((s) => s.smallTalkTopics.length),
    itemPrecision: ratio(
      sum((s) => s.itemsRight),
      sum((s) => s.items - s.optionalItems),
    ),
    itemRecall: ratio(
      sum((s) => s.labelledItemsFound),
      sum((s) => s.labelledItems),
    ),
    ownerAccuracy: ratio(
      sum((s) => s.ownersRight),
      sum((s) => s.ownersChecked),
    ),
    dueAccuracy: ratio(
      sum((s) => s.duesRight),
      sum((s) => s.duesChecked),
    ),
    duplicates: sum((s) => s.duplicates),
    notItems: sum((s) => s.notItems),
    perMeeting: scores,
  };
}

/** Scores a summarizer on the whole labelled set. */
export async function scoreSummarizer(
  summarize: (m: LabelledMeeting) => Summary | Promise<Summary>,
): Promise<SetScore> {
  const scores: MeetingScore[] = [];
  for (const m of loadLabelledSet()) scores.push(scoreMeeting(m, await summarize(m)));
  return scoreSet(scores);
}
