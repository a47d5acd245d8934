/**
 * Meeting voices, kept only while the meeting's team has voiceprints on:
 *   - recognised when a diarized recording's transcript is stitched: one row per speaker (its mean
 *     voice), matched against the team's profiles; a matched speaker takes the profile's name before
 *     anything downstream (analytics, summary, search, pages, action items) is made from the sentences;
 *   - enrolled when a person names a speaker (core/meetings renameSpeaker, in its transaction): the
 *     voice joins the team's profile of that name, made if there is none.
 * Matching and enrolment are audited. A meeting deleted takes its voices with it (ON DELETE CASCADE).
 *
 * A run decides its names once. What its recognition decided is kept on the meeting
 * (meetings.voiceprint_names, no embedding in it): a retried stitch of the same run takes that decision
 * as it is, and a step that re-stitches the run's chunks re-applies it (storedRecognition) instead of
 * matching again, so the names its sentences carry, the names meeting_info lists and the audit rows
 * are those of one decision, whatever changed in between (a profile forgotten or merged, voiceprints
 * turned off). A new run of the meeting decides afresh.
 */
import type { Knex } from 'knex';
import { audit } from '../audit';
import { newId } from '../input';
import type { Principal } from '../access';
import { enrolVoice, matchVoices, unitVector, type MeetingVoice } from '../../intelligence/voiceprints';
import { voiceprintsEnabled } from './settings';

export interface InferredSpeaker {
  /** The name the speaker was given (the profile's). */
  speaker: string;
  /** The label diarization gave it ("Speaker 2"). */
  label: string;
  email: string | null;
  /** Cosine similarity of the voice and the profile, two decimals. */
  confidence: number;
}

/** What a run's recognition decided, as meetings.voiceprint_names keeps it. */
interface RunNames {
  /** The workflow run whose stitch decided; null outside a run. */
  run: string | null;
  speakers: InferredSpeaker[];
}

/**
 * Store a meeting's speaker voices and name the speakers that match a profile of its team; nothing (and
 * any earlier attempt's rows removed) when the team has voiceprints off. The decision is kept on the
 * meeting with `run`: called again for the same run (a retried stitch), it answers that decision and
 * changes nothing, so each match is stored and audited once per run. Another run, or none given,
 * decides afresh and replaces what an earlier one stored.
 */
export async function recogniseMeetingVoices(
  db: Knex,
  meetingId: string,
  voices: readonly MeetingVoice[],
  run: string | null = null,
): Promise<InferredSpeaker[]> {
  return db.transaction(async (trx) => {
    // Locked, so two attempts of one run's stitch decide one after the other and the second takes the first's.
    const m = await trx('meetings').where({ id: meetingId }).forUpdate().first('team_id', 'voiceprint_names');
    if (!m) return [];
    const decided = m.voiceprint_names as RunNames | null;
    if (run !== null && decided?.run === run) return decided.speakers;
    const inferred = await recognise(trx, meetingId, m.team_id, voices);
    await trx('meetings')
      .where({ id: meetingId })
      .update({ voiceprint_names: JSON.stringify({ run, speakers: inferred } satisfies RunNames) });
    return inferred;
  });
}

/**
 * The names the meeting's last recognition gave (label → name), to give them again where a run's
 * sentences are stitched again: nothing is matched, stored or audited. Empty when the run named no one
 * or never ran recognition.
 */
export async function storedRecognition(db: Knex, meetingId: string): Promise<InferredSpeaker[]> {
  const m = await db('meetings').where({ id: meetingId }).first('voiceprint_names');
  return (m?.voiceprint_names as RunNames | null)?.speakers ?? [];
}

/** Match a meeting's voices to its team's profiles: its voices replaced, each match stored and audited. */
async function recognise(
  trx: Knex.Transaction,
  meetingId: string,
  teamId: string,
  voices: readonly MeetingVoice[],
): Promise<InferredSpeaker[]> {
  // The team's switch is locked before the voices, in the order setVoiceprints takes them.
  const enabled = await voiceprintsEnabled(trx, teamId);
  await trx('meeting_voices').where({ meeting_id: meetingId }).delete();
  if (voices.length === 0 || !enabled) return [];
  const profiles: { id: string; name: string; email: string | null; embedding: number[] }[] = await trx(
    'speaker_profiles',
  )
    .where({ team_id: teamId })
    .select('id', 'name', 'email', 'embedding');
  const byId = new Map(profiles.map((x) => [x.id, x]));
  const labels = new Set(voices.map((v) => v.speaker.toLowerCase()));
  // A profile whose name is another speaker's label in this meeting ("Speaker 3") would merge two speakers.
  const matches = matchVoices(voices, profiles).filter(
    (x) => !labels.has(byId.get(x.profileId)!.name.toLowerCase()) || byId.get(x.profileId)!.name === x.speaker,
  );
  const bySpeaker = new Map(matches.map((x) => [x.speaker, x]));
  await trx('meeting_voices').insert(
    voices.map((v) => {
      const hit = bySpeaker.get(v.speaker);
      return {
        meeting_id: meetingId,
        team_id: teamId,
        speaker: hit ? byId.get(hit.profileId)!.name : v.speaker,
        embedding: unitVector('embedding', v.embedding),
        profile_id: hit?.profileId ?? null,
        inferred: hit !== undefined,
        confidence: hit?.confidence ?? null,
      };
    }),
  );
  const inferred: InferredSpeaker[] = [];
  for (const x of matches) {
    const profile = byId.get(x.profileId)!;
    inferred.push({ speaker: profile.name, label: x.speaker, email: profile.email, confidence: x.confidence });
    await audit(
      trx,
      null,
      'speaker_profile.matched',
      { type: 'speaker_profile', id: profile.id, teamId },
      { meeting_id: meetingId, speaker: x.speaker, name: profile.name, confidence: x.confidence },
    );
  }
  return inferred;
}

