import { contentWords, LIMITS, shareWord, type CheckedNotes, type NotesField } from './llm-notes';
import { SUMMARY_FIELD } from './llm-summary';
import type { MeetingType } from './types';

/**
 * A long meeting's parts' notes made one: without the model (mergeNotes), or the model's merge
 * completed from the parts (keepParts). A merge may join what the parts repeat, but it never loses
 * a part: a model writes at most the schema's lines per list, and the later parts of a long meeting
 * are the first it leaves out. So an action item whose sentences the merge does not cite, a part
 * with no outline section, and a part none of whose topics the merge mentions are put back.
 */

/** One part's notes as the model wrote them, with the sentences the part covers. */
export interface Leaf {
  first: number;
  last: number;
  notes: CheckedNotes;
}

/** One part's notes, or a run of parts merged already, with the parts it was made from. */
export interface PartNotes extends Leaf {
  label: string;
  leaves: Leaf[];
}

/** `n` of `xs` evenly apart, the first and the last among them. */
function evenly<T>(xs: readonly T[], n: number): T[] {
  if (n >= xs.length) return [...xs];
  if (n <= 1) return xs.slice(0, Math.max(0, n));
  return Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (n - 1))]);
}

/**
 * At most `max` entries of the lists, each once (by `key`): every list's first before any list's
 * second; when a round has more lists than room is left, lists evenly apart, so the end of a meeting
 * is heard as well as its start.
 */
export function spread<T>(lists: readonly (readonly T[])[], max: number, key: (x: T) => string): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let level = 0; level < depth && out.length < max; level++) {
    const round: T[] = [];
    for (const list of lists) {
      const x = list[level];
      if (x === undefined || seen.has(key(x))) continue;
      seen.add(key(x));
      round.push(x);
    }
    out.push(...evenly(round, max - out.length));
  }
  return out;
}

const folded = (s: string) => s.toLowerCase();

/** Several parts' notes as one, without the model: lists joined in order, repeats once, the most frequent type. */
export function mergeNotes(all: readonly CheckedNotes[]): CheckedNotes {
  const types = new Map<MeetingType, number>();
  for (const n of all) if (n.meeting_type) types.set(n.meeting_type, (types.get(n.meeting_type) ?? 0) + 1);
  const firstCites = new Set<number>();
  const failed: CheckedNotes['failed'] = {};
  for (const f of Object.keys(SUMMARY_FIELD) as NotesField[])
    if (all.every((n) => n.failed[f])) failed[f] = all[0]?.failed[f];
  return {
    meeting_type: [...types.entries()].sort((a, b) => b[1] - a[1])[0]?.[0],
    short_summary: all.find((n) => n.short_summary)?.short_summary,
    overview: spread(
      all.map((n) => n.overview),
      LIMITS.overview,
      (l) => folded(l.text),
    ).sort((a, b) => a.cites[0] - b.cites[0]),
    topics: spread(
      all.map((n) => n.topics),
      LIMITS.topics,
      folded,
    ),
    keywords: spread(
      all.map((n) => n.keywords),
      LIMITS.keywords,
      folded,
    ),
    action_items: all
      .flatMap((n) => n.action_items)
      .filter((a) => !firstCites.has(a.cites[0]) && firstCites.add(a.cites[0])),
    outline: all.flatMap((n) => n.outline).sort((a, b) => a.cite - b.cite),
    failed,
    problems: [],
    unknown_owners: [...new Set(all.flatMap((n) => n.unknown_owners))],
    dropped: {},
  };
}

/** The model's merge of `parts`, with what it lost of them put back (see above). */
export function keepParts(merged: CheckedNotes, parts: readonly PartNotes[]): CheckedNotes {
  const leaves = parts.flatMap((p) => p.leaves);
  const plain = mergeNotes(leaves.map((l) => l.notes));
  const out: CheckedNotes = { ...merged, failed: { ...merged.failed } };
  if (!out.overview.length) out.overview = plain.overview;
  if (!out.keywords.length) out.keywords = plain.keywords;
  out.meeting_type ??= plain.meeting_type;
  out.short_summary ??= plain.short_summary;

  // An item is the merge's when the merge cites one of its sentences (a repeat joined to it).
  const cited = new Set(out.action_items.flatMap((a) => a.cites));
  const lost = plain.action_items.filter((a) => !a.cites.some((c) => cited.has(c)));
  out.action_items = [...out.action_items, ...lost].sort((a, b) => a.cites[0] - b.cites[0]);

  const sections = [...out.outline];
  for (const l of leaves)
    if (l.notes.outline.length && !sections.some((s) => s.cite >= l.first && s.cite <= l.last))
      sections.push(l.notes.outline[0]);
  out.outline = sections.sort((a, b) => a.cite - b.cite);

  if (!out.topics.length) out.topics = plain.topics;
  else {
    // A part is heard when one of its topics shares a word with the merge's; the unheard add theirs,
    // at most as many again as the schema allows.
    const words = out.topics.map(contentWords);
    const unheard = leaves.filter((l) => !l.notes.topics.some((t) => words.some((w) => shareWord(contentWords(t), w))));
    const known = new Set(out.topics.map(folded));
    const more = spread(
      unheard.map((l) => l.notes.topics.filter((t) => !known.has(folded(t)))),
      LIMITS.topics,
      folded,
    );
    out.topics = [...out.topics, ...more];
  }
  for (const f of Object.keys(out.failed) as NotesField[]) if (!plain.failed[f]) delete out.failed[f];
  return out;
}
