/**
 * Notes in the meeting's language: its stop words never become keywords or topics, and the language
 * of caption text is told from a few sentences.
 */
import lists from 'stopwords-iso/stopwords-iso.json';
import { summarize } from '../../../../services/intelligence/summarize/extractive';
import { STOPWORDS, stopwordsFor } from '../../../../services/intelligence/summarize/stopwords';
import { detectTextLanguage, MIN_LETTERS } from '../../../../services/intelligence/text/language';
import type { Sentence } from '../../../../services/intelligence/types';

const GERMAN = [
  'Guten Morgen zusammen, wir sprechen heute über das Haus am See und die Renovierung.',
  'Das Dach des Hauses muss bis zum Winter erneuert werden, sonst regnet es in die Küche.',
  'Die Angebote der Dachdecker liegen vor, das günstigste kommt von der Firma Berger.',
  'Ich finde, wir sollten das Angebot von Berger annehmen und den Vertrag diese Woche unterschreiben.',
  'Einverstanden. Dann kümmere ich mich um die Heizung, die Heizung ist auch schon sehr alt.',
  'Für die Heizung brauchen wir einen Kostenvoranschlag, am besten von zwei Installateuren.',
  'Die Küche planen wir erst im Frühjahr, wenn das Dach fertig ist.',
  'Gut, dann sind Dach und Heizung die wichtigsten Punkte für den Herbst.',
  'Ich schicke die Unterlagen zur Heizung morgen an alle, das wird reichen.',
  'Danke, dann sehen wir uns nächste Woche wieder, das ist gut.',
];

const asSentences = (texts: string[]): Sentence[] =>
  texts.map((text, i) => ({
    index: i,
    speaker_name: i % 2 ? 'Lena' : 'Jonas',
    speaker_id: i % 2,
    text,
    raw_text: text,
    start_time: i * 4,
    end_time: i * 4 + 4,
  }));

const noteWords = (language?: string) => {
  const s = summarize(asSentences(GERMAN), { language });
  return [...s.keywords, ...s.topics_discussed].flatMap((k) => k.toLowerCase().split(/\s+/));
};

describe('stop words by language', () => {
  it('keeps English as it was, and adds the language’s own list to it for another', () => {
    expect(stopwordsFor(null)).toBe(STOPWORDS);
    expect(stopwordsFor('en-GB')).toBe(STOPWORDS);
    const de = stopwordsFor('de-AT');
    for (const w of ['und', 'die', 'das', 'the', 'yeah']) expect(de.has(w)).toBe(true);
    expect(de.has('heizung')).toBe(false);
    // A language without a list: English's alone.
    expect(stopwordsFor('tlh')).toEqual(STOPWORDS);
  });

  it('draws no German stop word into a German meeting’s keywords and topics, which English stop words alone would', () => {
    const stop = new Set((lists as Record<string, string[]>).de);
    expect(noteWords().filter((w) => stop.has(w)).length).toBeGreaterThan(0);
    const words = noteWords('de');
    expect(words.filter((w) => stop.has(w))).toEqual([]);
    expect(words).toContain('heizung');
  });
});

describe('language of caption text', () => {
  it('tells German, French and English from a sentence or two', () => {
    expect(detectTextLanguage(GERMAN.slice(0, 2))).toBe('de');
    expect(detectTextLanguage(['Bonjour à tous. Nous commençons la réunion sur le budget.'])).toBe('fr');
    expect(detectTextLanguage(['Hello everyone, let us start with the roadmap review.'])).toBe('en');
  });

  it('answers nothing for text too short or too unsure to tell', () => {
    expect(detectTextLanguage(['Okay. Yes. Thanks.'])).toBeNull();
    expect(detectTextLanguage(['a'.repeat(MIN_LETTERS - 1)])).toBeNull();
    expect(detectTextLanguage([])).toBeNull();
  });
});
