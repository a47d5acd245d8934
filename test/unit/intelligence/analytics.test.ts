import { analyze, fillersIn, monologuesBySpeaker, polarity } from '../../../services/intelligence/analytics';
import { transcript } from './transcript';

/**
 * A short meeting counted by hand:
 *   Ada  talks 10 + 30 + 34 + 4 = 78 s, says 8 + 10 + 14 + 4 = 36 words, fillers um, like, you know, uh = 4,
 *        no questions, one monologue (16 s → 80 s = 64 s, two sentences with nobody in between).
 *   Ben  talks 4 + 3 + 9 = 16 s, says 7 + 3 + 8 = 18 words, fillers "I mean", hmm = 2 ("what kind of" is
 *        a question, not a hedge), questions 3 (the last cue holds a question and then "Hmm.").
 *   Gaps between sentences: 1 + 1 + 2 + 1 + 1 = 6 s of silence; the meeting ends at 100 s.
 */
const meeting = transcript([
  ['Ada', 0, 10, 'Um, so let us start with the budget.'],
  ['Ben', 11, 15, 'Sure, I mean, what do you need?'],
  ['Ada', 16, 46, 'We need to, like, cut the travel costs by Friday.'],
  ['Ada', 46, 80, 'You know, the team has been great and I am happy with the results.'],
  ['Ben', 82, 85, 'Is that realistic?'],
  ['Ada', 86, 90, 'Uh, I think so.'],
  ['Ben', 91, 100, 'What kind of budget do we have? Hmm.'],
]);

describe('analyze', () => {
  const result = analyze(meeting, { speakerEmails: { ada: 'ada@demo.example' }, hostEmail: 'ada@demo.example' });
  const [ada, ben] = result.speakers;

  it('counts talk time, words, words per minute and share of talk per speaker', () => {
    expect(ada).toMatchObject({
      speaker_id: 0,
      name: 'Ada',
      email: 'ada@demo.example',
      duration: 78,
      word_count: 36,
      duration_pct: 82.98,
    });
    expect(ben).toMatchObject({
      speaker_id: 1,
      name: 'Ben',
      email: null,
      duration: 16,
      word_count: 18,
      duration_pct: 17.02,
    });
    expect(ada.words_per_minute).toBe(27.7);
    expect(ben.words_per_minute).toBe(67.5);
  });

  it('counts filler words and questions as a person would', () => {
    expect(ada.filler_words).toBe(4);
    expect(ben.filler_words).toBe(2);
    expect(ada.questions).toBe(0);
    expect(ben.questions).toBe(3);
  });

  it('finds the one monologue of 60 s or more', () => {
    expect(ada).toMatchObject({ monologues_count: 1, longest_monologue: 64 });
    expect(ben).toMatchObject({ monologues_count: 0, longest_monologue: 0 });
  });

  it('measures the meeting: length, silence between sentences and the host talk-listen ratio', () => {
    expect(result.meeting.duration_seconds).toBe(100);
    expect(result.meeting.silence_seconds).toBe(6);
    expect(result.meeting.talk_listen_ratio).toBe(4.875); // 78 s talking / 16 s listening
  });

  it('gives sentiment shares per speaker and meeting that add up to 100', () => {
    for (const p of [ada, ben, result.meeting])
      expect(p.positive_pct + p.neutral_pct + p.negative_pct).toBeCloseTo(100, 1);
    // "the team has been great and I am happy…" is Ada's one positive sentence of four
    expect(ada.positive_pct).toBe(25);
    expect(ben.positive_pct + ben.negative_pct).toBe(0);
  });

  it('takes the speaker who talked most as host when the organizer is unknown, and the media length when longer', () => {
    const r = analyze(meeting, { mediaDurationSeconds: 120 });
    expect(r.meeting.talk_listen_ratio).toBe(4.875);
    expect(r.meeting.duration_seconds).toBe(120);
    expect(
      analyze(meeting, { hostEmail: 'ben@demo.example', speakerEmails: { Ben: 'ben@demo.example' } }).meeting
        .talk_listen_ratio,
    ).toBe(0.205);
  });

  it('has no talk-listen ratio when only one person spoke, and nothing at all for an empty transcript', () => {
    expect(analyze(transcript([['Ada', 0, 5, 'Hello?']])).meeting.talk_listen_ratio).toBeNull();
    expect(analyze([])).toEqual({
      meeting: {
        duration_seconds: 0,
        silence_seconds: 0,
        talk_listen_ratio: null,
        positive_pct: 0,
        neutral_pct: 0,
        negative_pct: 0,
      },
      speakers: [],
    });
  });

  it('finds a filler phrase and a question that caption cues cut in two', () => {
    const cut = transcript([
      ['Ada', 0, 2, 'It was, you'],
      ['Ada', 2, 4, 'know, fine. Did it'],
      ['Ada', 4, 5, 'work?'],
    ]);
    expect(analyze(cut).speakers[0]).toMatchObject({ filler_words: 1, questions: 1, word_count: 8 });
  });

  it('counts overlapping speech once when measuring silence', () => {
    const overlap = transcript([
      ['Ada', 0, 10, 'One.'],
      ['Ben', 5, 12, 'Two.'],
      ['Ada', 20, 25, 'Three.'],
    ]);
    expect(analyze(overlap).meeting.silence_seconds).toBe(8);
  });
});

describe('monologuesBySpeaker', () => {
  it('ends a run at another speaker, however short, and counts each run of 60 s or more', () => {
    const m = monologuesBySpeaker(
      transcript([
        ['Ada', 0, 30, 'a'],
        ['Ada', 31, 61, 'b'], // 0 → 61: one monologue
        ['Ben', 61, 62, 'Right.'],
        ['Ada', 62, 100, 'c'], // 38 s: not one
        ['Ben', 100, 101, 'Mm.'],
        ['Ada', 101, 200, 'd'], // 99 s
      ]),
    );
    expect(m.get(0)).toEqual({ count: 2, longest: 99 });
    expect(m.get(1)).toEqual({ count: 0, longest: 0 });
  });
});

describe('fillersIn', () => {
  it.each([
    ['Um, uh, er, erm, ah, hmm, umm.', ['um', 'uh', 'er', 'erm', 'ah', 'hmm', 'umm']],
    ['You know, it was fine.', ['you know']],
    ['Do you know what time it is?', []],
    ['As you know the plan changed.', []],
    ['I mean, we could try.', ['i mean']],
    ['That is what I mean.', []],
    ['I mean it.', []],
    ['It was sort of slow and kind of late.', ['sort of', 'kind of']],
    ['What kind of plan is this? A sort of map.', []],
    ['It was, like, huge.', ['like']],
    ['Uh, like, maybe.', ['uh', 'like']],
    ['I like it, like I said.', []],
    ['It looks like rain.', []],
    ['You’know is not a phrase, but you know, this is.', ['you know']],
  ])('%j → %j', (text, expected) => {
    expect(fillersIn(text)).toEqual(expected);
  });
});

describe('polarity', () => {
  it.each([
    ['The team has been great and I am happy.', 'positive'],
    ['This release was a terrible failure.', 'negative'],
    ['We met on Tuesday.', 'neutral'],
    // conversational words that AFINN scores are neutral in meetings
    ['Yeah, like, no, kind of.', 'neutral'],
  ])('%j is %s', (text, expected) => {
    expect(polarity(text)).toBe(expected);
  });
});
