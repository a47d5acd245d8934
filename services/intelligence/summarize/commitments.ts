import type { Candidate } from './action-items';
import type { ActionItem } from './types';

/**
 * One action item per commitment. People say a task more than once: someone asks ("Grace, can you
 * break it into milestones by Tuesday?"), the person answers ("Yes, I'll have them by Tuesday"), and
 * the chair recaps it at the end ("So: Grace does milestones by Tuesday"). Each of those is a moment
 * of the same item, not an item of its own:
 *   - an answer: the person a request was put to accepts or commits within a few sentences (and, when
 *     it was put to several, "you both", each of them who says yes); the owner is who answers;
 *   - a no: the person asked turns it down ("I can't this week"): it is not their item; someone else
 *     who takes it on ("I can take it") owns it, and a request nobody took is no item;
 *   - an offer taken up: another speaker welcomes it ("Yes please", "That would help") and is a moment
 *     of it; when that speaker then commits to their part of it ("Great, I'll add you to Thursday's",
 *     "I'll set up the call with our CFO"), the item is theirs, since they are the one who commits;
 *   - a hand-off: the next speaker says where the owner's work goes ("Send it to me and I'll route it");
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
/** Sentences after an offer was welcomed within which the one who welcomed it may take their part. */
const TAKE_UP_WINDOW = 8;
const RECAP_TRIGGER =
  /\b(?:to recap|let me recap|recap the|to summari[sz]e|so to summari[sz]e|in summary|next steps|action items|follow-ups)\b/i;
/** Sentences after a recap trigger that are read as the recap. */
const RECAP_SPAN = 8;
/** Cosine of two sentence vectors above which the same owner's two sentences are the same task. */
const SAME_MEANING = 0.7;
const ANAPHORA = /\b(?:it|that|this|them|those|both)\b/i;
/** A request put to more than one person, each of whom may answer it. */
const SEVERAL = /\b(?:you (?:both|two|all)|both of you|all of you|everyone|everybody)\b/i;
/** The speaker names themselves the one the owner's work goes to. */
const HAND_OFF =
  /\b(?:send|give|forward|pass|email|hand|share) (?:it|them|that|those|this|the \w+) (?:over )?(?:to|with) (?:me|us)\b|\b(?:cc|copy|loop) (?:me|us) in\b/i;
/** Speaks to the person it answers: "Great, I'll add you to Thursday's". */
const ADDRESSES = /\b(?:you|your)\b/i;

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
  /** The answer so far is a bare "Yes.": the answerer's next sentence says what they will do. */
  bareAnswer: boolean;
  /** Who welcomed the offer ("Yes please"), if anyone did. */
  welcomedBy: string | null;
  /** The person asked said no: nobody owns the request until someone else takes it on. */
  declinedBy: string | null;
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

/** The same deadline: the same day when both resolve to one ("in two weeks", "November 16"), else the same words. */
function sameDue(a: ActionItem, b: ActionItem): boolean {
  if (a.due_date && b.due_date) return a.due_date === b.due_date;
  return Boolean(a.due && b.due && a.due.toLowerCase() === b.due.toLowerCase());
}