export interface Enrolment {
  profile_id: string;
  /** Voices in the profile now. */
  voices: number;
}

/**
 * A speaker named by a person (renameSpeaker, in its transaction, after the meeting is locked): when
 * the team has voiceprints on and the meeting kept the speaker's voice, the voice takes the new name and
 * joins the team's profile of that name (made if there is none; an email given is kept on it). A voice
 * a person had already enrolled under another name leaves that profile first, so a correction does not
 * leave the voice under both names. Null (nothing changes) otherwise.
 */
export async function enrolSpeaker(
  trx: Knex.Transaction,
  p: Principal,
  input: { meetingId: string; teamId: string; from: string; to: string; email: string | null },
): Promise<Enrolment | null> {
  if (!(await voiceprintsEnabled(trx, input.teamId))) return null;
  const row = await trx('meeting_voices')
    .where({ meeting_id: input.meetingId, speaker: input.from })
    .forUpdate()
    .first('embedding', 'profile_id', 'inferred');
  if (!row) return null;
  const voice: number[] = row.embedding;
  const target = await trx('speaker_profiles')
    .where({ team_id: input.teamId })
    .whereRaw('lower(name) = lower(?)', [input.to])
    .forUpdate()
    .first('id', 'embedding', 'voices', 'email');
  const already = row.profile_id !== null && !row.inferred;
  if (already && row.profile_id !== target?.id) {
    // Enrolled under the old name: take the voice out of that profile (its sum less the voice's unit vector).
    const old = await trx('speaker_profiles').where({ id: row.profile_id }).forUpdate().first('embedding', 'voices');
    if (old && old.voices <= 1) await trx('speaker_profiles').where({ id: row.profile_id }).delete();
    else if (old) {
      const u = unitVector('embedding', voice);
      await trx('speaker_profiles')
        .where({ id: row.profile_id })
        .update({
          embedding: (old.embedding as number[]).map((x, i) => x - u[i]),
          voices: old.voices - 1,
          updated_at: trx.fn.now(),
        });
    }
  }
  let profileId: string;
  let voices: number;
  if (target && already && row.profile_id === target.id) {
    // The same person renamed (a new spelling, an email): the voice is in the profile already.
    profileId = target.id;
    voices = target.voices;
    await trx('speaker_profiles')
      .where({ id: target.id })
      .update({ email: input.email ?? target.email, updated_at: trx.fn.now() });
  } else if (target) {
    profileId = target.id;
    voices = target.voices + 1;
    await trx('speaker_profiles')
      .where({ id: target.id })
      .update({
        embedding: enrolVoice(target.embedding, voice),
        voices,
        email: input.email ?? target.email,
        updated_at: trx.fn.now(),
      });
  } else {
    profileId = newId();
    voices = 1;
    await trx('speaker_profiles').insert({
      id: profileId,
      team_id: input.teamId,
      name: input.to,
      email: input.email,
      embedding: enrolVoice(null, voice),
      voices,
    });
  }
  await trx('meeting_voices')
    .where({ meeting_id: input.meetingId, speaker: input.from })
    .update({ speaker: input.to, profile_id: profileId, inferred: false, confidence: null });
  await audit(
    trx,
    p,
    'speaker_profile.enrolled',
    { type: 'speaker_profile', id: profileId, teamId: input.teamId },
    { meeting_id: input.meetingId, speaker: input.to, previous_speaker: input.from, voices },
  );
  return { profile_id: profileId, voices };
}

/** The emails of a meeting's speakers named after a profile that has one: speaker name → email. */
export async function profileEmails(db: Knex, meetingId: string): Promise<Record<string, string>> {
  const rows: { speaker: string; email: string }[] = await db('meeting_voices as mv')
    .join('speaker_profiles as sp', 'sp.id', 'mv.profile_id')
    .where('mv.meeting_id', meetingId)
    .whereNotNull('sp.email')
    .select('mv.speaker', 'sp.email');
  return Object.fromEntries(rows.map((r) => [r.speaker, r.email]));
}
