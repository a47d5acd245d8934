import type { Sentence } from '../types';

/**
 * Small talk and pleasantries: greetings, thanks and goodbyes, and chat about the weekend, the weather,
 * sport, pets, family and parties. Notes leave them out: they are never a topic, a keyword or a line of
 * the overview. A sentence is small talk when it is a short pleasantry or speaks of those things; a
 * sentence between two of them is too ("Oh no, again?" after the broken coffee machine), and so is a
 * run of short replies inside such a stretch.
 */

const PLEASANTRY =
  /^(?:(?:oh|ah|ha|well|okay|ok|yes|yeah|and|so)[,!.]?\s+)*(?:hi|hey|hello|morning|good (?:morning|afternoon|evening)|thanks|thank you|bye|goodbye|see you|cheers|welcome|nice to (?:meet|see)|great to (?:meet|see)|good to (?:meet|see)|talk soon|have a (?:good|great|nice)|you too|congrat|happy (?:birthday|holidays|new year)|sorry i'm late|can you hear me|loud and clear|how are you|how was your)\b/i;
const PLEASANTRY_WORDS = 10;

const CHAT =
  /\b(?:weekends?|weather|rain(?:ed|ing|y)?|sunny|sunshine|snow(?:ed|ing)?|hiking|hike|lake|beach|dog|dogs|puppy|cat|kids|sister|brother|wife|husband|partner's|family|coffee|coffee machine|the match|football|soccer|penalty|television|tv|movie|film|birthday|party|barbecue|bbq|traffic|commute|gym|marathon|concert|jet lag|flight was)\b/i;

/** Whether each sentence is small talk, by position. */
export function smallTalkOf(sentences: readonly Sentence[]): boolean[] {
  const n = sentences.length;
  const words = sentences.map((s) => s.text.split(/\s+/).filter(Boolean).length);
  const chat = sentences.map(
    (s, i) => (PLEASANTRY.test(s.text.trim()) && words[i] <= PLEASANTRY_WORDS) || CHAT.test(s.text),
  );
  const out = [...chat];
  for (let i = 0; i < n; i++) {
    if (out[i]) continue;
    // Between two pieces of chat, a sentence belongs to it unless it is long enough to turn to work.
    const before = i > 0 && chat[i - 1];
    const after = i + 1 < n && chat[i + 1];
    if (before && after && words[i] <= 20) out[i] = true;
  }
  return out;
}
