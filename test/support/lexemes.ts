/**
 * The lexemes PostgreSQL's `english` text-search configuration makes of a text, for tests that run
 * without PostgreSQL: words split where its parser splits them (apostrophes and hyphens too), its
 * english stop words dropped, and the rest reduced by the Snowball English (Porter2) stemmer that its
 * english_stem dictionary uses. Words with digits go through unstemmed, as PostgreSQL's `simple`
 * dictionary leaves them. Keyword search matches on these lexemes, so two texts that share none
 * cannot find each other by keyword.
 */
import { normalizeWord, words } from '../../services/intelligence/text/words';

/** PostgreSQL's tsearch_data/english.stop. */
export const POSTGRES_ENGLISH_STOP: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
  herself it its itself they them their theirs themselves what which who whom this that these those am is are
  was were be been being have has had having do does did doing a an the and but if or because as until while
  of at by for with about against between into through during before after above below to from up down in out
  on off over under again further then once here there when where why how all any both each few more most
  other some such no nor not only own same so than too very s t can will just don should now`.split(/\s+/),
);

const VOWEL = /[aeiouy]/;
const isVowel = (c: string | undefined) => c !== undefined && VOWEL.test(c);

const EXCEPTIONS = new Map<string, string>(
  Object.entries({
    skis: 'ski',
    skies: 'sky',
    dying: 'die',
    lying: 'lie',
    tying: 'tie',
    idly: 'idl',
    gently: 'gentl',
    ugly: 'ugli',
    early: 'earli',
    only: 'onli',
    singly: 'singl',
    sky: 'sky',
    news: 'news',
    howe: 'howe',
    atlas: 'atlas',
    cosmos: 'cosmos',
    bias: 'bias',
    andes: 'andes',
  }),
);

const AFTER_STEP_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

/**
 * Where R1 starts for words with these beginnings, instead of the usual rule. Later Snowball releases
 * add more (organ, emerg, past...); PostgreSQL's english_stem has these three only.
 */
const R1_PREFIXES = ['gener', 'commun', 'arsen'];

/** Start of the region after the first non-vowel that follows a vowel, from `from`. */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

/** A short syllable ends at position `end` (exclusive). */
function shortSyllableAt(w: string, end: number): boolean {
  if (end === 2) return isVowel(w[0]) && !isVowel(w[1]);
  const [a, b, c] = [w[end - 3], w[end - 2], w[end - 1]];
  return !isVowel(a) && isVowel(b) && !isVowel(c) && !'wxY'.includes(c);
}

/** The longest of `suffixes` the word ends with. */
function longest(w: string, suffixes: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const s of suffixes) if (w.endsWith(s) && (!best || s.length > best.length)) best = s;
  return best;
}

const STEP2: Record<string, string> = {
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  abli: 'able',
  entli: 'ent',
  izer: 'ize',
  ization: 'ize',
  ational: 'ate',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  aliti: 'al',
  alli: 'al',
  fulness: 'ful',
  ousli: 'ous',
  ousness: 'ous',
  iveness: 'ive',
  iviti: 'ive',
  biliti: 'ble',
  bli: 'ble',
  ogi: 'og',
  fulli: 'ful',
  lessli: 'less',
  li: '',
};
const STEP3: Record<string, string> = {
  tional: 'tion',
  ational: 'ate',
  alize: 'al',
  icate: 'ic',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
  ative: '',
};
const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
];

/** Snowball English (Porter2) stem of one lower-case word. */
export function stem(word: string): string {
  if (word.length <= 2) return word;
  let w = word.replace(/^'/, '');
  const exception = EXCEPTIONS.get(w);
  if (exception) return exception;
  w = w.replace(/^y/, 'Y').replace(/([aeiouy])y/g, '$1Y');
  const prefix = R1_PREFIXES.find((p) => w.startsWith(p));
  const r1 = prefix ? prefix.length : regionAfter(w, 0);
  const r2 = regionAfter(w, r1);
  const inR1 = (s: string) => w.length - s.length >= r1;
  const inR2 = (s: string) => w.length - s.length >= r2;
  const cut = (s: string, by = '') => (w = w.slice(0, w.length - s.length) + by);

  // Step 0: possessives.
  const s0 = longest(w, ["'s'", "'s", "'"]);
  if (s0) cut(s0);

  // Step 1a: plurals.
  const s1a = longest(w, ['sses', 'ied', 'ies', 's', 'us', 'ss']);
  if (s1a === 'sses') cut(s1a, 'ss');
  else if (s1a === 'ied' || s1a === 'ies') cut(s1a, w.length > 4 ? 'i' : 'ie');
  else if (s1a === 's' && /[aeiouy]/.test(w.slice(0, -2))) cut(s1a);
  if (AFTER_STEP_1A.has(w)) return w;

  // Step 1b: past tenses and gerunds.
  const s1b = longest(w, ['eed', 'eedly', 'ed', 'edly', 'ing', 'ingly']);
  if (s1b === 'eed' || s1b === 'eedly') {
    if (inR1(s1b)) cut(s1b, 'ee');
  } else if (s1b && /[aeiouy]/.test(w.slice(0, w.length - s1b.length))) {
    cut(s1b);
    if (/(at|bl|iz)$/.test(w)) w += 'e';
    else if (/(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/.test(w)) w = w.slice(0, -1);
    else if (r1 >= w.length && shortSyllableAt(w, w.length)) w += 'e';
  }

  // Step 1c: a final y after a consonant that is not the first letter.
  if (w.length > 2 && /[yY]$/.test(w) && !isVowel(w[w.length - 2])) w = w.slice(0, -1) + 'i';

  const s2 = longest(w, Object.keys(STEP2));
  if (s2 && inR1(s2)) {
    if (s2 === 'ogi') {
      if (w.endsWith('logi')) cut(s2, 'og');
    } else if (s2 === 'li') {
      if (/[cdeghkmnrt]li$/.test(w)) cut(s2);
    } else cut(s2, STEP2[s2]);
  }

  const s3 = longest(w, Object.keys(STEP3));
  if (s3 && inR1(s3) && (s3 !== 'ative' || inR2(s3))) cut(s3, STEP3[s3]);

  const s4 = longest(w, STEP4);
  if (s4 && inR2(s4) && (s4 !== 'ion' || /[st]ion$/.test(w))) cut(s4);

  // Step 5: a final e or l.
  if (w.endsWith('e')) {
    if (inR2('e') || (inR1('e') && !shortSyllableAt(w, w.length - 1))) cut('e');
  } else if (w.endsWith('ll') && inR2('l')) cut('l');

  return w.replace(/Y/g, 'y');
}

/** The text's lexemes under PostgreSQL's english configuration (see the module comment). */
export function englishLexemes(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of words(text)) {
    for (const part of normalizeWord(word).split(/['-]/)) {
      if (!part || POSTGRES_ENGLISH_STOP.has(part)) continue;
      out.add(/\p{N}/u.test(part) ? part : stem(part));
    }
  }
  return out;
}
