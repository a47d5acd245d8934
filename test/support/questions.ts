/**
 * The project's question set over the demo team's meetings (test/fixtures/questions): each question
 * resolved to the one transcript sentence that answers it, as the caption parser stores it, so a recall
 * test or a benchmark can tell whether a search returned the right moment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaptions } from '../../services/intelligence/captions';
import type { Sentence } from '../../services/intelligence/types';
import { FIXTURES_DIR } from '../../services/cli/demo/people';

export const QUESTIONS_FILE = join(__dirname, '..', 'fixtures', 'questions', 'demo-questions.json');

export type QuestionKind = 'paraphrase' | 'keyword';

export interface DemoQuestion {
  id: string;
  question: string;
  /** File name of the demo meeting (services/cli/demo/meetings). */
  meeting: string;
  /** Verbatim part of the answering sentence, with the caption's line breaks folded to spaces. */
  answer: string;
  kind: QuestionKind;
}

export interface ResolvedQuestion extends DemoQuestion {
  meetingFile: string;
  /** Title and date of the meeting as the manifest gives them (the demo seed uploads it so). */
  title: string;
  date: string;
  /** The seed's client_reference_id for the meeting, by which a test finds its id. */
  clientReferenceId: string;
  sentenceIndex: number;
  startTime: number;
  /** The whole answering sentence. */
  text: string;
}

interface ManifestEntry {
  file: string;
  title: string;
  date: string;
}

export function loadDemoQuestions(): DemoQuestion[] {
  return JSON.parse(readFileSync(QUESTIONS_FILE, 'utf8'));
}

let manifest: Map<string, ManifestEntry> | undefined;
const sentencesByFile = new Map<string, Sentence[]>();

export function demoManifest(): Map<string, ManifestEntry> {
  manifest ??= new Map(
    (JSON.parse(readFileSync(join(FIXTURES_DIR, 'manifest.json'), 'utf8')).meetings as ManifestEntry[]).map((m) => [
      m.file,
      m,
    ]),
  );
  return manifest;
}

/** A demo meeting's sentences exactly as the transcription pipeline stores a caption file's. */
export function demoSentences(file: string): Sentence[] {
  let sentences = sentencesByFile.get(file);
  if (!sentences) {
    sentences = parseCaptions(readFileSync(join(FIXTURES_DIR, file))).sentences;
    sentencesByFile.set(file, sentences);
  }
  return sentences;
}

/** Indexes of the meeting's sentences that contain the question's answer; a sound question has one. */
export function answerMatches(q: DemoQuestion): number[] {
  return demoSentences(q.meeting)
    .filter((s) => s.text.includes(q.answer))
    .map((s) => s.index);
}

export function resolveQuestion(q: DemoQuestion): ResolvedQuestion {
  const meeting = demoManifest().get(q.meeting);
  if (!meeting) throw new Error(`${q.id}: meeting ${q.meeting} is not in the demo manifest`);
  const matches = answerMatches(q);
  if (matches.length !== 1) {
    throw new Error(`${q.id}: the answer occurs in ${matches.length} sentences of ${q.meeting}, not exactly one`);
  }
  const sentence = demoSentences(q.meeting)[matches[0]];
  return {
    ...q,
    meetingFile: q.meeting,
    title: meeting.title,
    date: meeting.date,
    clientReferenceId: `demo:${q.meeting}`,
    sentenceIndex: sentence.index,
    startTime: sentence.start_time,
    text: sentence.text,
  };
}

export function resolvedDemoQuestions(): ResolvedQuestion[] {
  return loadDemoQuestions().map(resolveQuestion);
}
