/**
 * A test set for voiceprints: recordings whose voices are known, so that every pair of speaker
 * embeddings is either "the same voice saying other words" or "another voice". Real speech as far as
 * registry packages carry it, and espeak-ng voices:
 *
 * - pyannote's telephone call (sample.wav, two people, turns in sample.rttm) cut in two halves at a
 *   pause, so each person speaks in both halves with other words;
 * - the LibriVox reader of pocketsphinx-testdata (five utterances of one chapter, one reader): two of
 *   them placed over pink noise in an mp3, the other three in an mp4 (AAC), as two uploads would be;
 * - two more voices of pocketsphinx-testdata that the package does not name, each in two recordings:
 *   the `cards` utterances, and the spoken commands (goforward, numbers, something, tidigits/dhd).
 *   Each is taken as one person (`presumed`): the files of a group are alike and unlike every other
 *   voice here, but nothing documents who spoke them;
 * - espeak-ng conversations of four voices (test/support/conversations.ts), one recording per seed.
 *
 * A voice's embedding is computed as production does (`diarized`: diarize the recording, then
 * `speakerEmbeddings` of each speaker found; `chunked`: the same per chunk, speakers linked across
 * chunks) or from the reference turns (`reference`), where diarization is not the point.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DIARIZATION_THRESHOLD,
  diarize,
  linkSpeakers,
  readWave,
  speakerEmbeddings,
  type Audio,
  type KnownVoice,
  type SpeakerTurn,
} from '../../services/intelligence/diarization';
import { cosineSimilarity } from '../../services/intelligence/voiceprints';
import { espeakConversation } from './conversations';
import { parseRttm, type Turn } from './der';
import { LIBRIVOX_DIR, PYANNOTE_DIR, librivox, placedRecording, wavSamples } from './speech';

const RATE = 16000;
const POCKETSPHINX_DIR = join(LIBRIVOX_DIR, '..');
/** pyannote's sample is cut here: a pause where neither person speaks. */
const PYANNOTE_CUT = 18;

export type VoiceSource = 'real' | 'espeak';

export interface VoiceRecording {
  name: string;
  audio: Audio;
  /** Reference turns, each speaker named by its voice (the same name in every recording). */
  turns: Turn[];
  source: VoiceSource;
  /** Whether the voices' identity is documented with the data or presumed (see above). */
  presumed: boolean;
  /** The speaker count an upload of it would give, when diarization cannot estimate it (see below). */
  speakerCount?: number;
  /**
   * `reference`: its voices are embedded from the reference turns even when the others are diarized,
   * because diarization cannot separate them (see below); that is the diarization tests' concern.
   */
  embedFrom?: 'reference';
}

export interface VoiceSample {
  recording: string;
  voice: string;
  source: VoiceSource;
  presumed: boolean;
  embedding: Float32Array;
}

/** 16-bit little-endian headerless samples at 16 kHz. */
function rawSamples(path: string): Float32Array {
  const b = readFileSync(path);
  const ints = new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
  return Float32Array.from(ints, (x) => x / 32768);
}

/** Clips one after the other, half a second of silence before each and after the last. */
function spliced(name: string, voice: string, clips: Float32Array[]): VoiceRecording {
  const gap = RATE / 2;
  const samples = new Float32Array(clips.reduce((n, c) => n + c.length + gap, gap));
  const turns: Turn[] = [];
  let at = gap;
  for (const c of clips) {
    samples.set(c, at);
    turns.push({ start: at / RATE, end: (at + c.length) / RATE, speaker: voice });
    at += c.length + gap;
  }
  return { name, audio: { samples, sampleRate: RATE }, turns, source: 'real', presumed: true };
}

function pyannoteHalves(): VoiceRecording[] {
  const audio = readWave(join(PYANNOTE_DIR, 'sample.wav'));
  const reference = parseRttm(readFileSync(join(PYANNOTE_DIR, 'sample.rttm'), 'utf8'));
  const end = audio.samples.length / audio.sampleRate;
  return [
    ['pyannote call, first half', 0, PYANNOTE_CUT],
    ['pyannote call, second half', PYANNOTE_CUT, end],
  ].map(([name, from, to]) => {
    const [a, b] = [from as number, to as number];
    if (reference.some((t) => t.start < a && t.end > a))
      throw new Error(`the cut at ${a} s falls inside a turn of sample.rttm`);
    return {
      name: name as string,
      audio: { samples: audio.samples.slice(a * RATE, b * RATE), sampleRate: RATE },
      turns: reference
        .filter((t) => t.start >= a && t.start < b)
        .map((t) => ({ start: t.start - a, end: Math.min(t.end, b) - a, speaker: `pyannote ${t.speaker}` })),
      source: 'real' as const,
      presumed: false,
      // Half a call (12 to 18 s) is too short for diarization with side-by-side 10-s windows to tell
      // these two voices apart, even told there are two: it mixes them. Their voices are embedded from
      // the reference turns, so the pairs still test the voices, not the diarization.
      speakerCount: 2,
      embedFrom: 'reference' as const,
    };
  });
}

