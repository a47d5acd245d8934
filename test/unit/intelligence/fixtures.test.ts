import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../../services/intelligence/analytics';
import { parseCaptions } from '../../../services/intelligence/captions';
import { summarize } from '../../../services/intelligence/summarize';

/**
 * The fixture meetings are the demo data and the realistic test bed: every file must parse into the
 * speakers and timings it was written with, and the manifest must describe it truthfully.
 */
const dir = join(__dirname, '../../../services/cli/demo/meetings');
interface Entry {
  file: string;
  title: string;
  date: string;
  duration: number;
  organizer_email: string;
  participants: { name: string; email: string }[];
  speakers: Record<string, string>;
  privacy: string;
  channel: string | null;
  meeting_type: string;
  format: 'webvtt' | 'srt';
  speaker_labels: 'voice_tags' | 'name_prefix_every_cue' | 'name_prefix_on_change';
  cues: number;
}
const manifest: { meetings: Entry[] } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const team = JSON.parse(readFileSync(join(dir, 'team.json'), 'utf8'));
const read = (m: Entry) => readFileSync(join(dir, m.file));

/** Timing lines straight from the file, read without the parser under test. */
function timings(text: string): { start: number; end: number }[] {
  const seconds = (t: string) => {
    const [h, m, s] = t.replace(',', '.').split(':').map(Number);
    return h * 3600 + m * 60 + s;
  };
  return [...text.matchAll(/^(\d{2}:\d{2}:\d{2}[.,]\d{3}) --> (\d{2}:\d{2}:\d{2}[.,]\d{3})/gm)].map((m) => ({
    start: seconds(m[1]),
    end: seconds(m[2]),
  }));
}

describe('fixture manifest', () => {
  it('lists at least 22 meetings of every type, across October and November 2026, in the three formats', () => {
    const meetings = manifest.meetings;
    expect(meetings.length).toBeGreaterThanOrEqual(22);
    expect(new Set(meetings.map((m) => m.meeting_type))).toEqual(
      new Set(['standup', 'sales', 'interview', 'planning', 'one_on_one', 'retrospective', 'demo', 'general']),
    );
    expect(meetings.every((m) => /^2026-(10|11)-\d{2}T\d{2}:\d{2}:00Z$/.test(m.date))).toBe(true);
    const voice = meetings.filter((m) => m.speaker_labels === 'voice_tags').length;
    expect(voice).toBeGreaterThanOrEqual(meetings.length * 0.4);
    expect(meetings.some((m) => m.format === 'webvtt' && m.speaker_labels !== 'voice_tags')).toBe(true);
    expect(meetings.filter((m) => m.format === 'srt').length).toBeGreaterThanOrEqual(6);
  });

  it('uses only people, channels and privacy values the team and the schema know', () => {
    const known = new Map<string, string>(
      [...team.users, ...team.guests].map((p: { name: string; email: string }) => [p.email, p.name]),
    );
    const channels = new Set(team.channels.map((c: { title: string }) => c.title));
    for (const m of manifest.meetings) {
      for (const p of m.participants) expect(known.get(p.email)).toBe(p.name);
      const emails = m.participants.map((p) => p.email);
      expect(emails).toContain(m.organizer_email);
      for (const email of Object.values(m.speakers)) expect(emails).toContain(email);
      if (m.channel !== null) expect(channels).toContain(m.channel);
      expect(['link', 'owner', 'participants', 'teammatesandparticipants', 'teammates']).toContain(m.privacy);
    }
  });

  it('describes a team of eight at demo.example with one super admin, one admin, three groups and three channels', () => {
    expect(team.users).toHaveLength(8);
    expect(team.users.every((u: { email: string }) => u.email.endsWith('@demo.example'))).toBe(true);
    expect(
      team.users.filter((u: { role: string }) => u.role === 'super_admin').map((u: { email: string }) => u.email),
    ).toEqual(['ada@demo.example']);
    expect(
      team.users.filter((u: { role: string }) => u.role === 'admin').map((u: { email: string }) => u.email),
    ).toEqual(['grace@demo.example']);
    expect(team.groups).toHaveLength(3);
    expect(team.channels).toHaveLength(3);
    const emails = new Set(team.users.map((u: { email: string }) => u.email));
    for (const g of [...team.groups, ...team.channels]) {
      for (const member of g.members) expect(emails).toContain(typeof member === 'string' ? member : member.email);
    }
  });
});

