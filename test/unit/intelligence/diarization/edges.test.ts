/**
 * Turns cut by a segmentation window's edge (services/intelligence/diarization/engine.ts): with windows
 * side by side, a short piece of a turn on the far side of an edge takes the speaker of the turn it
 * continues.
 */
import { mendWindowEdges } from '../../../../services/intelligence/diarization';

const turn = (start: number, end: number, speaker: number) => ({ start, end, speaker });

describe('mendWindowEdges', () => {
  it('gives a short piece just after an edge the speaker whose turn ends at that edge, and drops the speaker it leaves empty', () => {
    const turns = [turn(0.2, 4.4, 0), turn(5.4, 9.97, 1), turn(10.03, 10.46, 2), turn(11, 14, 0)];
    expect(mendWindowEdges(turns, 1)).toEqual([
      turn(0.2, 4.4, 0),
      turn(5.4, 9.97, 1),
      turn(10.03, 10.46, 1),
      turn(11, 14, 0),
    ]);
  });

  it('gives a short piece just before an edge the speaker whose turn starts there, and joins a turn that now overlaps its own', () => {
    const turns = [turn(1, 9, 0), turn(19.3, 19.98, 1), turn(19.95, 25, 2)];
    expect(mendWindowEdges(turns, 1)).toEqual([turn(1, 9, 0), turn(19.3, 25, 1)]);
  });

  it("mends a speaker's stray piece into another speaker who keeps the rest of their turns", () => {
    const turns = [turn(12, 19.97, 0), turn(20.03, 20.5, 1), turn(21, 25, 1), turn(25.5, 29, 0)];
    expect(mendWindowEdges(turns, 1)).toEqual([
      turn(12, 19.97, 0),
      turn(20.03, 20.5, 0),
      turn(21, 25, 1),
      turn(25.5, 29, 0),
    ]);
  });

  it('leaves alone a piece longer than a second, a piece away from an edge, one not touching another turn, and overlapping windows', () => {
    const long = [turn(5, 9.98, 0), turn(10.02, 11.1, 1)];
    expect(mendWindowEdges(long, 1)).toEqual(long);
    const inside = [turn(5, 8.98, 0), turn(9.02, 9.5, 1)];
    expect(mendWindowEdges(inside, 1)).toEqual(inside);
    const apart = [turn(5, 9.5, 0), turn(10.02, 10.5, 1)];
    expect(mendWindowEdges(apart, 1)).toEqual(apart);
    const cut = [turn(5, 9.98, 0), turn(10.02, 10.5, 1)];
    expect(mendWindowEdges(cut, 0.5)).toEqual(cut);
    // The bounds themselves: a piece of exactly one second is mended, a start exactly at the edge's tolerance too.
    expect(mendWindowEdges([turn(5, 9.98, 0), turn(10.1, 11.1, 1)], 1)).toEqual([
      turn(5, 9.98, 0),
      turn(10.1, 11.1, 0),
    ]);
    expect(mendWindowEdges([turn(5, 9.98, 0), turn(10.11, 11, 1)], 1)).toEqual([turn(5, 9.98, 0), turn(10.11, 11, 1)]);
  });

  it('never mends at the start of the recording', () => {
    const turns = [turn(0, 0.5, 0), turn(0.5, 4, 1)];
    expect(mendWindowEdges(turns, 1)).toEqual(turns);
  });
});
