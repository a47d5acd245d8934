/**
 * Deadlines as people say them ("by Friday", "end of day", "next week", "by November 3") found in a
 * sentence, and turned into calendar dates relative to the meeting date. Conventions, where speech is
 * ambiguous: a bare weekday is its next occurrence after the meeting day; "next <weekday>" is that day
 * in the following Monday–Sunday week; "this week"/"end of week" is the week's Friday; "next week" is
 * the following week's Friday; "end of month" is the month's last day. "End of sprint" has no date.
 */

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_ABBR = 'jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const NUMBERS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  'a couple of': 2,
  'a few': 3,
};

const WD = `(?:${WEEKDAYS.join('|')})`;
const MONTH = `(?:${MONTHS.join('|')}|${MONTH_ABBR})\\.?`;
const PART = '(?:\\s+(?:morning|afternoon|evening|night))?';

// Longest alternatives first: the regex returns the first that matches at a position.
const DUE = new RegExp(
  [
    `\\b(?:end|middle|beginning|start) of (?:the )?(?:next (?:week|month)|${MONTH}|day|week|month|quarter|sprint)\\b`,
    `\\bmid-${MONTH}`,
    `\\bfirst (?:two |few )?weeks? of ${MONTH}`,
    `\\b(?:christmas|new year|noon|midday)\\b`,
    `\\b(?:eod|eow|cob)\\b`,
    `\\b(?:this|next) (?:${WD}|week|month|sprint|quarter)${PART}\\b`,
    `\\b${MONTH} \\d{1,2}(?:st|nd|rd|th)?\\b`,
    `\\bthe \\d{1,2}(?:st|nd|rd|th)\\b`,
    `\\bin (?:\\d+|a|one|two|three|four|five|six|seven|a couple of|a few) (?:days?|weeks?)\\b`,
    `\\b(?:later )?today\\b`,
    `\\btonight\\b`,
    `\\btomorrow${PART}\\b`,
    `\\b${WD}${PART}\\b`,
  ].join('|'),
  'i',
);

/** A deadline introduced by "by/before/until/no later than": a commitment even without "I will". */
const DEADLINE = new RegExp(`\\b(?:by|before|until|no later than|due)\\s+(?:the\\s+)?(?:${DUE.source})`, 'i');

/** The deadline in a sentence: the one after "by/before/until" when there is one ("cut on Thursday, so merge by Wednesday"). */
export function findDuePhrase(text: string): string | null {
  const deadline = DEADLINE.exec(text);
  const m = DUE.exec(deadline ? deadline[0] : text);
  if (!m) return null;
  return tidy(m[0]);
}

export function hasDeadline(text: string): boolean {
  return DEADLINE.test(text);
}

function tidy(phrase: string): string {
  const p = phrase.toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '');
  if (p === 'eod' || p === 'cob') return 'end of day';
  if (p === 'eow') return 'end of week';
  // Weekday and month names keep their capital letter: "Friday", "next Monday", "November 3".
  return p.replace(new RegExp(`\\b(${WD}|${MONTH})`, 'g'), (w) => w[0].toUpperCase() + w.slice(1));
}

const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

function monthIndex(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  return MONTHS.findIndex((m) => m.startsWith(w.slice(0, 3)));
}

/** Calendar date (YYYY-MM-DD) of a phrase from findDuePhrase, counted from the meeting's date; null when it names none. */
export function resolveDue(phrase: string, meetingDate: string | undefined): string | null {
  if (!meetingDate) return null;
  const parsed = Date.parse(meetingDate);
  if (!Number.isFinite(parsed)) return null;
  const d0 = Date.UTC(new Date(parsed).getUTCFullYear(), new Date(parsed).getUTCMonth(), new Date(parsed).getUTCDate());
  const dow = new Date(d0).getUTCDay();
  const mondayOffset = (dow + 6) % 7; // days since this week's Monday
  const thisMonday = d0 - mondayOffset * DAY;
  const p = phrase.toLowerCase();
  const year = new Date(d0).getUTCFullYear();
  const month = new Date(d0).getUTCMonth();

  if (/^(later )?today|^tonight|^(the )?end of (the )?day|^noon|^midday/.test(p)) return iso(d0);
  if (p === 'christmas') return iso(Date.UTC(month === 11 && d0 > Date.UTC(year, 11, 25) ? year + 1 : year, 11, 25));
  const ofMonth = new RegExp(`^(?:the )?(end|middle|mid)(?: of |-)(?:the )?(${MONTH})`).exec(p);
  if (ofMonth) {
    const m = monthIndex(ofMonth[2]);
    if (m >= 0) {
      const y = m < month ? year + 1 : year;
      return iso(ofMonth[1] === 'end' ? Date.UTC(y, m + 1, 0) : Date.UTC(y, m, 15));
    }
  }
  if (/^(the )?end of (the )?next week/.test(p)) return iso(thisMonday + 11 * DAY);
  if (/^(the )?end of (the )?next month/.test(p)) return iso(Date.UTC(year, month + 2, 0));
  if (p.startsWith('tomorrow')) return iso(d0 + DAY);
  if (/^(this week|(the )?end of (the )?week)/.test(p)) return iso(Math.max(d0, thisMonday + 4 * DAY));
  if (p.startsWith('next week')) return iso(thisMonday + 11 * DAY);
  if (/^(this|(the )?end of (the )?) ?month/.test(p)) return iso(Date.UTC(year, month + 1, 0));
  if (p.startsWith('next month')) return iso(Date.UTC(year, month + 2, 0));
  if (/^(the )?end of (the )?quarter|^this quarter/.test(p))
    return iso(Date.UTC(year, Math.floor(month / 3) * 3 + 3, 0));
  const inN = /^in (.+) (day|week)s?$/.exec(p);
  if (inN) {
    const n = /^\d+$/.test(inN[1]) ? Number(inN[1]) : NUMBERS[inN[1]];
    return n ? iso(d0 + n * (inN[2] === 'week' ? 7 : 1) * DAY) : null;
  }
  const weekday = new RegExp(`^(this |next )?(${WD})`).exec(p);
  if (weekday) {
    const target = WEEKDAYS.indexOf(weekday[2]);
    const targetOffset = (target + 6) % 7; // Monday = 0
    if (weekday[1] === 'next ') return iso(thisMonday + (7 + targetOffset) * DAY);
    if (weekday[1] === 'this ' && targetOffset >= mondayOffset) return iso(thisMonday + targetOffset * DAY);
    const ahead = (target - dow + 7) % 7 || 7;
    return iso(d0 + ahead * DAY);
  }
  const dated = new RegExp(`^(${MONTH}) (\\d{1,2})`).exec(p);
  if (dated) {
    const m = monthIndex(dated[1]);
    const day = Number(dated[2]);
    if (m < 0 || day < 1 || day > 31) return null;
    let t = Date.UTC(year, m, day);
    if (t < d0 - 30 * DAY) t = Date.UTC(year + 1, m, day); // "by January 5" said in November
    return iso(t);
  }
  const ordinal = /^the (\d{1,2})/.exec(p);
  if (ordinal) {
    const day = Number(ordinal[1]);
    if (day < 1 || day > 31) return null;
    const t = Date.UTC(year, month, day);
    return iso(t >= d0 ? t : Date.UTC(year, month + 1, day));
  }
  return null;
}