/** The last of the open items that the test picks. */
function latest<T>(xs: readonly T[], test: (x: T) => boolean): T | undefined {
  for (let i = xs.length - 1; i >= 0; i--) if (test(xs[i])) return xs[i];
  return undefined;
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
    const text = c.item.text.toLowerCase();
    const task = c.wording === 'first_person' || c.wording === 'offer';
    const near = (o: Open) => c.at - o.last <= ANSWER_WINDOW;

    // An answer to a request put to this speaker.
    const asked = latest(
      open,
      (o) => o.item.kind === 'request' && o.item.assignee === speaker && o.item.speaker_name !== speaker && near(o),
    );
    if (asked && c.declines && !asked.answered) {
      asked.declinedBy = speaker;
      asked.item.assignee = null;
      asked.last = c.at;
      continue;
    }
    // The first reply accepts; a later commitment of the person asked belongs to the request only when
    // it speaks of the same thing.
    const answers =
      asked &&
      (c.wording === 'reply'
        ? c.acceptance && !asked.answered
        : c.item.assignee === speaker &&
          (c.accepts ||
            ((!asked.answered || asked.bareAnswer) && c.at - asked.last <= 1) ||
            ANAPHORA.test(c.item.text) ||
            shared(asked.stems, cs) >= 1));
    if (asked && answers) {
      absorb(asked, c);
      asked.answered = true;
      asked.bareAnswer = c.acceptance;
      continue;
    }
    // Another of the several a request was put to says yes too.
    const alsoAsked = latest(
      open,
      (o) =>
        o.item.kind === 'request' &&
        o.answered &&
        SEVERAL.test(o.item.text) &&
        o.item.speaker_name !== speaker &&
        o.item.assignee !== speaker &&
        near(o),
    );
    if (alsoAsked && (c.acceptance || c.accepts)) {
      absorb(alsoAsked, c);
      continue;
    }
    // Someone other than the one who said no takes the request on.
    const turnedDown = latest(open, (o) => o.declinedBy !== null && o.declinedBy !== speaker && near(o));
    if (turnedDown && task && (ANAPHORA.test(text) || shared(turnedDown.stems, cs) >= 1)) {
      absorb(turnedDown, c);
      turnedDown.item.assignee = speaker;
      turnedDown.declinedBy = null;
      turnedDown.answered = true;
      continue;
    }
    // An offer taken up by another speaker, and what that speaker then commits to of it.
    const offered = latest(
      open,
      (o) =>
        o.wording === 'offer' &&
        o.item.speaker_name !== speaker &&
        o.item.assignee !== speaker &&
        c.at - o.last <= TAKE_UP_WINDOW,
    );
    if (offered && c.wording === 'reply' && c.welcomes && !offered.welcomedBy && near(offered)) {
      absorb(offered, c);
      offered.welcomedBy = speaker;
      continue;
    }
    if (
      offered &&
      task &&
      ((offered.welcomedBy === speaker && shared(offered.stems, cs) >= 1) ||
        (c.welcomes &&
          c.at - offered.last <= 1 &&
          (shared(offered.stems, cs) >= 1 || ADDRESSES.test(text) || ANAPHORA.test(text))))
    ) {
      absorb(offered, c);
      offered.item.assignee = speaker;
      // Their deadline is the one that holds: they are the one who does it.
      if (c.item.due) {
        offered.item.due = c.item.due;
        offered.item.due_date = c.item.due_date;
      }
      continue;
    }
    if (c.wording === 'reply') continue;

    // The next speaker says where the owner's work goes: a moment of it, the owner unchanged.
    const last = open[open.length - 1];
    if (
      last &&
      near(last) &&
      last.item.speaker_name !== speaker &&
      last.item.assignee === last.item.speaker_name &&
      HAND_OFF.test(text)
    ) {
      absorb(last, c);
      continue;
    }

    // What one person proposes for the group ("let's say they switch by the 30th") and the next
    // speaker takes on ("I'll let them know this week") is that person's task.
    const proposed = last;
    if (
      proposed &&
      task &&
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

    // The same speaker going on about the task just stated, or taking the step a plan for the group
    // needs on the day it names ("Let's meet again in two weeks. I'll send an invite for November 16.").
    const previous = open[open.length - 1];
    if (
      previous &&
      previous.last === c.at - 1 &&
      previous.item.speaker_name === speaker &&
      previous.item.assignee === c.item.assignee &&
      (ANAPHORA.test(c.item.text) ||
        cs.size <= 2 ||
        (ctx.words[previous.last]?.length ?? 0) <= 2 ||
        (previous.wording === 'group' && sameDue(previous.item, c.item))) &&
      !(c.item.due && previous.item.due && !sameDue(previous.item, c.item))
    ) {
      absorb(previous, c);
      continue;
    }

    // A recap or a restatement naming owners: a moment of each item it restates.
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
    open.push({
      item: c.item,
      wording: c.wording,
      first: c.at,
      last: c.at,
      stems: cs,
      ats: [c.at],
      answered: false,
      bareAnswer: false,
      welcomedBy: null,
      declinedBy: null,
    });
  }
  return open.filter((o) => o.declinedBy === null).map((o) => o.item);
}
