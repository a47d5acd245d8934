/**
 * A team's speaker profiles: one per person named in a meeting while voiceprints were on, holding the
 * voices enrolled in it. Any member of the team lists them (name, email, how many voices and meetings,
 * never the embedding); a team admin merges two profiles of one person or forgets one, which deletes its
 * embedding and every meeting voice enrolled in or matched to it. Audited.
 */
import type { Knex } from 'knex';
import { requireVoiceprintAdmin, type Principal } from '../access';
import { audit } from '../audit';
import { invalid, notFound } from '../../platform/errors';
import { mergeProfiles } from '../../intelligence/voiceprints';

/** Profiles per page of the list, default and most. */
export const PROFILES_LIMIT = { default: 50, max: 200 } as const;
/** The longest profile id, in characters. */
export const PROFILE_ID_MAX = 64;

export interface SpeakerProfile {
  id: string;
  name: string;
  email: string | null;
  /** Voices enrolled: speakers a person gave this name. */
  voices: number;
  /** Meetings with a speaker enrolled in or matched to this profile. */
  meetings: number;
  created_at: string;
  updated_at: string;
}

export interface SpeakerProfileList {
  voiceprints_enabled: boolean;
  profiles: SpeakerProfile[];
  /** Profiles of the team, all pages. */
  total: number;
  /** Where the next page starts; null on the last page. */
  next_offset: number | null;
}

export interface ListProfilesInput {
  limit?: number;
  offset?: number;
}

function wholeNumber(field: string, v: unknown, min: number, max: number, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalid(
      field,
      `a whole number from ${min} to ${max}`,
      `${field} must be a whole number from ${min} to ${max}; got ${String(v)}`,
    );
  return v;
}

function profileId(field: string, raw: unknown): string {
  const v = typeof raw === 'string' ? raw.trim() : '';
  if (!v)
    throw invalid(field, 'must not be empty', `${field} must be a speaker profile id (svc_list_speaker_profiles)`);
  if ([...v].length > PROFILE_ID_MAX)
    throw invalid(
      field,
      `at most ${PROFILE_ID_MAX} characters`,
      `${field} must be at most ${PROFILE_ID_MAX} characters long`,
    );
  return v;
}

const iso = (v: Date | string) => new Date(v).toISOString();

