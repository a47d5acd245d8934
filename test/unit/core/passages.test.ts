/**
 * Passages (what is embedded) and the fusion of a question's rankings: pure functions.
 */
import { PASSAGE_CHARS, passagesOf, vectorLiteral } from '../../../services/core/passages';
import { fuse } from '../../../services/core/meetings/question';

const sentences = (n: number, text = (i: number) => `Sentence ${i}.`) =>
  Array.from({ length: n }, (_, i) => ({ idx: i, text: text(i) }));

describe('passagesOf', () => {
  it('windows of three sentences every two, the last ending at the last sentence', () => {
    expect(passagesOf(sentences(7)).map((p) => [p.first, p.last])).toEqual([
      [0, 2],
      [2, 4],
      [4, 6],
    ]);
    expect(passagesOf(sentences(6)).map((p) => [p.first, p.last])).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
  });

  it('joins the sentences with a space', () => {
    expect(passagesOf(sentences(2))).toEqual([{ first: 0, last: 1, text: 'Sentence 0. Sentence 1.' }]);
  });

  it('one sentence, or none', () => {
    expect(passagesOf(sentences(1))).toEqual([{ first: 0, last: 0, text: 'Sentence 0.' }]);
    expect(passagesOf([])).toEqual([]);
  });

  it('stops a window at the character bound, never leaving a sentence out', () => {
    const long = sentences(4, () => 'x'.repeat(PASSAGE_CHARS / 2));
    const windows = passagesOf(long);
    for (const p of windows) expect(p.text.length).toBeLessThanOrEqual(PASSAGE_CHARS);
    const covered = new Set(
      windows.flatMap((p) => Array.from({ length: p.last - p.first + 1 }, (_, i) => p.first + i)),
    );
    expect([...covered].sort()).toEqual([0, 1, 2, 3]);
    // Exactly at the bound a second sentence still fits; one character more and it does not.
    const exact = [
      { idx: 0, text: 'a'.repeat(PASSAGE_CHARS - 2) },
      { idx: 1, text: 'b' },
    ];
    expect(passagesOf(exact)[0].last).toBe(1);
    expect(passagesOf([exact[0], { idx: 1, text: 'bb' }])[0].last).toBe(0);
  });

  it('keeps stored indices, which need not start at 0', () => {
    expect(
      passagesOf([
        { idx: 5, text: 'a' },
        { idx: 6, text: 'b' },
        { idx: 7, text: 'c' },
      ])[0],
    ).toMatchObject({
      first: 5,
      last: 7,
    });
  });
});

describe('vectorLiteral', () => {
  it('writes pgvector text with five decimals', () => {
    expect(vectorLiteral(new Float32Array([0.123456, -1, 0]))).toBe('[0.12346,-1,0]');
  });
});

describe('fuse', () => {
  const r = (meeting_id: string, idx: number) => ({ meeting_id, idx });

  it('ranks by the sum of reciprocal ranks: a sentence both lists hold comes first', () => {
    const fused = fuse([
      [r('a', 10), r('b', 20)],
      [r('c', 30), r('b', 20)],
    ]);
    expect(fused[0]).toEqual(r('b', 20));
    expect(fused).toHaveLength(3);
  });

  it('leaves out a moment next to a better one of the same meeting, not of another', () => {
    const fused = fuse([[r('a', 10), r('a', 11), r('b', 11), r('a', 12), r('a', 9), r('a', 8)]]);
    expect(fused).toEqual([r('a', 10), r('b', 11), r('a', 12), r('a', 8)]);
  });

  it('stops at the pool', () => {
    const many = Array.from({ length: 50 }, (_, i) => r('m', i * 3));
    expect(fuse([many], 7)).toHaveLength(7);
  });
});