/** LibriVox utterances placed over quiet noise and encoded (`placedRecording`), as an upload would be. */
function librivoxRecording(name: string, ids: string[], enc: 'mp3' | 'mp4'): VoiceRecording {
  const durations = new Map(librivox().map((u) => [u.id, wavSamples(u.path).length / RATE]));
  let at = 1;
  const parts = ids.map((id) => {
    const full = [...durations.keys()].find((k) => k.endsWith(id))!;
    const part = { id, at, seconds: durations.get(full)! };
    at += part.seconds + 0.8;
    return part;
  });
  const placed = placedRecording(
    parts.map(({ id, at: t }) => ({ id, at: t })),
    Math.ceil(at + 1),
    enc,
  );
  return {
    name,
    audio: { samples: wavSamples(placed.path), sampleRate: RATE },
    turns: parts.map((p) => ({ start: p.at, end: p.at + p.seconds, speaker: 'librivox reader' })),
    source: 'real',
    presumed: false,
  };
}

/** Every real recording of the test set (pyannote's halves, LibriVox, the two unnamed voices). */
export function realRecordings(): VoiceRecording[] {
  if (!existsSync(join(PYANNOTE_DIR, 'sample.rttm')))
    throw new Error(`${PYANNOTE_DIR} is missing: run \`make models\``);
  if (!existsSync(join(POCKETSPHINX_DIR, 'cards')))
    throw new Error(`${POCKETSPHINX_DIR} is missing: install the Debian package \`pocketsphinx-testdata\``);
  const cards = (ids: string[]) => ids.map((id) => wavSamples(join(POCKETSPHINX_DIR, 'cards', `${id}.wav`)));
  const commands = (paths: string[]) => paths.map((p) => rawSamples(join(POCKETSPHINX_DIR, p)));
  return [
    ...pyannoteHalves(),
    librivoxRecording('librivox 0870, 0880 (mp3)', ['0870', '0880'], 'mp3'),
    librivoxRecording('librivox 0890, 0920, 0930 (mp4)', ['0890', '0920', '0930'], 'mp4'),
    spliced('cards 001-003', 'cards speaker', cards(['001', '002', '003'])),
    spliced('cards 004-005', 'cards speaker', cards(['004', '005'])),
    spliced('commands goforward, numbers', 'commands speaker', commands(['goforward.raw', 'numbers.raw'])),
    spliced(
      'commands something, dhd',
      'commands speaker',
      commands(['something.raw', join('tidigits', 'dhd.2934z.raw')]),
    ),
  ];
}

/** An espeak-ng conversation of `speakers` voices; the voices are named `espeak alex`, `espeak bea`, … */
export function espeakRecording(speakers: number, seed: number, turnCount?: number): VoiceRecording {
  const c = espeakConversation(speakers, seed, turnCount);
  return {
    name: `espeak ${speakers} voices, seed ${seed}`,
    audio: readWave(c.wav),
    turns: c.turns.map((t) => ({ ...t, speaker: `espeak ${t.speaker}` })),
    source: 'espeak',
    presumed: false,
  };
}

/** Seconds two turn lists of one speaker each overlap. */
function shared(a: readonly { start: number; end: number }[], b: readonly { start: number; end: number }[]): number {
  let s = 0;
  for (const x of a) for (const y of b) s += Math.max(0, Math.min(x.end, y.end) - Math.max(x.start, y.start));
  return s;
}

/** A diarized speaker is taken for a voice when at least this share of its speech is that voice's. */
const PURE = 0.8;

/** How a voice's embedding is computed (see recordingVoices). */
export type EmbeddingWay = 'reference' | 'diarized' | 'chunked';

/**
 * Where to cut a recording into `chunks` pieces: in the pause (between the reference's turns) nearest
 * each equal share, so no turn is cut in two.
 */
function chunkCuts(recording: VoiceRecording, chunks: number): number[] {
  const end = recording.audio.samples.length / RATE;
  const turns = [...recording.turns].sort((a, b) => a.start - b.start);
  const pauses: number[] = [];
  let spoken = 0;
  for (const [i, t] of turns.entries()) {
    spoken = Math.max(spoken, t.end);
    const next = turns[i + 1];
    if (next && next.start > spoken) pauses.push((spoken + next.start) / 2);
  }
  const cuts = [0];
  for (let k = 1; k < chunks; k++) {
    const share = (end * k) / chunks;
    const near = pauses.reduce((a, b) => (Math.abs(b - share) < Math.abs(a - share) ? b : a), Infinity);
    if (near > cuts[cuts.length - 1]) cuts.push(near);
  }
  return [...cuts, end];
}

