/**
 * The DER scorer of test/support/der.ts on cases worked out by hand (pyannote.metrics gives the same
 * figures for them: see docs/speakers.md).
 */
import { diarizationErrorRate, parseRttm, type Turn } from '../../../support/der';

const t = (speaker: string, start: number, end: number): Turn => ({ speaker, start, end });

describe('diarizationErrorRate', () => {
  it('is zero for the reference under other names', () => {
    const r = diarizationErrorRate([t('a', 0, 5), t('b', 5, 10)], [t('x', 0, 5), t('y', 5, 10)]);
    expect(r.der).toBe(0);
    expect([...r.mapping]).toEqual([
      ['a', 'x'],
      ['b', 'y'],
    ]);
  });

  it('counts missed speech, false alarm and confusion over the reference speech', () => {
    // Reference: a 0–4, b 4–10 (10 s). Hypothesis: x 0–5 (1 s of b called x: confusion), y 6–11
    // (b's 5–6 missed, 10–11 a false alarm).
    const r = diarizationErrorRate([t('a', 0, 4), t('b', 4, 10)], [t('x', 0, 5), t('y', 6, 11)]);
    expect(r.total).toBeCloseTo(10);
    expect(r.confusion).toBeCloseTo(1);
    expect(r.missed).toBeCloseTo(1);
    expect(r.falseAlarm).toBeCloseTo(1);
    expect(r.der).toBeCloseTo(0.3);
  });

  it('maps speakers one to one for the most shared time, not greedily', () => {
    // Greedy would give a→x (5 s) and leave b with nothing; the optimum is a→y (4) + b→x (4.5).
    const ref = [t('a', 0, 5), t('a', 10, 14), t('b', 5, 9.5)];
    const hyp = [t('x', 0, 9.5), t('y', 10, 14)];
    const r = diarizationErrorRate(ref, hyp);
    expect(Object.fromEntries(r.mapping)).toEqual({ a: 'y', b: 'x' });
    expect(r.confusion).toBeCloseTo(5);
  });

  it('scores overlapped speech per speaker', () => {
    // Two speak at once for 2 s; the hypothesis hears only one of them there.
    const r = diarizationErrorRate([t('a', 0, 4), t('b', 2, 6)], [t('x', 0, 4), t('y', 4, 6)]);
    expect(r.total).toBeCloseTo(8);
    expect(r.missed).toBeCloseTo(2);
    expect(r.der).toBeCloseTo(0.25);
  });

  it('refuses a reference with no speech', () => {
    expect(() => diarizationErrorRate([], [t('x', 0, 1)])).toThrow('reference: no speech to score against');
  });
});

describe('parseRttm', () => {
  it('reads start, duration and speaker of SPEAKER lines and rejects a malformed one by line number', () => {
    expect(
      parseRttm('SPEAKER f 1 6.690 0.430 <NA> <NA> spk1 <NA> <NA>\n\nSPEAKER f 1 7.5 1 <NA> <NA> spk2 <NA> <NA>\n'),
    ).toEqual([
      { start: 6.69, end: 6.69 + 0.43, speaker: 'spk1' },
      { start: 7.5, end: 8.5, speaker: 'spk2' },
    ]);
    expect(() => parseRttm('SPEAKER f 1 x 1 <NA> <NA> s')).toThrow('rttm line 1: expected SPEAKER');
  });
});
