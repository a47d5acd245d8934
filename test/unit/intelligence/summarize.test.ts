import { findDuePhrase, resolveDue, summarize } from '../../../services/intelligence/summarize';
import { spokenSentences } from '../../../services/intelligence/text/spoken-sentences';
import { transcript } from './transcript';

/**
 * A pricing review counted by hand. Four action items:
 *   Ben, send the revised pricing sheet by Friday (asked by name; his "Sure, I'll send it by Thursday"
 *        accepts it and is not a second item; the first deadline stands),
 *   Carol, update the pricing page tomorrow (she says "I'll"),
 *   Ada, decide on the discount ("we need to", raised by Ada),
 *   Ben, draft the announcement email ("Action item for Ben").
 * Not items: "Let's see…", "Can you hear me okay?", "I'll be honest…".
 */
const review = transcript([
  ['Ada Park', 0, 4, 'Thanks for joining the pricing review.'],
  ['Ben Ode', 5, 6, 'Happy to help.'],
  ['Ada Park', 7, 12, 'Ben, can you send the revised pricing sheet to Carol by Friday?'],
  ['Ben Ode', 13, 16, "Sure, I'll send it by Thursday."],
  ['Carol Diaz', 17, 21, "I'll update the pricing page tomorrow."],
  ['Ada Park', 22, 26, 'We need to decide on the discount for annual plans.'],
  ['Ben Ode', 27, 30, "Let's see how the numbers look first."],
  ['Carol Diaz', 31, 35, 'Action item for Ben: draft the announcement email.'],
  ['Ada Park', 36, 38, 'Can you hear me okay?'],
  ['Ben Ode', 39, 40, 'Yes.'],
  ['Ada Park', 41, 46, "Great, I'll be honest, the pricing page needs work before the discount goes live."],
]);

describe('summarize (extractive)', () => {
  const summary = summarize(review, { meetingDate: '2026-10-14T10:00:00Z' }); // a Wednesday

  it('finds the action items with their owners and dates', () => {
    expect(summary.action_items.map((a) => [a.assignee, a.due, a.due_date, a.start_time])).toEqual([
      ['Ben Ode', 'Friday', '2026-10-16', 7],
      ['Carol Diaz', 'tomorrow', '2026-10-15', 17],
      ['Ada Park', null, null, 22],
      ['Ben Ode', null, null, 31],
    ]);
    expect(summary.action_items[0].text).toBe('Ben, can you send the revised pricing sheet to Carol by Friday?');
  });

  it('names the subject in keywords and topics and classifies the call', () => {
    expect(summary.keywords[0]).toMatch(/^pricing/);
    expect(summary.keywords).toEqual(expect.arrayContaining(['discount']));
    expect(summary.keywords.map((k) => k.toLowerCase())).not.toEqual(expect.arrayContaining(['ben', 'carol', 'ada']));
    expect(summary.topics_discussed.length).toBeGreaterThan(0);
    expect(summary.meeting_type).toBe('sales');
  });

  it('fills overview, short summary and outline, so notes stay empty', () => {
    expect(summary.short_summary).toMatch(
      /^Sales call with Ada Park, Ben Ode and Carol Diaz \(1 min\) about .*pricing.*; 4 action items\.$/,
    );
    expect(summary.overview.split('\n')[0]).toBe('Sales call with Ada Park, Ben Ode and Carol Diaz, 1 min.');
    // what is next: the items with a time said first, the rest counted; every line cites its moment
    expect(summary.overview).toContain(
      'Next: Ben Ode: Ben, can you send the revised pricing sheet to Carol by Friday?\nNext: Carol Diaz:',
    );
    expect(summary.overview).toContain('And 1 more action item.');
    expect(summary.overview_lines.map((l) => l.text).join('\n')).toBe(summary.overview);
    for (const l of summary.overview_lines) expect(review[l.index].start_time).toBe(l.start_time);
    expect(summary.outline).toHaveLength(1);
    expect(summary.outline[0]).toMatchObject({ start_time: 0, end_time: 46 });
    expect(summary.notes).toEqual({});
    expect(summary.source).toBe('extractive');
  });

  it('is deterministic', () => {
    expect(summarize(review, { meetingDate: '2026-10-14T10:00:00Z' })).toEqual(summary);
  });

  it('says why a field is empty', () => {
    const chat = summarize(
      transcript([
        ['Ada', 0, 2, 'Hi.'],
        ['Ben', 3, 4, 'Hello.'],
      ]),
    );
    expect(chat.action_items).toEqual([]);
    expect(chat.notes.action_items).toMatch(/no sentence made a commitment/);
    expect(chat.keywords).toEqual([]);
    expect(chat.notes.keywords).toBeTruthy();
    expect(chat.meeting_type).toBe('general');
    expect(chat.notes.meeting_type).toMatch(/general/);
  });

  it('fills notes for every field of an empty transcript', () => {
    const empty = summarize([]);
    expect(Object.keys(empty.notes).sort()).toEqual([
      'action_items',
      'keywords',
      'meeting_type',
      'outline',
      'overview',
      'short_summary',
      'topics_discussed',
    ]);
  });

  it('rejoins caption cues cut mid-sentence before reading them', () => {
    const cues = transcript([
      ['Ada', 0, 3, "Great. I'll let the board know about the"],
      ['Ada', 3, 6, 'mobile app at next week’s update.'],
    ]);
    const [item] = summarize(cues, { meetingDate: '2026-10-14' }).action_items;
    expect(item.text).toBe("I'll let the board know about the mobile app at next week’s update.");
    expect(item.due).toBe('next week');
    // cited at the stored cue the sentence starts in
    expect(item).toMatchObject({ index: 0, start_time: 0, moments: [{ index: 0, start_time: 0 }] });
  });
});

