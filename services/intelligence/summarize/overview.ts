import type { Sentence } from '../types';
import type { ActionItem, Citation, OverviewLine } from './types';

/**
 * The overview: a few lines a person would write at the top of the notes, each citing its moment:
 * what kind of meeting it was and with whom, what it was about, what was decided (or, where nothing
 * was, its most telling statements), and what is next (the first action items, the rest counted).
 */

const DECISION =
  /\b(?:we(?:'ve| have)? (?:agreed|decided)|(?:we're|we are) going with|let's go with|the decision is|decided to|to summari[sz]e|so the (?:plan|goal|sprint goal|candidate list|decision) is|my proposal(?: is)?:?|(?:is|are|was|were) (?:approved|committed)|approved the|(?:has|have) signed|signed (?:the|yesterday|last)|no objection|agreed[.,]? let's)\b/i;
const MAX_DECISIONS = 2;
const MAX_NEXT = 3;

export interface OverviewInput {
  header: string;
  topics: { title: string; at: Citation }[];
  /** Spoken sentences with the citation of each, and whether it is small talk. */
  sentences: readonly Sentence[];
  cite: (position: number) => Citation;
  smallTalk: readonly boolean[];
  /** Key statements (positions) to fall back on when nothing was decided. */
  keyPoints: number[];
  items: ActionItem[];
}

/** Positions of the sentences that state a decision, the later ones first (a decision is often summed up at the end). */
export function decisions(sentences: readonly Sentence[], smallTalk: readonly boolean[]): number[] {
  const found: number[] = [];
  for (let i = sentences.length - 1; i >= 0 && found.length < MAX_DECISIONS; i--) {
    const text = sentences[i].text.trim();
    if (smallTalk[i] || text.endsWith('?') || text.split(/\s+/).length < 5) continue;
    if (DECISION.test(text)) found.push(i);
  }
  return found.sort((a, b) => a - b);
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function overviewLines(input: OverviewInput): OverviewLine[] {
  const { sentences, cite } = input;
  const firstContent = input.smallTalk.findIndex((x) => !x);
  const line = (text: string, at: Citation): OverviewLine => ({ text, index: at.index, start_time: at.start_time });
  const lines: OverviewLine[] = [line(input.header, cite(Math.max(0, firstContent)))];
  if (input.topics.length) {
    lines.push(line(`Topics: ${listOf(input.topics.slice(0, 5).map((t) => t.title))}.`, input.topics[0].at));
  }
  const decided = decisions(sentences, input.smallTalk);
  for (const i of decided) lines.push(line(`Decided: ${sentences[i].text}`, cite(i)));
  if (decided.length < MAX_DECISIONS) {
    for (const i of input.keyPoints.slice(0, MAX_DECISIONS - decided.length + (input.items.length ? 0 : 1))) {
      if (!decided.includes(i)) lines.push(line(`- ${sentences[i].speaker_name}: ${sentences[i].text}`, cite(i)));
    }
  }
  // The items with a time said first: they are what is next.
  const next = [...input.items].sort((a, b) => Number(!a.due) - Number(!b.due)).slice(0, MAX_NEXT);
  for (const a of input.items.filter((x) => next.includes(x))) {
    lines.push(line(`Next: ${a.assignee ?? 'unassigned'}: ${a.text}`, { index: a.index, start_time: a.start_time }));
  }
  const rest = input.items.filter((x) => !next.includes(x));
  if (rest.length) {
    lines.push(
      line(`And ${rest.length} more action item${rest.length === 1 ? '' : 's'}.`, {
        index: rest[0].index,
        start_time: rest[0].start_time,
      }),
    );
  }
  return lines;
}
