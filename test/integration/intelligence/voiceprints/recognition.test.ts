/**
 * Voiceprints on real voices, with the committed models and no database: each recording of the test set
 * (test/support/voices.ts: pyannote's call cut in halves, the LibriVox reader in an mp3 and an mp4, two
 * more real voices, espeak-ng conversations of seeds the threshold was not tuned on) is diarized and
 * its speakers embedded as the worker does; a team's profiles are enrolled from the first recording of
 * each voice and matched against the other recordings with VOICEPRINT_THRESHOLD.
 */
import {
  VOICEPRINT_THRESHOLD,
  enrolVoice,
  matchVoices,
  type VoiceProfile,
} from '../../../../services/intelligence/voiceprints';
import {
  MIXED,
  espeakRecording,
  realRecordings,
  recordingVoices,
  voicePairs,
  type VoiceRecording,
  type VoiceSample,
} from '../../../support/voices';

jest.setTimeout(600_000);

/** Not the seeds scripts/models/tune-voiceprints.ts measured the threshold on. */
const TEST_SEEDS = [11, 12];

let recordings: VoiceRecording[];
let samples: VoiceSample[];
/** The second espeak-ng conversation diarized in chunks, as the worker does a long recording. */
let chunked: VoiceSample[];
/** Each voice → the recording its profile is enrolled from (the first that has it). */
const enrolledFrom = new Map<string, string>();
let profiles: VoiceProfile[];

beforeAll(() => {
  recordings = [...realRecordings(), ...TEST_SEEDS.map((seed) => espeakRecording(4, seed))];
  samples = recordings.flatMap((r) => recordingVoices(r, 'diarized'));
  chunked = recordingVoices(recordings[recordings.length - 1], 'chunked', 3);
  // Recordings come in twos (test/support/voices.ts): a team enrols each voice from its first recording.
  for (const r of recordings)
    for (const voice of new Set(r.turns.map((t) => t.speaker)))
      if (!enrolledFrom.has(voice)) enrolledFrom.set(voice, r.name);
  const team = new Map<string, number[]>();
  for (const s of samples) {
    if (s.voice === MIXED || enrolledFrom.get(s.voice) !== s.recording) continue;
    team.set(s.voice, enrolVoice(team.get(s.voice) ?? null, Array.from(s.embedding)));
  }
  profiles = [...team].map(([id, embedding]) => ({ id, embedding }));
});

const describePair = (a: VoiceSample, b: VoiceSample) => `${a.voice} (${a.recording}) / ${b.voice} (${b.recording})`;

/**
 * A later recording's speakers matched against the team's profiles: every name given is the speaker's
 * own voice, every voice of the recording is named, and a voice whose profile is missing (one person of
 * the call enrolled, the other not) gets no one else's name.
 */
function expectRecognised(r: VoiceRecording, voices: VoiceSample[]): void {
  const own = new Map(voices.map((s, i) => [`Speaker ${i + 1}`, s]));
  const asMeeting = (keep: (s: VoiceSample) => boolean) =>
    [...own].filter(([, s]) => keep(s)).map(([speaker, s]) => ({ speaker, embedding: Array.from(s.embedding) }));
  const matches = matchVoices(
    asMeeting(() => true),
    profiles,
  );
  const named = matches.map((m) => [own.get(m.speaker)!.voice, m.profileId]);
  expect({ recording: r.name, wrong: named.filter(([voice, id]) => voice !== id) }).toEqual({
    recording: r.name,
    wrong: [],
  });
  expect([...new Set(named.map(([, id]) => id))].sort()).toEqual([...new Set(r.turns.map((t) => t.speaker))].sort());
  for (const m of matches) expect(m.confidence).toBeGreaterThanOrEqual(Math.round(VOICEPRINT_THRESHOLD * 100) / 100);

  for (const voice of new Set(r.turns.map((t) => t.speaker))) {
    const others = matchVoices(
      asMeeting((s) => s.voice === voice),
      profiles.filter((p) => p.id !== voice),
    );
    expect({ recording: r.name, voice, named: others.map((m) => m.profileId) }).toEqual({
      recording: r.name,
      voice,
      named: [],
    });
  }
}

describe('voiceprint recognition', () => {
  it('names a voice enrolled from one recording in another saying other words, and an unenrolled voice not', () => {
    expect(profiles.map((p) => p.id).sort()).toEqual([...enrolledFrom.keys()].sort());
    const later = recordings.filter((r) => r.turns.some((t) => enrolledFrom.get(t.speaker) !== r.name));
    expect(later.length).toBeGreaterThanOrEqual(5);
    for (const r of later)
      expectRecognised(
        r,
        samples.filter((s) => s.recording === r.name),
      );
  });

  it('names the voices of a recording diarized in chunks, each the mean of its chunk embeddings', () => {
    const r = recordings[recordings.length - 1];
    expect(chunked.filter((s) => s.voice !== MIXED).length).toBeGreaterThanOrEqual(4);
    expectRecognised(r, chunked);
  });

  it('gives no voice the name of another across every pair of the test set, and every voice its own', () => {
    const { same, different } = voicePairs([...samples, ...chunked]);
    const real = (s: VoiceSample) => s.source === 'real';
    // Enough pairs to mean something: real voices against each other, against espeak-ng, espeak-ng alone.
    expect(different.filter((p) => real(p.a) && real(p.b)).length).toBeGreaterThanOrEqual(40);
    expect(different.filter((p) => real(p.a) !== real(p.b)).length).toBeGreaterThanOrEqual(80);
    expect(different.filter((p) => !real(p.a) && !real(p.b)).length).toBeGreaterThanOrEqual(20);
    expect(same.filter((p) => real(p.a)).length).toBeGreaterThanOrEqual(6);

    const asMatch = (voice: VoiceSample, profile: VoiceSample) =>
      matchVoices(
        [{ speaker: 'Speaker 1', embedding: Array.from(voice.embedding) }],
        [{ id: profile.voice, embedding: enrolVoice(null, Array.from(profile.embedding)) }],
      );
    const falseNames = different
      .flatMap(({ a, b }) => [
        [a, b],
        [b, a],
      ])
      .filter(([voice, profile]) => asMatch(voice, profile).length > 0)
      .map(([voice, profile]) => describePair(voice, profile));
    expect(falseNames).toEqual([]);
    const missed = same.filter(({ a, b }) => asMatch(a, b).length === 0).map(({ a, b }) => describePair(a, b));
    expect(missed).toEqual([]);
  });
});