/** A team's profiles as answers show them. The embedding column is never selected: nothing here can leak it. */
function profileQuery(db: Knex, teamId: string) {
  return db('speaker_profiles as sp')
    .where('sp.team_id', teamId)
    .select(
      'sp.id',
      'sp.name',
      'sp.email',
      'sp.voices',
      'sp.created_at',
      'sp.updated_at',
      db.raw(
        '(select count(distinct mv.meeting_id) from meeting_voices mv where mv.profile_id = sp.id)::int as meetings',
      ),
    );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const profileOf = (r: any): SpeakerProfile => ({
  id: r.id,
  name: r.name,
  email: r.email ?? null,
  voices: r.voices,
  meetings: r.meetings,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** The caller's team's speaker profiles, by name: any member of the team. */
export async function listSpeakerProfiles(
  db: Knex,
  p: Principal,
  input: ListProfilesInput = {},
): Promise<SpeakerProfileList> {
  const limit = wholeNumber('limit', input.limit, 1, PROFILES_LIMIT.max, PROFILES_LIMIT.default);
  const offset = wholeNumber('offset', input.offset, 0, 1_000_000, 0);
  const team = await db('teams').where({ id: p.teamId }).first('voiceprints_enabled');
  const [{ n }] = await db('speaker_profiles').where({ team_id: p.teamId }).count({ n: '*' });
  const rows = await profileQuery(db, p.teamId).orderByRaw('lower(sp.name), sp.id').limit(limit).offset(offset);
  const total = Number(n);
  return {
    voiceprints_enabled: team?.voiceprints_enabled === true,
    profiles: rows.map(profileOf),
    total,
    next_offset: offset + rows.length < total ? offset + rows.length : null,
  };
}

interface ProfileRow {
  id: string;
  name: string;
  email: string | null;
  voices: number;
  embedding: number[];
}

async function lockProfile(trx: Knex.Transaction, p: Principal, id: string): Promise<ProfileRow> {
  const row = await trx('speaker_profiles')
    .where({ id, team_id: p.teamId })
    .forUpdate()
    .first('id', 'name', 'email', 'voices', 'embedding');
  // Another team's profile reads as missing: its name is not the caller's to know.
  if (!row) throw notFound('speaker profile', id);
  return row;
}

export interface MergedProfiles {
  success: true;
  profile: SpeakerProfile;
  /** The id and name of the profile merged away. */
  merged: { id: string; name: string };
}

/**
 * Merge profile `from` into `into` (the same person enrolled under two names): `into` keeps its name,
 * takes every voice and meeting of `from` (and its email where it had none), and `from` is deleted.
 * Team admins.
 */
export async function mergeSpeakerProfiles(
  db: Knex,
  p: Principal,
  input: { from: string; into: string },
): Promise<MergedProfiles> {
  requireVoiceprintAdmin(p, 'Merging speaker profiles');
  const from = profileId('from', input.from);
  const into = profileId('into', input.into);
  if (from === into) throw invalid('into', 'a profile other than from', 'into must be a profile other than from');
  const mergedAway = await db.transaction(async (trx) => {
    // Locked in id order, so two merges of the same pair never wait on each other.
    const [a, b] = from < into ? [from, into] : [into, from];
    const first = await lockProfile(trx, p, a);
    const second = await lockProfile(trx, p, b);
    const src = first.id === from ? first : second;
    const dst = first.id === into ? first : second;
    await trx('meeting_voices').where({ profile_id: src.id }).update({ profile_id: dst.id });
    await trx('speaker_profiles')
      .where({ id: dst.id })
      .update({
        embedding: mergeProfiles(dst.embedding, src.embedding),
        voices: dst.voices + src.voices,
        email: dst.email ?? src.email,
        updated_at: trx.fn.now(),
      });
    await trx('speaker_profiles').where({ id: src.id }).delete();
    await audit(
      trx,
      p,
      'speaker_profile.merged',
      { type: 'speaker_profile', id: dst.id, teamId: p.teamId },
      { from: src.id, from_name: src.name, into_name: dst.name, voices: dst.voices + src.voices },
    );
    return { id: src.id, name: src.name };
  });
  const profile = profileOf(await profileQuery(db, p.teamId).where('sp.id', into).first());
  return { success: true, profile, merged: mergedAway };
}

export interface ForgottenProfile {
  success: true;
  id: string;
  name: string;
  /** Meeting voices deleted with it (enrolled in or matched to the profile). */
  voices_deleted: number;
}

/**
 * Forget a profile: its embedding and every meeting voice enrolled in or matched to it are deleted, so
 * the person is not recognised again until named again. Names already in transcripts stay. Team admins.
 */
export async function forgetSpeakerProfile(db: Knex, p: Principal, id: unknown): Promise<ForgottenProfile> {
  requireVoiceprintAdmin(p, 'Forgetting a speaker profile');
  const profile = profileId('id', id);
  return db.transaction(async (trx) => {
    const row = await lockProfile(trx, p, profile);
    const voices = await trx('meeting_voices').where({ profile_id: row.id }).delete();
    await trx('speaker_profiles').where({ id: row.id }).delete();
    await audit(
      trx,
      p,
      'speaker_profile.forgotten',
      { type: 'speaker_profile', id: row.id, teamId: p.teamId },
      { name: row.name, voices_enrolled: row.voices, voices_deleted: voices },
    );
    return { success: true as const, id: row.id, name: row.name, voices_deleted: voices };
  });
}
