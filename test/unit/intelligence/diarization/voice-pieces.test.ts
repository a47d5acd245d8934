/**
 * The audio a speaker's voice is embedded from, and how the pieces' embeddings make one voice
 * (services/intelligence/diarization/engine.ts): the longest turns up to 30 s, cut in equal pieces of
 * at most a segmentation window, their unit embeddings averaged.
 */
import { embeddingPieces, meanVoice, VOICE_PIECE_SECONDS } from '../../../../services/intelligence/diarization';

const RATE = 16000;
const turn = (start: number, end: number, speaker: number) => ({ start, end, speaker });
/** Audio whose every sample is its own time in seconds, so a piece shows where it was cut from. */
function clock(seconds: number) {
  return { samples: Float32Array.from({ length: seconds * RATE }, (_, i) => i / RATE), sampleRate: RATE };
}
const seconds = (pieces: Float32Array[]) => pieces.map((p) => p.length / RATE);

describe('embeddingPieces', () => {
  it("joins a speaker's longest turns first and cuts them in equal pieces of at most a window", () => {
    const audio = clock(60);
    const pieces = embeddingPieces(audio, [turn(0, 5, 0), turn(10, 22, 0), turn(30, 38, 0), turn(40, 50, 1)]);
    expect(VOICE_PIECE_SECONDS).toBe(10);
    const a = pieces.get(0)!;
    expect(seconds(a).reduce((x, y) => x + y, 0)).toBeCloseTo(25, 5);
    expect(a).toHaveLength(3);
    for (const s of seconds(a)) expect(s).toBeCloseTo(25 / 3, 3);
    // The 12-s turn comes first, then the 8-s one, then the 5-s one.
    expect(a[0][0]).toBeCloseTo(10, 4);
    expect(a[1][Math.round((22 - 10 - 25 / 3) * RATE)]).toBeCloseTo(30, 4);
    expect(a[2][a[2].length - 1]).toBeCloseTo(5 - 1 / RATE, 4);
    expect(seconds(pieces.get(1)!)).toEqual([10]);
  });

  it('takes at most 30 s of a speaker, and cuts exactly at the piece length, not a sample sooner', () => {
    const audio = clock(120);
    expect(seconds(embeddingPieces(audio, [turn(0, 45, 0)]).get(0)!)).toEqual([10, 10, 10]);
    expect(embeddingPieces(audio, [turn(0, VOICE_PIECE_SECONDS, 0)]).get(0)).toHaveLength(1);
    const over = embeddingPieces(audio, [turn(0, VOICE_PIECE_SECONDS + 1 / RATE, 0)]).get(0)!;
    expect(over.map((p) => p.length)).toEqual([80001, 80000]);
  });

  it('clips turns to the audio, leaves out a speaker with no sound in it, and refuses another sample rate', () => {
    const audio = clock(20);
    const pieces = embeddingPieces(audio, [turn(15, 25, 0), turn(30, 40, 1)]);
    expect([...pieces.keys()]).toEqual([0]);
    expect(seconds(pieces.get(0)!)).toEqual([5]);
    expect(() => embeddingPieces({ samples: new Float32Array(8000), sampleRate: 8000 }, [])).toThrow(
      'sampleRate: must be 16000 (resample first), got 8000',
    );
  });
});

describe('meanVoice', () => {
  it("is the unit direction of the pieces' unit vectors' mean, whatever their lengths", () => {
    const v = meanVoice([
      [3, 0],
      [0, 0.5],
    ]);
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Array.from(meanVoice([[0, -2]]))).toEqual([0, -1]);
  });

  it('refuses no embedding, a zero vector and embeddings of different sizes', () => {
    expect(() => meanVoice([])).toThrow('embeddings: at least one is needed');
    expect(() => meanVoice([[0, 0]])).toThrow('embeddings: each must be a non-zero vector');
    expect(() => meanVoice([[1, 0], [1]])).toThrow('embeddings: all must have 2 values, got 1');
  });
});
