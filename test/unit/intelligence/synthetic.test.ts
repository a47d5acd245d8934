import { parseCaptions } from '../../../services/intelligence/captions';
import { createPrng, iterateSyntheticMeetings, syntheticMeetings, toWebVtt } from '../../support/synthetic';

const users = [
  'Ada Park',
  'Grace Okafor',
  'Miguel Santos',
  'Priya Raman',
  'Tom Becker',
  'Lena Fischer',
  'Sam Okoro',
  'Hana Sato',
].map((name) => ({
  name,
  email: `${name.split(' ')[0].toLowerCase()}@demo.example`,
}));

describe('createPrng', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const c = createPrng(43);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('syntheticMeetings', () => {
  const options = { count: 24, sentencesPerMeeting: 40, seed: 7, users };

  it('is deterministic from the seed, and meeting i does not depend on how many are made', () => {
    const first = syntheticMeetings(options);
    expect(syntheticMeetings(options)).toEqual(first);
    expect(syntheticMeetings({ ...options, seed: 8 })[0]).not.toEqual(first[0]);
    const few = syntheticMeetings({ ...options, count: 3 });
    expect(few.map((m) => m.sentences)).toEqual(first.slice(0, 3).map((m) => m.sentences));
    expect([...iterateSyntheticMeetings(options)]).toEqual(first);
  });

  it('makes well-formed meetings: titles, dates on weekdays, participants who speak, ordered times', () => {
    for (const m of syntheticMeetings(options)) {
      expect(m.title.length).toBeGreaterThanOrEqual(5);
      const date = new Date(m.date);
      expect([0, 6]).not.toContain(date.getUTCDay());
      expect(m.date >= '2026-10-01').toBe(true);
      expect(m.sentences).toHaveLength(40);
      expect(m.organizer_email).toBe(m.participants[0].email);
      const names = new Set(m.participants.map((p) => p.name));
      let last = 0;
      const seen: string[] = [];
      const problems: string[] = [];
      for (const s of m.sentences) {
        if (!names.has(s.speaker_name)) problems.push(`${s.index}: ${s.speaker_name} is not a participant`);
        if (!seen.includes(s.speaker_name)) seen.push(s.speaker_name);
        if (s.speaker_id !== seen.indexOf(s.speaker_name)) problems.push(`${s.index}: speaker id ${s.speaker_id}`);
        if (s.start_time < last || s.end_time <= s.start_time)
          problems.push(`${s.index}: times ${s.start_time}–${s.end_time}`);
        last = s.end_time;
      }
      expect(problems).toEqual([]);
      expect(m.duration_seconds).toBeGreaterThanOrEqual(last);
      if (m.meeting_type === 'sales')
        expect(m.participants.some((p) => p.email.endsWith('@customer.example'))).toBe(true);
    }
  });

  it('round-trips through WebVTT with voice tags', () => {
    const [m] = syntheticMeetings({ ...options, count: 1 });
    const parsed = parseCaptions(toWebVtt(m));
    expect(parsed.sentences.map((s) => [s.speaker_name, s.speaker_id, s.text, s.start_time, s.end_time])).toEqual(
      m.sentences.map((s) => [s.speaker_name, s.speaker_id, s.text, s.start_time, s.end_time]),
    );
  });

  // Its speed (10,000 × 200 sentences in a few seconds) is measured by test/bench/analyze.bench.ts, not
  // asserted here, where the machine is shared with other test workers.
  it('streams meetings one at a time with unique ids', () => {
    const ids = new Set<string>();
    let sentences = 0;
    for (const m of iterateSyntheticMeetings({ count: 1_000, sentencesPerMeeting: 200, seed: 1, users })) {
      ids.add(m.id);
      sentences += m.sentences.length;
    }
    expect(ids.size).toBe(1_000);
    expect(sentences).toBe(200_000);
  });
});
