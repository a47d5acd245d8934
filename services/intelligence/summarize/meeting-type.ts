import type { MeetingType } from './types';

/**
 * Meeting type from cue phrases, weighted by how telling they are, plus what the number of speakers
 * and the length suggest. Each phrase counts at most three times so one repeated word cannot decide.
 * A title, when given, is read with the same cues at five times the weight: people name meetings
 * after their type ("Daily stand-up", "Sprint 42 retro"). Below a minimum score the type is `general`.
 */
const CUES: Record<Exclude<MeetingType, 'general'>, [RegExp, number][]> = {
  standup: [
    [/\bstand-?ups?\b/g, 4],
    [/\bdaily\b/g, 1],
    [/\byesterday\b/g, 2],
    [/\btoday i(?:'m| am|'ll| will)\b/g, 2],
    [/\bblockers?\b/g, 3],
    [/\bblocked\b/g, 2],
    [/\bnothing blocking\b/g, 3],
    [/\bworking on\b/g, 1],
    [/\bpicking up\b/g, 1],
  ],
  sales: [
    [/\bpricing\b/g, 3],
    [/\bprices?\b/g, 2],
    [/\bbudget\b/g, 2],
    [/\bcontracts?\b/g, 2],
    [/\bdiscounts?\b/g, 3],
    [/\bproposal\b/g, 2],
    [/\bprocurement\b/g, 3],
    [/\bquotes?\b/g, 2],
    [/\bper seat\b/g, 3],
    [/\bseats\b/g, 2],
    [/\blicen[cs]es?\b/g, 2],
    [/\btrial\b/g, 2],
    [/\brenewal\b/g, 3],
    [/\bdecision[- ]makers?\b/g, 3],
    [/\broi\b/g, 2],
    [/\bcompetitors?\b/g, 2],
    [/\bsign(?:ed|ing)?\b/g, 1],
  ],
  interview: [
    [/\binterview(?:s|ing)?\b/g, 3],
    [/\btell me about\b/g, 3],
    [/\byour experience\b/g, 3],
    [/\bthe role\b/g, 2],
    [/\bcandidates?\b/g, 3],
    [/\bresume\b/g, 3],
    [/\byour background\b/g, 3],
    [/\b(?:current|previous|last) (?:role|job|team)\b/g, 2],
    [/\bwhy (?:are you interested|do you want|this role)\b/g, 3],
    [/\bquestions for (?:us|me)\b/g, 4],
    [/\bhiring\b/g, 2],
    [/\ba time when\b/g, 3],
    [/\bwalk me through\b/g, 2],
    [/\bnotice period\b/g, 3],
    [/\bsalary\b/g, 2],
  ],
  planning: [
    [/\broadmap\b/g, 3],
    [/\bmilestones?\b/g, 2],
    [/\bprioriti[sz]e\b|\bpriorities\b/g, 2],
    [/\bestimates?\b/g, 2],
    [/\bscope\b/g, 2],
    [/\bquarter\b/g, 2],
    [/\bq[1-4]\b/g, 2],
    [/\bbacklog\b/g, 2],
    [/\bcapacity\b/g, 3],
    [/\bplanning\b/g, 3],
    [/\bstory points?\b/g, 3],
    [/\bdeadlines?\b/g, 1],
    [/\bokrs?\b/g, 3],
    [/\bdependenc(?:y|ies)\b/g, 2],
    [/\bsprint goal\b/g, 3],
  ],
  one_on_one: [
    [/\bone[- ]on[- ]ones?\b|\b1:1s?\b/g, 4],
    [/\bcareer\b/g, 3],
    [/\bgrowth\b/g, 2],
    [/\bhow are you (?:doing|feeling)\b/g, 2],
    [/\bhow are things\b/g, 2],
    [/\bon your mind\b/g, 3],
    [/\bhow (?:do you think )?i'm doing\b/g, 3],
    [/\bworkload\b/g, 3],
    [/\bpromotion\b/g, 3],
    [/\bburn(?:ed|t)? ?out\b/g, 3],
    [/\btime off\b/g, 2],
    [/\bfeedback\b/g, 1],
    [/\bgoals?\b/g, 1],
    [/\bmentor(?:ing|ship)?\b/g, 2],
  ],
  retrospective: [
    [/\bretros?\b|\bretrospectives?\b/g, 4],
    [/\bwent well\b/g, 4],
    [/\b(?:didn't|did not) go (?:so )?well\b/g, 4],
    [/\bwent wrong\b/g, 3],
    [/\bincident reviews?\b|\bpost-?mortems?\b/g, 3],
    [/\broot cause\b/g, 2],
    [/\blessons?\b/g, 2],
    [/\bkeep doing\b/g, 3],
    [/\bstop doing\b/g, 3],
    [/\bstart doing\b/g, 3],
    [/\bshout-?outs?\b/g, 2],
    [/\bkudos\b/g, 2],
    [/\bimprove\b/g, 1],
  ],
  demo: [
    [/\bdemo(?:s|ing)?\b/g, 3],
    [/\blet me show\b/g, 3],
    [/\bshare my screen\b/g, 3],
    [/\byou can see\b/g, 2],
    [/\bclick(?:s|ing)?\b/g, 2],
    [/\bwalk(?:through| through)\b/g, 1],
    [/\bthis screen\b/g, 2],
    [/\bon the (?:left|right)\b/g, 2],
    [/\bbuttons?\b/g, 2],
    [/\bdashboard\b/g, 1],
  ],
};

/**
 * Cues of meetings that are none of the kinds above: a company-wide meeting or a sync between teams.
 * They compete like the others, so "Q3 all-hands" is not a planning meeting for saying "Q3".
 */
const GENERAL_CUES: [RegExp, number][] = [
  [/all[- ]hands/g, 4],
  [/town ?hall/g, 4],
  [/company (?:update|meeting)/g, 3],
  [/everyone'?s here/g, 2],
  [/handbook/g, 2],
  [/policy/g, 1],
  [/offsite/g, 2],
  [/sync/g, 2],
  [/check-?in/g, 2],
  [/welcome (?:to|everyone)/g, 2],
];

const MIN_SCORE = 6;
/** Parts the conversation is cut into to see how much of it a type's cues run through. */
const PARTS = 4;
const PER_CUE_CAP = 3;
const TITLE_WEIGHT = 5;

export interface TypeEvidence {
  speakers: number;
  durationSeconds: number;
  title?: string;
  /** Participants from outside the organizer's email domain take part (customers, candidates). */
  hasExternalParticipants?: boolean;
}

function cueScore(text: string, cues: [RegExp, number][], cap: number): number {
  let score = 0;
  for (const [re, weight] of cues) {
    re.lastIndex = 0;
    let hits = 0;
    while (hits < cap && re.exec(text) !== null) hits++;
    score += hits * weight;
  }
  return score;
}

/**
 * The type from the whole conversation: given its sentences (lower case, in order) rather than one
 * text, a type's cue score is weighed by how many of the conversation's quarters carry its cues, so a
 * word said once ("contract" in a stand-up) weighs less than a thread that runs through the meeting.
 */
export function classifyMeeting(
  lower: string | readonly string[],
  evidence: TypeEvidence,
): { type: MeetingType; scores: Record<string, number> } {
  const scores: Record<string, number> = {};
  const title = evidence.title?.toLowerCase() ?? '';
  const lines = typeof lower === 'string' ? null : lower;
  const lowerText = lines ? lines.join('\n') : (lower as string);
  const parts = lines
    ? Array.from({ length: Math.min(PARTS, lines.length) }, (_, k) =>
        lines
          .slice(
            Math.floor((k * lines.length) / Math.min(PARTS, lines.length)),
            Math.floor(((k + 1) * lines.length) / Math.min(PARTS, lines.length)),
          )
          .join('\n'),
      )
    : [];
  const all: [string, [RegExp, number][]][] = [...Object.entries(CUES), ['general', GENERAL_CUES]];
  for (const [type, cues] of all) {
    let score = cueScore(lowerText, cues, PER_CUE_CAP);
    if (parts.length > 1) {
      const covered = parts.filter((p) => cueScore(p, cues, 1) > 0).length / parts.length;
      score *= 0.5 + 0.5 * covered;
    }
    scores[type] = score + (title ? TITLE_WEIGHT * cueScore(title, cues, 1) : 0);
  }
  if (evidence.speakers === 2) {
    scores.one_on_one += 3;
    scores.interview += 2;
  }
  if (evidence.speakers >= 4) {
    scores.standup += 2;
    scores.planning += 2;
    scores.retrospective += 2;
  }
  if (evidence.durationSeconds > 0 && evidence.durationSeconds <= 20 * 60) scores.standup += 1;
  if (evidence.hasExternalParticipants) {
    scores.sales += 2;
    scores.interview += 1;
    scores.one_on_one -= 3;
  }
  let best: MeetingType = 'general';
  let bestScore = MIN_SCORE - 1;
  for (const [type, score] of Object.entries(scores)) {
    if (score > bestScore) {
      best = type as MeetingType;
      bestScore = score;
    }
  }
  return { type: best, scores };
}
