/**
 * The extractive notes with the shipped embedding model (make models), on the labelled set: the same
 * floors as words alone (test/unit/intelligence/summarize/notes.test.ts), one model call a meeting.
 */
import { summarizeNotes, type SentenceEmbedder } from '../../../services/intelligence/summarize';
import { testEmbedder } from '../../support/embedder';
import { loadLabelledSet, scoreMeeting, scoreSet } from '../../support/notes-score';

describe('notes with the shipped embedding model', () => {
  it('holds the floors on the labelled set, each meeting embedded in one call', async () => {
    const model = await testEmbedder();
    let calls = 0;
    const embedder: SentenceEmbedder = {
      embedPassages: (texts) => {
        calls++;
        return model.embedPassages(texts);
      },
    };
    const set = loadLabelledSet();
    const scores = [];
    for (const m of set) scores.push(scoreMeeting(m, await summarizeNotes(m.sentences, { ...m.options, embedder })));
    const score = scoreSet(scores);
    expect(calls).toBe(set.length);
    expect(score.typeAccuracy).toBeGreaterThanOrEqual(0.96);
    expect(score.topicPrecision).toBeGreaterThanOrEqual(0.9);
    expect(score.topicRecall).toBeGreaterThanOrEqual(0.66);
    expect(score.smallTalkTopics).toBe(0);
    expect(score.itemPrecision).toBeGreaterThanOrEqual(0.92);
    expect(score.itemRecall).toBeGreaterThanOrEqual(0.92);
    expect(score.duplicates).toBeLessThanOrEqual(5);
  }, 120_000);
});
