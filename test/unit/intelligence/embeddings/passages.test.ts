import { passagesOf, PASSAGE_SENTENCES } from '../../../../services/intelligence/embeddings';

const said = (n: number, speakers = ['Ada Park', 'Tom Becker']) =>
  Array.from({ length: n }, (_, i) => ({ index: i, speaker_name: speakers[i % speakers.length], text: `Line ${i}.` }));

describe('passagesOf', () => {
  it('starts a passage at every sentence that has two after it, across speakers, labelled', () => {
    const p = passagesOf(said(5));
    expect(PASSAGE_SENTENCES).toBe(3);
    expect(p).toEqual([
      { first: 0, last: 2, text: 'Ada Park: Line 0. Tom Becker: Line 1. Ada Park: Line 2.' },
      { first: 1, last: 3, text: 'Tom Becker: Line 1. Ada Park: Line 2. Tom Becker: Line 3.' },
      { first: 2, last: 4, text: 'Ada Park: Line 2. Tom Becker: Line 3. Ada Park: Line 4.' },
    ]);
  });

  it('covers every sentence: a meeting of one, two or three sentences is one passage', () => {
    expect(passagesOf([])).toEqual([]);
    expect(passagesOf(said(1))).toEqual([{ first: 0, last: 0, text: 'Ada Park: Line 0.' }]);
    expect(passagesOf(said(2)).map((p) => [p.first, p.last])).toEqual([[0, 1]]);
    expect(passagesOf(said(3)).map((p) => [p.first, p.last])).toEqual([[0, 2]]);
    expect(passagesOf(said(4)).map((p) => [p.first, p.last])).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it('keeps the sentences’ own positions and leaves out an empty speaker label', () => {
    const p = passagesOf([
      { index: 7, speaker_name: '', text: 'Yes, Friday.' },
      { index: 8, speaker_name: 'Sam Okoro', text: 'Great.' },
    ]);
    expect(p).toEqual([{ first: 7, last: 8, text: 'Yes, Friday. Sam Okoro: Great.' }]);
  });
});
