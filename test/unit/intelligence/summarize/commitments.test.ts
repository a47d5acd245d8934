/**
 * One action item per commitment, by hand-written exchanges: a request or an offer and its acceptance
 * by another speaker are one item, owned by the one who commits, citing both moments; a request
 * nobody took up stays the asker's request of the person asked; two different commitments of the same
 * two people stay two; a request turned down is no item of the one who declined.
 */
import { summarize, type ActionItem } from '../../../../services/intelligence/summarize';
import { transcript } from '../transcript';

type Row = [string, number, number, string];

/** Rows five seconds apart, one sentence each. */
const rows = (lines: [string, string][]): Row[] => lines.map(([who, text], i) => [who, i * 5, i * 5 + 4, text]);

const itemsOf = (lines: [string, string][]): ActionItem[] =>
  summarize(transcript(rows(lines)), { meetingDate: '2026-10-14' }).action_items; // a Wednesday

const brief = (a: ActionItem) => ({
  assignee: a.assignee,
  kind: a.kind,
  index: a.index,
  moments: a.moments.map((m) => m.index),
});

describe('a request and its acceptance', () => {
  it('are one item, owned by the one who accepts, citing both moments', () => {
    const items = itemsOf([
      ['Ada Park', 'Could you send the deck to Northwind?'],
      ['Tom Lee', "Sure, I'll send it tomorrow."],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Tom Lee', kind: 'request', index: 0, moments: [0, 1] }]);
    expect(items[0]).toMatchObject({ due: 'tomorrow', due_date: '2026-10-15', start_time: 0 });
    expect(items[0].moments[1]).toEqual({ index: 1, start_time: 5 });
  });

  it('cites each of the several a request was put to who says yes', () => {
    const items = itemsOf([
      ['Priya Raman', 'Could you both look at the import spec by Friday and leave comments?'],
      ['Grace Okafor', 'Yes.'],
      ['Miguel Santos', "Sure, I'll read it tomorrow."],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Grace Okafor', kind: 'request', index: 0, moments: [0, 1, 2] }]);
    expect(items[0].due).toBe('Friday');
  });

  it('is told apart from a request nobody took up: one moment, the person asked', () => {
    const items = itemsOf([
      ['Ada Park', 'Tom, could you send the deck to Northwind by Friday?'],
      ['Tom Lee', 'The demo went well yesterday, by the way.'],
      ['Ada Park', 'Good to hear.'],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Tom Lee', kind: 'request', index: 0, moments: [0] }]);
  });
});

describe('an offer and its acceptance', () => {
  it('are one item, owned by the one who offered, citing both moments', () => {
    const items = itemsOf([
      ['Ada Park', 'I can send you the security documents by Friday.'],
      ['Tom Lee', 'Yes please, that would help.'],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Ada Park', kind: 'offer', index: 0, moments: [0, 1] }]);
  });

  it('belong to the one who takes it up when they commit to their part of it', () => {
    // "I'm happy to join a call with your CFO" / "That would help" … "I'll set up the call with our CFO"
    const call = itemsOf([
      ['Ada Park', "I'm happy to join a call with your CFO if that would help."],
      ['Rachel Kim', 'That would actually help a lot.'],
      ['Tom Becker', 'Great. So, next steps.'],
      ['Tom Becker', "I'll send a revised quote by Monday."],
      ['Rachel Kim', "And I'll set up the call with our CFO."],
    ]);
    expect(call.map(brief)).toEqual([
      { assignee: 'Rachel Kim', kind: 'offer', index: 0, moments: [0, 1, 4] },
      { assignee: 'Tom Becker', kind: 'commitment', index: 3, moments: [3] },
    ]);
    // "I can do one this week" / "Great, I'll add you to Thursday's"
    const rotation = itemsOf([
      ['Grace Okafor', 'Miguel, are you back in the interview rotation?'],
      ['Miguel Santos', 'Yes, since November, I can do one this week.'],
      ['Grace Okafor', "Great, I'll add you to Thursday's."],
    ]);
    expect(rotation.map(brief)).toEqual([{ assignee: 'Grace Okafor', kind: 'offer', index: 1, moments: [1, 2] }]);
    // the deadline of the one who does it
    expect(rotation[0].due).toBe('Thursday');
  });
});

describe('two different commitments of the same two people', () => {
  it('stay two items after an offer', () => {
    const items = itemsOf([
      ['Ada Park', 'I can review the pull request today.'],
      ['Tom Lee', "Great, I'll update the changelog tomorrow."],
    ]);
    expect(items.map(brief)).toEqual([
      { assignee: 'Ada Park', kind: 'offer', index: 0, moments: [0] },
      { assignee: 'Tom Lee', kind: 'commitment', index: 1, moments: [1] },
    ]);
  });

  it('stay apart from an accepted request', () => {
    const items = itemsOf([
      ['Ada Park', 'Tom, could you send the deck to Northwind?'],
      ['Tom Lee', "Sure, I'll send it tomorrow."],
      ['Tom Lee', "I'll also book the venue for the offsite by Friday."],
      ['Ada Park', "Great, and I'll draft the agenda for the offsite."],
    ]);
    expect(items.map(brief)).toEqual([
      { assignee: 'Tom Lee', kind: 'request', index: 0, moments: [0, 1] },
      { assignee: 'Tom Lee', kind: 'commitment', index: 2, moments: [2] },
      { assignee: 'Ada Park', kind: 'commitment', index: 3, moments: [3] },
    ]);
  });
});

describe('a request turned down', () => {
  it('is no item for the one who declined', () => {
    expect(
      itemsOf([
        ['Ada Park', 'Grace, could you review the spec by Friday?'],
        ['Grace Okafor', "I can't this week, sorry."],
        ['Ada Park', 'No worries.'],
      ]),
    ).toEqual([]);
    expect(
      itemsOf([
        ['Ada Park', 'Could you review the spec by Friday?'],
        ['Grace Okafor', "Sorry, I'm out until Monday."],
      ]),
    ).toEqual([]);
  });

  it('belongs to whoever else takes it on', () => {
    const items = itemsOf([
      ['Ada Park', 'Grace, could you review the spec by Friday?'],
      ['Grace Okafor', "I can't this week."],
      ['Ben Ode', 'I can take it.'],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Ben Ode', kind: 'request', index: 0, moments: [0, 2] }]);
    expect(items[0].due).toBe('Friday');
  });
});

describe('other moments of one commitment', () => {
  it('takes a hand-off as a moment of the owner’s item', () => {
    const items = itemsOf([
      ['Tom Becker', "So the contract: I'll send the final contract for signature tomorrow. Is Rachel the signer?"],
      ['Rachel Kim', "No, the CFO signs. Send it to me and I'll route it."],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Tom Becker', kind: 'commitment', index: 0, moments: [0, 1] }]);
  });

  it('takes the step a plan for the group needs on its day as the plan’s moment', () => {
    const items = itemsOf([
      ['Tom Becker', "Let's meet again in two weeks to look at early numbers."],
      ['Tom Becker', "I'll send an invite for October 28."],
    ]);
    expect(items.map(brief)).toEqual([{ assignee: 'Tom Becker', kind: 'commitment', index: 0, moments: [0, 1] }]);
    // a different day is a different step
    expect(
      itemsOf([
        ['Tom Becker', "Let's meet again in two weeks to look at early numbers."],
        ['Tom Becker', "I'll send the report on Friday."],
      ]),
    ).toHaveLength(2);
  });
});
