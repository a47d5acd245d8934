import type { Candidate } from './action-items';
import type { ActionItem } from './types';

/**
 * One action item per commitment. People say a task more than once: someone asks ("Grace, can you
 * break it into milestones by Tuesday?"), the person answers ("Yes, I'll have them by Tuesday"), and
 * the chair recaps it at the end ("So: Grace does milestones by Tuesday"). Each of those is a moment
 * of the same item, not an item of its own:
 *   - an answer: the person a request was put to accepts or commits within a few sentences;
 *   - a continuation: the same speaker's next sentence goes on about the same task ("I'll take it.
 *     I'll do it in January.");
 *   - a repeat: the same owner says something alike later (most of its content words, or the same
 *     deadline and a content word; or, with sentence vectors, a close meaning);
 *   - a recap: after "to recap", "next steps" or "action items", or a sentence naming other people,
 *     a sentence that shares a word or the deadline with the named owners' items adds its moment to
 *     each of them ("Lin and Bea own refunds, the tickets by Friday and designs by January").
 * The item keeps its first wording and moment; the later ones are its `moments`.
 */

const ANSWER_WINDOW = 4;
const RECAP_TRIGGER =
  /\b(?:to recap|let me recap|recap the|to summari[sz]e|so to summari[sz]e|in summary|next steps|action items|follow-ups)\b/i;
/** Sentences after a recap trigger that are read as the recap. */
const RECAP_SPAN = 8;
/** Cosine of two sentence vectors above which the same owner's two sentences are the same task. */
const SAME_MEANING = 0.7;
const ANAPHORA = /\b(?:it|that|this|them|those|both)\b/i;

export interface FoldContext {
  /** Content-word keys of each sentence read (terms.ts), by position. */
  words: readonly (readonly string[])[];
  /** Unit vectors of the sentences, by position, when an embedding model is at hand. */
  vectors?: readonly (Float32Array | undefined)[] | null;
  /** Lower-case texts of every sentence read, for recap triggers said outside any item. */
  texts: readonly string[];
}

interface Open {
  item: ActionItem;
  wording: Candidate['wording'];
  first: number;
  last: number;
  stems: Set<string>;
  ats: number[];
  /** The person asked has answered: a later "yes" answers something else. */
  answered: boolean;
}

function stems(words: readonly string[]): Set<string> {
  return new Set(words.map((w) => (w.length > 5 ? w.slice(0, 5) : w)));
}

function shared(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

/** Whether the text names the person (by first name, as people say them). */
function mentions(text: string, name: string | null): boolean {
  const first = (name ?? '')
    .split(/\s+/)[0]
    .toLowerCase()
    .replace(/[^\p{L}'-]/gu, '');
  return first.length > 1 && new RegExp(`(?:^|[^\\p{L}])${first}(?:[^\\p{L}]|$)`, 'u').test(text);
}

function sameDue(a: ActionItem, b: ActionItem): boolean {
  return Boolean(a.due && b.due && a.due.toLowerCase() === b.due.toLowerCase());
}

export function foldCommitments(candidates: readonly Candidate[], ctx: FoldContext): ActionItem[] {
  const open: Open[] = [];
  let recapUntil = -1;
  let readUpTo = 0;
  const absorb = (o: Open, c: Candidate) => {
    o.item.moments.push(...c.item.moments);
    o.ats.push(c.at);
    o.last = Math.max(o.last, c.at);
    for (const s of stems(ctx.words[c.at] ?? [])) o.stems.add(s);
    if (!o.item.due && c.item.due) {
      o.item.due = c.item.due;
      o.item.due_date = c.item.due_date;
    }
    o.item.assignee ??= c.item.assignee;
  };
  const alike = (o: Open, c: Candidate, cs: Set<string>): boolean => {
    const n = shared(o.stems, cs);
    if (n >= 2 && n * 2 >= Math.min(o.stems.size, cs.size)) return true;
    if (n >= 1 && sameDue(o.item, c.item)) return true;
    const v = ctx.vectors;
    const here = v?.[c.at];
    return Boolean(
      v &&
      here &&
      o.ats.some((at) => {
        const there = v[at];
        return there !== undefined && cosine(there, here) >= SAME_MEANING;
      }),
    );
  };

  for (const c of candidates) {
    for (; readUpTo <= c.at; readUpTo++)
      if (RECAP_TRIGGER.test(ctx.texts[readUpTo] ?? '')) recapUntil = readUpTo + RECAP_SPAN;
    const speaker = c.item.speaker_name;
    const cs = stems(ctx.words[c.at] ?? []);

    // An answer to a request put to this speaker.
    const asked = [...open]
      .reverse()
      .find(
        (o) =>
          o.item.kind === 'request' &&
          o.item.assignee === speaker &&
          o.item.speaker_name !== speaker &&
          c.at - o.last <= ANSWER_WINDOW,
      );
    if (asked && ((c.acceptance && !asked.answered) || c.item.assignee === speaker)) {
      absorb(asked, c);
      asked.answered = true;
      continue;
    }
    if (c.acceptance) continue;

    // What one person proposes for the group ("let's say they switch by the 30th") and the next
    // speaker takes on ("I'll let them know this week") is that person's task.
    const proposed = open[open.length - 1];
    if (
      proposed &&
      (c.wording === 'first_person' || c.wording === 'offer') &&
      c.at - proposed.last <= 2 &&
      proposed.item.speaker_name !== speaker &&
      proposed.item.assignee === proposed.item.speaker_name &&
      (proposed.wording === 'group' || proposed.wording === 'deadline') &&
      (ANAPHORA.test(c.item.text) || shared(proposed.stems, cs) >= 1)
    ) {
      absorb(proposed, c);
      proposed.item.assignee = speaker;
      continue;
    }

    // The same speaker going on about the task just stated.
    const previous = open[open.length - 1];
    if (
      previous &&
      previous.last === c.at - 1 &&
      previous.item.speaker_name === speaker &&
      previous.item.assignee === c.item.assignee &&
      (ANAPHORA.test(c.item.text) || cs.size <= 2 || (ctx.words[previous.last]?.length ?? 0) <= 2) &&
      !(c.item.due && previous.item.due && !sameDue(previous.item, c.item))
    ) {
      absorb(previous, c);
      continue;
    }

    // A recap or a restatement naming owners: a moment of each item it restates.
    const text = c.item.text.toLowerCase();
    const namesOthers = open.some(
      (o) => o.item.assignee && o.item.assignee !== speaker && mentions(text, o.item.assignee),
    );
    if (c.at <= recapUntil || (namesOthers && c.item.kind !== 'request')) {
      const restated = open.filter(
        (o) =>
          (o.item.assignee === c.item.assignee || mentions(text, o.item.assignee)) &&
          (shared(o.stems, cs) >= 1 || sameDue(o.item, c.item)),
      );
      if (restated.length) {
        for (const o of restated) absorb(o, c);
        continue;
      }
    }

    // The same owner saying it again.
    const repeat = open.find((o) => o.item.assignee === c.item.assignee && alike(o, c, cs));
    if (repeat) {
      absorb(repeat, c);
      continue;
    }
    open.push({ item: c.item, wording: c.wording, first: c.at, last: c.at, stems: cs, ats: [c.at], answered: false });
  }
  return open.map((o) => o.item);
}