describe.each(manifest.meetings.map((m) => [m.file, m] as const))('%s', (_file, m) => {
  const text = read(m).toString('utf8');
  const parsed = parseCaptions(read(m));
  const cues = timings(text);

  it('has 25 to 80 cues, as many as the manifest says', () => {
    expect(cues).toHaveLength(m.cues);
    expect(m.cues).toBeGreaterThanOrEqual(25);
    expect(m.cues).toBeLessThanOrEqual(80);
  });

  it('parses in its format with the speakers of the manifest, numbered in order of appearance', () => {
    expect(parsed.format).toBe(m.format === 'webvtt' ? 'vtt' : 'srt');
    const order: string[] = [];
    for (const s of parsed.sentences) if (!order.includes(s.speaker_name)) order.push(s.speaker_name);
    expect(new Set(order)).toEqual(new Set(Object.keys(m.speakers)));
    for (const s of parsed.sentences) expect(s.speaker_id).toBe(order.indexOf(s.speaker_name));
  });

  it('keeps the timestamps of the file and leaves no markup or speaker labels in the text', () => {
    // one sentence per cue, except cues that several voices share
    const shared = (text.match(/<\/v> <v /g) ?? []).length;
    expect(parsed.sentences).toHaveLength(cues.length + shared);
    expect(parsed.sentences[0].start_time).toBeCloseTo(cues[0].start, 3);
    expect(parsed.sentences[parsed.sentences.length - 1].end_time).toBeCloseTo(cues[cues.length - 1].end, 3);
    expect(parsed.duration_seconds).toBeCloseTo(cues[cues.length - 1].end, 3);
    expect(m.duration).toBeGreaterThanOrEqual(parsed.duration_seconds);
    const starts = new Set(cues.map((c) => c.start.toFixed(3)));
    for (const s of parsed.sentences) {
      expect(s.text).not.toMatch(/<|>|^\s|\s$/);
      expect(Object.keys(m.speakers).some((name) => s.text.startsWith(`${name}:`))).toBe(false);
      expect(s.end_time).toBeGreaterThan(s.start_time);
    }
    // every sentence starts where a cue starts, except the second voice of a shared cue
    expect(parsed.sentences.filter((s) => !starts.has(s.start_time.toFixed(3)))).toHaveLength(shared);
  });

  it('is classified as the meeting type in the manifest from its words alone', () => {
    const summary = summarize(parsed.sentences, { meetingDate: m.date, participants: m.participants });
    expect(summary.meeting_type).toBe(m.meeting_type);
  });
});

describe('analytics and summaries over the fixtures', () => {
  const all = manifest.meetings.map((m) => ({ m, sentences: parseCaptions(read(m)).sentences }));

  it('finds a monologue of 60 s or more in most meetings, and every speaker gets an email', () => {
    let withMonologue = 0;
    for (const { m, sentences } of all) {
      const { speakers } = analyze(sentences, { speakerEmails: m.speakers, hostEmail: m.organizer_email });
      for (const s of speakers) expect(s.email).toBe(m.speakers[s.name]);
      if (speakers.some((s) => s.monologues_count > 0 && s.longest_monologue >= 60)) withMonologue++;
    }
    expect(withMonologue).toBeGreaterThanOrEqual(10);
  });

  it('finds the action items of the Q4 roadmap planning with their owners and dates', () => {
    const { m, sentences } = all.find((x) => x.m.file.startsWith('2026-10-08-q4-roadmap-planning'))!;
    const items = summarize(sentences, { meetingDate: m.date, participants: m.participants }).action_items;
    const brief = items.map((i) => [i.assignee, i.due_date]);
    expect(brief).toEqual(
      expect.arrayContaining([
        ['Priya Raman', '2026-10-09'], // "I'll update the roadmap doc … by Friday"
        ['Grace Okafor', '2026-10-13'], // "Grace, can you break SSO … into milestones by next Tuesday?"
        ['Lena Fischer', '2026-10-12'], // "Lena, can you write the scope …?" "Sure, I'll write it up by Monday."
        ['Tom Becker', '2026-11-20'], // "I'll tell both customers we're targeting November 20"
      ]),
    );
    // Grace's "Yes, I'll have milestones by Tuesday" completes her item instead of adding one.
    expect(items.filter((i) => i.assignee === 'Grace Okafor')).toHaveLength(1);
  });
});
