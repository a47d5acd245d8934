import type { MeetingType } from '../../services/intelligence/summarize/types';
import type { Sentence } from '../../services/intelligence/types';

/**
 * Deterministic synthetic meetings for load tests, search benchmarks and demo data: the same seed gives
 * the same meetings on every machine. Meeting i depends only on (seed, i), so a stream of 10,000 and the
 * first 10 of it agree. Sentences are assembled from phrase banks per meeting type, with the things the
 * analytics look for: questions, filler words, commitments with owners and dates, and the odd monologue.
 */

export interface SyntheticUser {
  name: string;
  email: string;
}

export interface SyntheticMeeting {
  id: string;
  title: string;
  /** ISO 8601 date-time, UTC. */
  date: string;
  duration_seconds: number;
  meeting_type: Exclude<MeetingType, 'general'>;
  organizer_email: string;
  participants: SyntheticUser[];
  sentences: Sentence[];
}

export interface SyntheticOptions {
  count: number;
  sentencesPerMeeting: number;
  seed: number;
  /** The team; external guests (customers, candidates) are added for sales calls and interviews. */
  users: SyntheticUser[];
  /** First day (ISO date), default 2026-10-01; meetings spread over `days` weekdays from there. */
  from?: string;
  days?: number;
}

// Module-level aliases for the hot loops: global lookups are slow inside sandboxes such as jest's vm
// contexts (20x here), and the generator is meant to make millions of sentences.
const { imul, floor, round, ceil } = Math;

