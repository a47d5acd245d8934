/**
 * Filler words: sounds and phrases that carry no content. Counting them is a heuristic; the rules below
 * keep the common non-filler uses out so the number is one a person would agree with.
 *
 * Always fillers (hesitation sounds, with stretched spellings): um, umm, uhm, uh, uhh, er, erm, ah, ahh,
 * hmm, hm.
 * Phrases, counted once each:
 *   "you know"   unless it asks or states knowing: after do/did/don't/didn't/does/would/could/if/as/to/
 *                let/will ("do you know", "as you know") or before what/how/who/where/when/why/whether/if/
 *                about/that/it/him/her/them ("you know what I mean" keeps its "I mean" rule below).
 *   "I mean"     unless it is about meaning: after what/which/that/if/do/did/don't ("what I mean is")
 *                or before it/that/to/what/this/by ("I mean it").
 *   "sort of", "kind of"  as hedges only: not after a determiner or question word ("what kind of",
 *                "a sort of", "this kind of", "some kind of"), never the plurals "sorts of"/"kinds of".
 *   "like"       only when clearly inserted: directly followed by a comma ("it was like, huge") or next
 *                to a hesitation sound ("uh, like", "like um"). "I like it", "like I said", "looks like"
 *                and "like this" are not fillers.
 * Not counted: "so", "actually", "basically", "literally", "right", "okay": they are fillers only
 * sometimes and a heuristic would mostly guess.
 */

const TOKEN = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|[,.;:!?…—–]/gu;
const HESITATION = /^(?:u+m+|u+h+m*|e+r+m*|e+r+|a+h+|h+m+)$/;
const PUNCT = /^[,.;:!?…—–]$/;

const YOU_KNOW_ASKS_BEFORE = new Set([
  'do',
  'did',
  "don't",
  'didn',
  'does',
  "doesn't",
  'would',
  'could',
  'if',
  'as',
  'to',
  'let',
  'will',
  "you'll",
  'can',
  'should',
]);
const YOU_KNOW_OBJECT_AFTER = new Set([
  'what',
  'how',
  'who',
  'where',
  'when',
  'why',
  'whether',
  'if',
  'about',
  'that',
  'it',
  'him',
  'her',
  'them',
  'me',
  'us',
]);
const I_MEAN_LITERAL_BEFORE = new Set(['what', 'which', 'that', 'if', 'do', 'did', "don't", 'you']);
const I_MEAN_LITERAL_AFTER = new Set(['it', 'that', 'to', 'what', 'this', 'by']);
const HEDGE_NOUN_BEFORE = new Set([
  'what',
  'which',
  'this',
  'that',
  'these',
  'those',
  'a',
  'an',
  'the',
  'some',
  'any',
  'all',
  'same',
  'every',
  'each',
  'no',
  'one',
  'different',
  'my',
  'your',
  'his',
  'her',
  'our',
  'their',
  'its',
  'other',
  'another',
  "that's",
  'right',
  'wrong',
  'new',
  'first',
  'only',
]);

function tokens(text: string): string[] {
  return (text.match(TOKEN) ?? []).map((t) => t.toLowerCase().replace(/’/g, "'"));
}

/** The fillers found in one sentence, in order (phrases as one entry), so tests and UIs can show them. */
export function fillersIn(text: string): string[] {
  const t = tokens(text);
  const found: string[] = [];
  const at = (i: number) => (i >= 0 && i < t.length ? t[i] : '');
  for (let i = 0; i < t.length; i++) {
    const w = t[i];
    const prev = at(i - 1);
    const next = at(i + 1);
    if (HESITATION.test(w)) {
      found.push(w);
    } else if (w === 'you' && next === 'know') {
      const after = at(i + 2);
      if (!YOU_KNOW_ASKS_BEFORE.has(prev) && !YOU_KNOW_OBJECT_AFTER.has(after)) {
        found.push('you know');
        i++;
      }
    } else if (w === 'i' && next === 'mean') {
      if (!I_MEAN_LITERAL_BEFORE.has(prev) && !I_MEAN_LITERAL_AFTER.has(at(i + 2))) {
        found.push('i mean');
        i++;
      }
    } else if ((w === 'sort' || w === 'kind') && next === 'of') {
      if (!HEDGE_NOUN_BEFORE.has(prev)) {
        found.push(`${w} of`);
        i++;
      }
    } else if (w === 'like') {
      const nextIsPause = next === ',' || next === '—' || next === '–';
      if (
        nextIsPause ||
        HESITATION.test(prev) ||
        HESITATION.test(next) ||
        (PUNCT.test(prev) && HESITATION.test(at(i - 2)))
      ) {
        found.push('like');
      }
    }
  }
  return found;
}

export function countFillers(text: string): number {
  return fillersIn(text).length;
}
