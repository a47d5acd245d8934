/**
 * Test data through plain inserts: teams, users with API keys, meetings with participants, sentences,
 * summaries, shares and channels. Ingestion has its own tests; these build the states tools read.
 */
import type { Knex } from 'knex';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import type { Principal, Role, Tier } from '../../services/core/access';

export interface TestUser {
  id: string;
  teamId: string;
  email: string;
  name: string;
  role: Role;
  key: string;
  principal: Principal;
}

export async function makeTeam(db: Knex, opts: { tier?: Tier; flags?: string[]; name?: string } = {}) {
  const team = {
    id: newId(),
    name: opts.name ?? 'Team',
    tier: opts.tier ?? 'enterprise',
    feature_flags: opts.flags ?? ['search', 'fetch'],
  };
  await db('teams').insert(team);
  return team;
}

export async function makeUser(
  db: Knex,
  team: { id: string; tier: string; feature_flags: string[] },
  opts: { role?: Role; email?: string; name?: string } = {},
): Promise<TestUser> {
  const id = newId();
  const email = (opts.email ?? `${id.toLowerCase()}@example.test`).toLowerCase();
  const name = opts.name ?? email.split('@')[0];
  const role = opts.role ?? 'member';
  await db('users').insert({ id, team_id: team.id, email, name, role });
  const { key } = await createApiKey(db, { email });
  return {
    id,
    teamId: team.id,
    email,
    name,
    role,
    key,
    principal: { userId: id, teamId: team.id, email, name, role, tier: team.tier as Tier, flags: team.feature_flags },
  };
}

export interface MeetingSpec {
  organizer: TestUser;
  title?: string;
  date?: string | Date;
  privacy?: string;
  channelId?: string | null;
  participants?: { email: string; name?: string }[];
  sentences?: { speaker: string; text: string; start: number; end: number }[];
  /** The meeting's language, as given with an upload (its words are indexed as that language). */
  language?: string;
  summary?: Partial<Record<'overview' | 'short_summary' | 'meeting_type', string>> & {
    keywords?: string[];
    action_items?: unknown[];
  };
  status?: string;
  isLive?: boolean;
  liveState?: 'active' | 'paused';
}

export async function makeMeeting(db: Knex, spec: MeetingSpec) {
  const id = newId();
  const sentences = spec.sentences ?? [
    { speaker: spec.organizer.name, text: 'Welcome everyone, let us review the roadmap.', start: 0, end: 4 },
    { speaker: 'Guest', text: 'Sounds good. What is the budget?', start: 4.5, end: 7 },
  ];
  const duration = sentences.length ? sentences[sentences.length - 1].end : 0;
  await db('meetings').insert({
    id,
    team_id: spec.organizer.teamId,
    organizer_id: spec.organizer.id,
    organizer_email: spec.organizer.email,
    uploader_id: spec.organizer.id,
    title: spec.title ?? 'Roadmap review',
    date: spec.date ? new Date(spec.date) : new Date('2026-11-02T15:00:00Z'),
    duration_seconds: duration,
    privacy: spec.privacy ?? 'teammatesandparticipants',
    channel_id: spec.channelId ?? null,
    status: spec.status ?? (spec.isLive ? 'live' : 'completed'),
    is_live: spec.isLive ?? false,
    live_state: spec.liveState ?? null,
    ...(spec.language ? { language: spec.language, language_source: 'given' } : {}),
  });
  const participants = [{ email: spec.organizer.email, name: spec.organizer.name }, ...(spec.participants ?? [])];
  await db('meeting_participants')
    .insert(participants.map((p) => ({ meeting_id: id, email: p.email.toLowerCase(), name: p.name ?? null })))
    .onConflict(['meeting_id', 'email'])
    .ignore();
  if (sentences.length) {
    const speakers = [...new Set(sentences.map((s) => s.speaker))];
    await db('sentences').insert(
      sentences.map((s, i) => ({
        meeting_id: id,
        idx: i,
        speaker_name: s.speaker,
        speaker_id: speakers.indexOf(s.speaker),
        text: s.text,
        raw_text: s.text,
        start_time: s.start,
        end_time: s.end,
      })),
    );
  }
  if (spec.summary !== undefined) {
    await db('summaries').insert({
      meeting_id: id,
      keywords: JSON.stringify(spec.summary.keywords ?? ['roadmap']),
      action_items: JSON.stringify(spec.summary.action_items ?? []),
      overview: spec.summary.overview ?? 'The team reviewed the roadmap.',
      short_summary: spec.summary.short_summary ?? 'Roadmap review.',
      meeting_type: spec.summary.meeting_type ?? 'planning',
    });
  }
  return { id };
}

export async function makeChannel(db: Knex, teamId: string, title: string, members: TestUser[], isPrivate = false) {
  const id = newId();
  await db('channels').insert({ id, team_id: teamId, title, is_private: isPrivate });
  if (members.length) await db('channel_members').insert(members.map((m) => ({ channel_id: id, user_id: m.id })));
  return { id };
}

export async function shareMeeting(
  db: Knex,
  meetingId: string,
  email: string,
  opts: { expiresAt?: Date; revoked?: boolean } = {},
) {
  await db('meeting_shares').insert({
    id: newId(),
    meeting_id: meetingId,
    email: email.toLowerCase(),
    expires_at: opts.expiresAt ?? null,
    revoked_at: opts.revoked ? new Date() : null,
  });
}
