import type { Sentence } from '../types';
import { spokenSentences } from '../text/spoken-sentences';
import { countWords } from '../text/words';
import { countFillers } from './fillers';
import { monologuesBySpeaker } from './monologues';
import { polarity } from './sentiment';

/** One row of `speaker_analytics` (without meeting_id). */
export interface SpeakerAnalytics {
  speaker_id: number;
  name: string;
  email: string | null;
  /** Seconds of speech (sum of the speaker's sentence lengths). */
  duration: number;
  word_count: number;
  words_per_minute: number;
  filler_words: number;
  /** Spoken sentences ending in a question mark. */
  questions: number;
  monologues_count: number;
  longest_monologue: number;
  /** Share of all speech in the meeting, 0–100. */
  duration_pct: number;
  positive_pct: number;
  neutral_pct: number;
  negative_pct: number;
}

/** One row of `meeting_analytics` (without meeting_id). */
export interface MeetingAnalytics {
  duration_seconds: number;
  /** Seconds between the first and the last sentence when nobody was speaking. */
  silence_seconds: number;
  /**
   * The host's speaking time divided by everyone else's: 1 is balanced, 0.5 means the host listened
   * twice as long as they talked. The host is the organizer's speaker when known, else the speaker
   * who talked most. Null when nobody but the host spoke.
   */
  talk_listen_ratio: number | null;
  positive_pct: number;
  neutral_pct: number;
  negative_pct: number;
}

export interface Analytics {
  meeting: MeetingAnalytics;
  speakers: SpeakerAnalytics[];
}

export interface AnalyzeOptions {
  /** Speaker name (case-insensitive) to email, e.g. from the meeting's participants. */
  speakerEmails?: Record<string, string>;
  /** The organizer's email; picks the host for the talk-listen ratio. */
  hostEmail?: string;
  /** Length of the recording when known (media duration); the meeting lasts at least until the last sentence. */
  mediaDurationSeconds?: number;
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const r3 = (n: number) => Math.round(n * 1000) / 1000;
const pct = (part: number, whole: number) => (whole > 0 ? r2((part * 100) / whole) : 0);

interface Tally {
  speaker_id: number;
  name: string;
  duration: number;
  words: number;
  fillers: number;
  questions: number;
  positive: number;
  neutral: number;
  negative: number;
  /** Spoken sentences, the denominator of the sentiment shares. */
  sentences: number;
}

const QUESTION_END = /\?["'”’)\]]*\s*$/;

function emptyTally(s: Sentence): Tally {
  return {
    speaker_id: s.speaker_id,
    name: s.speaker_name,
    duration: 0,
    words: 0,
    fillers: 0,
    questions: 0,
    positive: 0,
    neutral: 0,
    negative: 0,
    sentences: 0,
  };
}

/** Seconds of the span [first start, last end] that no sentence covers (overlapping speech counts once). */
function silenceBetween(sentences: readonly Sentence[]): number {
  const byStart = [...sentences].sort((a, b) => a.start_time - b.start_time);
  let silence = 0;
  let coveredUntil = byStart.length ? byStart[0].start_time : 0;
  for (const s of byStart) {
    if (s.start_time > coveredUntil) silence += s.start_time - coveredUntil;
    coveredUntil = Math.max(coveredUntil, s.end_time);
  }
  return silence;
}

function pickHost(
  tallies: Tally[],
  options: AnalyzeOptions,
  emailOf: (name: string) => string | null,
): Tally | undefined {
  const host = options.hostEmail?.toLowerCase();
  const byEmail = host ? tallies.find((t) => emailOf(t.name)?.toLowerCase() === host) : undefined;
  return (
    byEmail ??
    tallies.reduce<Tally | undefined>((best, t) => (!best || t.duration > best.duration ? t : best), undefined)
  );
}

/**
 * Conversation metrics of one meeting, per speaker and overall. Time and words come from the sentences
 * as given (cues or ASR segments); filler words, questions and sentiment from the spoken sentences
 * rebuilt from them, since a cue can end mid-sentence ("you" | "know,") or hold two sentences.
 */
export function analyze(sentences: readonly Sentence[], options: AnalyzeOptions = {}): Analytics {
  const emails = new Map(
    Object.entries(options.speakerEmails ?? {}).map(([name, email]) => [name.toLowerCase(), email]),
  );
  const emailOf = (name: string) => emails.get(name.toLowerCase()) ?? null;

  const tallies = new Map<number, Tally>();
  let lastEnd = 0;
  for (const s of sentences) {
    let t = tallies.get(s.speaker_id);
    if (!t) tallies.set(s.speaker_id, (t = emptyTally(s)));
    t.duration += Math.max(0, s.end_time - s.start_time);
    t.words += countWords(s.text);
    lastEnd = Math.max(lastEnd, s.end_time);
  }
  const meetingMood = { positive: 0, neutral: 0, negative: 0 };
  const spoken = spokenSentences(sentences);
  for (const s of spoken) {
    const t = tallies.get(s.speaker_id)!;
    t.fillers += countFillers(s.text);
    if (QUESTION_END.test(s.text)) t.questions++;
    const mood = polarity(s.text);
    t[mood]++;
    meetingMood[mood]++;
    t.sentences++;
  }

  const all = [...tallies.values()].sort((a, b) => a.speaker_id - b.speaker_id);
  const talk = all.reduce((n, t) => n + t.duration, 0);
  const monologues = monologuesBySpeaker(sentences);
  const speakers: SpeakerAnalytics[] = all.map((t) => {
    const m = monologues.get(t.speaker_id) ?? { count: 0, longest: 0 };
    return {
      speaker_id: t.speaker_id,
      name: t.name,
      email: emailOf(t.name),
      duration: r3(t.duration),
      word_count: t.words,
      words_per_minute: t.duration > 0 ? r1(t.words / (t.duration / 60)) : 0,
      filler_words: t.fillers,
      questions: t.questions,
      monologues_count: m.count,
      longest_monologue: r3(m.longest),
      duration_pct: pct(t.duration, talk),
      positive_pct: pct(t.positive, t.sentences),
      neutral_pct: pct(t.neutral, t.sentences),
      negative_pct: pct(t.negative, t.sentences),
    };
  });

  const host = pickHost(all, options, emailOf);
  const listen = host ? talk - host.duration : 0;
  return {
    meeting: {
      duration_seconds: r3(Math.max(lastEnd, options.mediaDurationSeconds ?? 0)),
      silence_seconds: r3(silenceBetween(sentences)),
      talk_listen_ratio: host && listen > 0 ? r3(host.duration / listen) : null,
      positive_pct: pct(meetingMood.positive, spoken.length),
      neutral_pct: pct(meetingMood.neutral, spoken.length),
      negative_pct: pct(meetingMood.negative, spoken.length),
    },
    speakers,
  };
}