describe('findDuePhrase and resolveDue', () => {
  const wednesday = '2026-10-14T15:00:00Z';
  it.each([
    ['Send it by Friday.', 'Friday', '2026-10-16'],
    ['By EOD please.', 'end of day', '2026-10-14'],
    ['Let us meet next Monday morning.', 'next Monday morning', '2026-10-19'],
    ['I will do it this Friday.', 'this Friday', '2026-10-16'],
    ['Sometime next week.', 'next week', '2026-10-23'],
    ['By November 3rd.', 'November 3rd', '2026-11-03'],
    ['In two weeks.', 'in two weeks', '2026-10-28'],
    ['Tomorrow afternoon works.', 'tomorrow afternoon', '2026-10-15'],
    ['By the end of the month.', 'end of the month', '2026-10-31'],
    ['By the 20th.', 'the 20th', '2026-10-20'],
    ['Before January 5.', 'January 5', '2027-01-05'],
    ['By the end of the sprint.', 'end of the sprint', null],
    ['The branch is cut on Thursday, so merge by Wednesday evening.', 'Wednesday evening', '2026-10-21'],
  ])('%j → %j (%s)', (text, phrase, date) => {
    expect(findDuePhrase(text)).toBe(phrase);
    expect(resolveDue(phrase, wednesday)).toBe(date);
  });

  it('has no date without a meeting date or a time phrase', () => {
    expect(findDuePhrase('I will look into it.')).toBeNull();
    expect(resolveDue('Friday', undefined)).toBeNull();
  });
});

describe('spokenSentences', () => {
  it('joins a speaker’s cues and splits them at sentence ends, interpolating times', () => {
    const out = spokenSentences(
      transcript([
        ['Ada', 0, 10, 'Okay. I think we should ship the'],
        ['Ada', 10, 20, 'new flow at 3.5 percent first. Agreed?'],
        ['Ben', 21, 22, 'Yes'],
      ]),
    );
    expect(out.map((s) => [s.speaker_name, s.text])).toEqual([
      ['Ada', 'Okay.'],
      ['Ada', 'I think we should ship the new flow at 3.5 percent first.'],
      ['Ada', 'Agreed?'],
      ['Ben', 'Yes'],
    ]);
    expect(out[0].start_time).toBe(0);
    expect(out[1].start_time).toBeCloseTo(1.875, 3); // 6 of the cue's 32 characters into 10 s
    expect(out[1].end_time).toBeCloseTo(17.895, 3);
    expect(out[2].end_time).toBe(20);
    expect(out.map((s) => s.index)).toEqual([0, 1, 2, 3]);
  });
});

describe('action item owners', () => {
  const items = (rows: [string, number, number, string][]) =>
    summarize(transcript(rows), { meetingDate: '2026-10-14' }).action_items.map((a) => [a.assignee, a.text]);

  it('gives a commitment to the speaker even when they address someone', () => {
    expect(
      items([
        ['Ada Park', 0, 3, "Tom, I'll send you the deck tomorrow."],
        ['Tom Lee', 4, 5, 'Thanks!'],
      ]),
    ).toEqual([['Ada Park', "Tom, I'll send you the deck tomorrow."]]);
  });

  it('gives an unaddressed request to whoever answers, and ignores one that is not a task', () => {
    expect(
      items([
        ['Ada Park', 0, 3, 'Can you hear me?'],
        ['Tom Lee', 4, 5, 'Yes.'],
        ['Ada Park', 6, 9, 'Could you review the contract?'],
        ['Tom Lee', 10, 11, 'Sure.'],
      ]),
    ).toEqual([['Tom Lee', 'Could you review the contract?']]);
  });

  it('gives "X will…" to X', () => {
    expect(
      items([
        ['Ada Park', 0, 3, 'Tom will update the forecast by Monday.'],
        ['Tom Lee', 4, 5, 'Right.'],
      ]),
    ).toEqual([['Tom Lee', 'Tom will update the forecast by Monday.']]);
  });
});