/** mulberry32: a tiny, fast PRNG with good enough spread for test data. Returns numbers in [0, 1). */
export function createPrng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes the run seed with the meeting number so each meeting has its own independent stream. */
function meetingSeed(seed: number, i: number): number {
  let h = imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ imul(i + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = imul(h, 0x7feb352d);
  return (h ^ (h >>> 15)) >>> 0;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[floor(r() * xs.length)];

const TYPES: SyntheticMeeting['meeting_type'][] = [
  'standup',
  'standup',
  'planning',
  'sales',
  'interview',
  'one_on_one',
  'retrospective',
  'demo',
];

const TOPICS: Record<SyntheticMeeting['meeting_type'], readonly string[]> = {
  standup: [
    'the payment retries',
    'the invoice export',
    'the login bug',
    'the search index',
    'the release branch',
    'the flaky tests',
    'the API docs',
    'the mobile build',
  ],
  planning: [
    'the Q1 roadmap',
    'the sprint scope',
    'the onboarding flow',
    'the pricing page',
    'the data migration',
    'the SSO integration',
    'the capacity plan',
    'the backlog',
  ],
  sales: [
    'the annual contract',
    'the per seat pricing',
    'the security review',
    'the pilot rollout',
    'the procurement process',
    'the renewal terms',
    'the integration with their ERP',
    'the discount',
  ],
  interview: [
    'your last project',
    'the role',
    'system design',
    'how you handle conflict',
    'your experience with Postgres',
    'on-call',
    'mentoring',
    'the team structure',
  ],
  one_on_one: [
    'your workload',
    'career growth',
    'the promotion packet',
    'feedback from the project',
    'time off',
    'your goals for next quarter',
    'the new team setup',
    'mentoring',
  ],
  retrospective: [
    'the release process',
    'code review turnaround',
    'the incident last week',
    'our estimates',
    'the handoff to support',
    'the test coverage',
    'standup length',
    'on-call load',
  ],
  demo: [
    'the new dashboard',
    'the reminder emails',
    'the bulk import',
    'the audit log',
    'the settings page',
    'the mobile app',
    'the search filters',
    'the export button',
  ],
};

const TITLES: Record<SyntheticMeeting['meeting_type'], readonly string[]> = {
  standup: ['Daily stand-up', 'Engineering stand-up', 'Platform team stand-up'],
  planning: ['Sprint {n} planning', 'Q{q} roadmap planning', 'Release planning'],
  sales: ['Discovery call with {company}', 'Pricing follow-up with {company}', '{company} renewal call'],
  interview: ['Interview: backend engineer', 'Interview: product designer', 'Interview: support lead'],
  one_on_one: ['1:1 {a} / {b}', 'One-on-one: {a} and {b}'],
  retrospective: ['Sprint {n} retrospective', 'Release retro', 'Incident retrospective'],
  demo: ['Demo: {feature}', 'Product demo', 'Sprint {n} demo'],
};

const COMPANIES = [
  'Northwind',
  'Contoso',
  'Fabrikam',
  'Tailspin',
  'Wingtip',
  'Litware',
  'Adventure Works',
  'Proseware',
];
const GUEST_FIRST = ['Rachel', 'David', 'Noor', 'Kenji', 'Olivia', 'Mateo', 'Amara', 'Lucas', 'Ines', 'Tariq'];
const GUEST_LAST = ['Kim', 'Mensah', 'Haddad', 'Ito', 'Brennan', 'Silva', 'Eze', 'Novak', 'Duarte', 'Rahman'];
const DAYS = ['Friday', 'Monday', 'tomorrow', 'next week', 'end of day', 'Thursday', 'the end of the sprint'];
const VERBS = ['send', 'update', 'review', 'write up', 'look into', 'fix', 'schedule', 'draft', 'check', 'share'];
const FILLERS = ['um, ', 'uh, ', 'you know, ', 'I mean, ', 'so, like, ', 'sort of ', 'kind of '];

const STATEMENTS = [
  'I spent most of yesterday on {topic} and it is mostly done.',
  'The main risk with {topic} is that we have not tested it with real customer data.',
  'We looked at {topic} again and the numbers are better than last month.',
  'I think {topic} is where most of the effort goes right now.',
  'Honestly {topic} took longer than I expected because of the review comments.',
  'From the customer side, {topic} is what they keep asking about.',
  'The good news is that {topic} is working in staging now.',
  'We had a problem with {topic} but the fix is small.',
  'I would keep {topic} simple for now and improve it later.',
  'There are about {num} open items left on {topic}.',
  'That makes sense to me.',
  'Yeah, I agree with that.',
  'Right, that is a fair point.',
  'Let me add one thing about {topic}.',
];
const QUESTIONS = [
  'What is the status of {topic}?',
  'Do we have a date for {topic}?',
  'Who owns {topic} at the moment?',
  'How long do you think {topic} will take?',
  'Is anything blocking {topic}?',
  'Can you walk me through {topic}?',
  'Does that work for everyone?',
];
const COMMITMENTS = [
  "I'll {verb} {topic} by {day}.",
  'I will {verb} {topic} before {day}.',
  '{person}, can you {verb} {topic} by {day}?',
  "Let's {verb} {topic} {day}.",
  'We need to {verb} {topic} by {day}.',
  'Action item for {person}: {verb} {topic}.',
];
/** Lines that sound like the type of meeting, so classifiers and search see realistic vocabulary. */
const TYPE_LINES: Record<SyntheticMeeting['meeting_type'], readonly string[]> = {
  standup: [
    'Yesterday I worked on {topic}, today I am picking up the review.',
    'No blockers for me.',
    'I am blocked on {topic} until the credentials arrive.',
  ],
  planning: [
    'For the roadmap I would prioritize {topic} over the rest.',
    'Our capacity this sprint is about {num} story points.',
    'Can we move {topic} out of scope for this quarter?',
  ],
  sales: [
    'What does your budget look like for {topic}?',
    'The pricing is per seat with a discount on the annual plan.',
    'Who else is involved in the decision on the contract?',
  ],
  interview: [
    'Tell me about {topic}.',
    'In my previous role I owned {topic} end to end.',
    'Do you have any questions for us about the role?',
  ],
  one_on_one: [
    'How are you feeling about {topic}?',
    'I want to talk about my career growth and {topic}.',
    'Your workload looks high, let us adjust it.',
  ],
  retrospective: [
    'What went well was {topic}.',
    'What did not go well was {topic}.',
    'We should keep doing the short reviews and stop doing late merges.',
  ],
  demo: [
    'Let me show you {topic}.',
    'You can see the new button on the right.',
    'When you click export the file downloads right away.',
  ],
};

const MONOLOGUE = [
  'So the background on {topic} is that we started it two quarters ago with a much smaller scope.',
  'At the time the plan was to ship a first version quickly and learn from the pilot customers.',
  'What we learned is that the edge cases matter a lot more than we thought, especially around imports.',
  'We rewrote the core part twice, and the second rewrite is what is running in production today.',
  'The remaining work is mostly polish, documentation and a migration for the older accounts.',
  'If we keep the current pace I expect us to finish it within the next two sprints.',
  'The one thing I would ask from everyone is to flag problems early instead of at the end.',
  'That is really the whole story, and I am happy to go deeper on any part of it.',
];

function fill(template: string, r: Rand, topic: string, others: string[]): string {
  return template
    .replace('{topic}', topic)
    .replace('{verb}', pick(r, VERBS))
    .replace('{day}', pick(r, DAYS))
    .replace('{person}', others.length ? pick(r, others).split(' ')[0] : 'someone')
    .replace('{num}', String(2 + floor(r() * 20)));
}

function countWords(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 32) n++;
  return n;
}

function capitalize(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function weekdayAfter(fromMs: number, offsetDays: number): number {
  let t = fromMs + offsetDays * 86_400_000;
  const dow = new Date(t).getUTCDay();
  if (dow === 6) t += 2 * 86_400_000;
  if (dow === 0) t += 86_400_000;
  return t;
}

function guest(r: Rand, domain: string): SyntheticUser {
  const first = pick(r, GUEST_FIRST);
  const last = pick(r, GUEST_LAST);
  return { name: `${first} ${last}`, email: `${first}.${last}@${domain}`.toLowerCase() };
}

function participantsFor(r: Rand, type: SyntheticMeeting['meeting_type'], users: SyntheticUser[]): SyntheticUser[] {
  const pool = [...users];
  const take = (n: number) => {
    const out: SyntheticUser[] = [];
    while (out.length < n && pool.length) out.push(pool.splice(floor(r() * pool.length), 1)[0]);
    return out;
  };
  switch (type) {
    case 'one_on_one':
      return take(2);
    case 'interview':
      return [...take(1 + floor(r() * 2)), guest(r, 'candidate.example')];
    case 'sales':
      return [
        ...take(1 + floor(r() * 2)),
        guest(r, 'customer.example'),
        ...(r() < 0.5 ? [guest(r, 'customer.example')] : []),
      ];
    default:
      return take(3 + floor(r() * 4));
  }
}

function titleFor(r: Rand, type: SyntheticMeeting['meeting_type'], people: SyntheticUser[]): string {
  return pick(r, TITLES[type])
    .replace('{n}', String(30 + floor(r() * 30)))
    .replace('{q}', String(1 + floor(r() * 4)))
    .replace('{company}', pick(r, COMPANIES))
    .replace('{feature}', pick(r, TOPICS.demo).replace(/^the /, ''))
    .replace('{a}', people[0].name.split(' ')[0])
    .replace('{b}', (people[1] ?? people[0]).name.split(' ')[0]);
}

function sentencesFor(
  r: Rand,
  type: SyntheticMeeting['meeting_type'],
  people: SyntheticUser[],
  count: number,
): Sentence[] {
  const names = people.map((p) => p.name);
  const topics = TOPICS[type];
  const sentences: Sentence[] = [];
  let t = 1 + r() * 3;
  let speaker = 0;
  let monologueLeft = 0;
  let monologueLine = 0;
  let topic = pick(r, topics);
  for (let i = 0; i < count; i++) {
    if (monologueLeft === 0) {
      // The organizer (first participant) speaks more; a turn passes to someone else most of the time.
      if (r() < 0.7 || names.length === 1) speaker = r() < 0.35 ? 0 : floor(r() * names.length);
      if (r() < 0.02 && count - i > 10) {
        monologueLeft = 8;
        monologueLine = 0;
      }
    }
    if (r() < 0.08) topic = pick(r, topics);
    const others = names.filter((_, k) => k !== speaker);
    let text: string;
    if (monologueLeft > 0) {
      text = MONOLOGUE[monologueLine++].replace('{topic}', topic);
      monologueLeft--;
    } else {
      const roll = r();
      const template =
        roll < 0.2
          ? pick(r, QUESTIONS)
          : roll < 0.28
            ? pick(r, COMMITMENTS)
            : roll < 0.4
              ? pick(r, TYPE_LINES[type])
              : pick(r, STATEMENTS);
      text = fill(template, r, topic, others);
      if (r() < 0.15)
        text = capitalize(pick(r, FILLERS) + (/^I\b/.test(text) ? text : text[0].toLowerCase() + text.slice(1)));
    }
    const duration = countWords(text) / (2.2 + r() * 0.8);
    const start = round(t * 1000) / 1000;
    const end = round((t + duration) * 1000) / 1000;
    sentences.push({
      index: i,
      speaker_name: names[speaker],
      speaker_id: speaker,
      text,
      raw_text: text,
      start_time: start,
      end_time: end,
    });
    t += duration + (monologueLeft > 0 ? 0.2 : 0.3 + r() * 1.5);
  }
  return renumberSpeakers(sentences);
}

/** Speaker ids in order of first appearance, as every transcript source numbers them. */
function renumberSpeakers(sentences: Sentence[]): Sentence[] {
  const ids = new Map<number, number>();
  for (const s of sentences) {
    let id = ids.get(s.speaker_id);
    if (id === undefined) ids.set(s.speaker_id, (id = ids.size));
    s.speaker_id = id;
  }
  return sentences;
}

function oneMeeting(options: SyntheticOptions, i: number, fromMs: number): SyntheticMeeting {
  const r = createPrng(meetingSeed(options.seed, i));
  const type = pick(r, TYPES);
  const people = participantsFor(r, type, options.users);
  const sentences = sentencesFor(r, type, people, options.sentencesPerMeeting);
  const days = options.days ?? 60;
  const day = weekdayAfter(fromMs, floor((i * days) / Math.max(1, options.count)));
  const start = day + (9 + floor(r() * 8)) * 3_600_000 + (r() < 0.5 ? 0 : 30) * 60_000;
  const last = sentences[sentences.length - 1];
  return {
    id: `syn-${options.seed}-${i}`,
    title: titleFor(r, type, people),
    date: new Date(start).toISOString(),
    duration_seconds: last ? ceil(last.end_time + 2) : 0,
    meeting_type: type,
    organizer_email: people[0].email,
    participants: people,
    sentences,
  };
}

export function* iterateSyntheticMeetings(options: SyntheticOptions): Generator<SyntheticMeeting> {
  if (options.users.length === 0) throw new Error('syntheticMeetings needs at least one user');
  const fromMs = Date.parse(`${options.from ?? '2026-10-01'}T00:00:00Z`);
  for (let i = 0; i < options.count; i++) yield oneMeeting(options, i, fromMs);
}

export function syntheticMeetings(options: SyntheticOptions): SyntheticMeeting[] {
  return [...iterateSyntheticMeetings(options)];
}

function vttTime(seconds: number): string {
  const ms = round(seconds * 1000);
  const h = floor(ms / 3_600_000);
  const m = floor((ms % 3_600_000) / 60_000);
  const s = floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

const escapeVtt = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The meeting as a WebVTT file with `<v Speaker>` voice tags, one cue per sentence. */
export function toWebVtt(meeting: Pick<SyntheticMeeting, 'title' | 'sentences'>): string {
  const cues = meeting.sentences.map(
    (s, i) =>
      `${i + 1}\n${vttTime(s.start_time)} --> ${vttTime(s.end_time)}\n<v ${s.speaker_name}>${escapeVtt(s.text)}</v>`,
  );
  return `WEBVTT - ${meeting.title.replace(/\n|-->/g, ' ')}\n\n${cues.join('\n\n')}\n`;
}
