/**
 * Passages: what is embedded for search by meaning (pure functions).
 */
import { PASSAGE_CHARS, passagesOf, vectorLiteral } from '../../../services/core/passages';

const sentences = (n: number, text = (i: number) => `Sentence ${i}.`) =>
  Array.from({ length: n }, (_, i) => ({ idx: i, speaker_name: i % 2 ? 'Bo' : 'Ana', text: text(i) }));

const spans = (ps: { first: number; last: number }[]) => ps.map((p) => [p.first, p.last]);

describe('passagesOf', () => {
  it('windows of three starting at each sentence and the two places before, cut to the meeting', () => {
    expect(spans(passagesOf(sentences(5)))).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 3],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
  });

  it('every sentence in three passages, the first and last too', () => {
    const ps = passagesOf(sentences(6));
    for (let i = 0; i < 6; i++) expect(ps.filter((p) => p.first <= i && i <= p.last)).toHaveLength(3);
  });

  it('writes each sentence as Speaker: text, joined with a space', () => {
    expect(passagesOf(sentences(3))[2].text).toBe('Ana: Sentence 0. Bo: Sentence 1. Ana: Sentence 2.');
  });

  it('a short meeting: each distinct window once; none is none', () => {
    expect(spans(passagesOf(sentences(2)))).toEqual([
      [0, 0],
      [0, 1],
      [1, 1],
    ]);
    expect(spans(passagesOf(sentences(1)))).toEqual([[0, 0]]);
    expect(passagesOf([])).toEqual([]);
  });

  it('from a position on: the windows a live meeting’s new sentences start or complete', () => {
    expect(spans(passagesOf(sentences(7), 3))).toEqual([
      [3, 5],
      [4, 6],
      [5, 6],
      [6, 6],
    ]);
    expect(spans(passagesOf(sentences(7), -5))).toEqual(spans(passagesOf(sentences(7))));
  });

  it('stops a window at the character bound, never leaving a sentence out', () => {
    const long = sentences(5, () => 'x'.repeat(PASSAGE_CHARS / 2));
    const windows = passagesOf(long);
    for (const p of windows) expect(p.text.length).toBeLessThanOrEqual(PASSAGE_CHARS);
    const covered = new Set(
      windows.flatMap((p) => Array.from({ length: p.last - p.first + 1 }, (_, i) => p.first + i)),
    );
    expect([...covered].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('a second sentence fits exactly at the bound, not one character past it', () => {
    const at = (first: number, second: number) => [
      { idx: 0, speaker_name: 'A', text: 'a'.repeat(first) },
      { idx: 1, speaker_name: 'B', text: 'b'.repeat(second) },
    ];
    // "A: " + first + " " + "B: " + second
    const room = PASSAGE_CHARS - 3 - 1 - 3;
    expect(spans(passagesOf(at(room - 10, 10)))).toContainEqual([0, 1]);
    expect(spans(passagesOf(at(room - 10, 11)))).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('keeps stored indices, which need not start at 0', () => {
    const s = sentences(3).map((x) => ({ ...x, idx: x.idx + 5 }));
    expect(spans(passagesOf(s))).toContainEqual([5, 7]);
  });
});

describe('vectorLiteral', () => {
  it('writes pgvector text with five decimals', () => {
    expect(vectorLiteral(new Float32Array([0.123456, -1, 0]))).toBe('[0.12346,-1,0]');
  });
});