/**
 * Each voice of a recording diarized in chunks, as the worker does for a long recording: every chunk is
 * diarized and its speakers embedded on their own, then linked across chunks (linkSpeakers, within the
 * clustering threshold); a linked speaker's voice is the mean of its chunk embeddings.
 */
function chunkedVoices(
  recording: VoiceRecording,
  chunks: number,
): Map<number, { turns: SpeakerTurn[]; embedding: Float32Array }> {
  const cuts = chunkCuts(recording, chunks);
  let known: KnownVoice[] = [];
  const all: SpeakerTurn[] = [];
  for (let c = 0; c + 1 < cuts.length; c++) {
    const chunk = {
      samples: recording.audio.samples.slice(Math.round(cuts[c] * RATE), Math.round(cuts[c + 1] * RATE)),
      sampleRate: RATE,
    };
    const turns = diarize(chunk, { speakerCount: recording.speakerCount });
    const linked = linkSpeakers(known, speakerEmbeddings(chunk, turns), DIARIZATION_THRESHOLD);
    known = linked.known;
    for (const t of turns)
      all.push({ start: t.start + cuts[c], end: t.end + cuts[c], speaker: linked.mapping.get(t.speaker)! });
  }
  return new Map(
    known.map((k) => [
      k.speaker,
      { turns: all.filter((t) => t.speaker === k.speaker), embedding: Float32Array.from(k.sum) },
    ]),
  );
}

/**
 * One embedding per voice of the recording: per reference speaker (`reference`); per speaker that
 * diarization finds (`diarized`); or per speaker of the recording diarized in `chunks` pieces and
 * linked across them (`chunked`, the mean of its chunk embeddings). A diarized speaker is named after
 * the reference voice that says at least PURE of its speech (a voice split in two by diarization gives
 * two samples). A speaker that mixes voices is named `mixed`: its embedding is no one's voice, so it is
 * left out of the pairs (a diarization error, which the diarization error rate measures).
 */
export function recordingVoices(recording: VoiceRecording, how: EmbeddingWay, chunks = 3): VoiceSample[] {
  const names = [...new Set(recording.turns.map((t) => t.speaker))];
  const sample = (voice: string, embedding: Float32Array): VoiceSample => ({
    recording: recording.name,
    voice,
    source: recording.source,
    presumed: recording.presumed,
    embedding,
  });
  if (how === 'reference' || recording.embedFrom === 'reference') {
    const turns = recording.turns.map((t) => ({ start: t.start, end: t.end, speaker: names.indexOf(t.speaker) }));
    return [...speakerEmbeddings(recording.audio, turns)].map(([i, e]) => sample(names[i], e));
  }
  let speakers: Map<number, { turns: SpeakerTurn[]; embedding: Float32Array }>;
  if (how === 'chunked') speakers = chunkedVoices(recording, chunks);
  else {
    const turns = diarize(recording.audio, { speakerCount: recording.speakerCount });
    speakers = new Map(
      [...speakerEmbeddings(recording.audio, turns)].map(([speaker, embedding]) => [
        speaker,
        { turns: turns.filter((t) => t.speaker === speaker), embedding },
      ]),
    );
  }
  const out: VoiceSample[] = [];
  for (const { turns, embedding } of speakers.values()) {
    const seconds = names.map((voice) =>
      shared(
        turns,
        recording.turns.filter((t) => t.speaker === voice),
      ),
    );
    const total = seconds.reduce((a, b) => a + b, 0);
    const best = seconds.indexOf(Math.max(...seconds));
    if (total > 0) out.push(sample(seconds[best] >= PURE * total ? names[best] : MIXED, embedding));
  }
  return out;
}

/** The voice of a diarized speaker that mixes voices. */
export const MIXED = 'mixed';

export interface VoicePair {
  a: VoiceSample;
  b: VoiceSample;
  similarity: number;
}

/**
 * Every pair of samples of one voice from two recordings (the same voice saying other words), and every
 * pair of different voices, within a recording too; mixed speakers are left out.
 */
export function voicePairs(samples: readonly VoiceSample[]): { same: VoicePair[]; different: VoicePair[] } {
  const same: VoicePair[] = [];
  const different: VoicePair[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const [a, b] = [samples[i], samples[j]];
      if (a.voice === MIXED || b.voice === MIXED) continue;
      const pair = { a, b, similarity: cosineSimilarity(a.embedding, b.embedding) };
      if (a.voice !== b.voice) different.push(pair);
      else if (a.recording !== b.recording) same.push(pair);
    }
  }
  return { same, different };
}
