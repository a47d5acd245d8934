/**
 * Who speaks in a recording's chunks: whether this worker diarizes, the bounds an upload sets on the
 * number of speakers, one chunk's turns and voice embeddings, and the first chunk's speakers as
 * reference clips for a speech server that takes known speakers; the chunks' speakers linked into
 * the recording's, and named by the team's voiceprints.
 */
import { readFile, rm } from 'node:fs/promises';
import { loadChunk, loadChunks, type ChunkVoices } from '../../services/core/ingest';
import { recogniseMeetingVoices, storedRecognition, type InferredSpeaker } from '../../services/core/voiceprints';
import {
  DIARIZATION_SAMPLE_RATE,
  diarizeInThread,
  linkSpeakers,
  MAX_SPEAKERS,
  SPEAKER_LINK_THRESHOLD,
  type KnownVoice,
  withDiarizationSlot,
} from '../../services/intelligence/diarization';
import { asrEngine, speakerName, type AsrSegment } from '../../services/intelligence/asr';
import type { Sentence } from '../../services/intelligence/types';
import { cutWav, readPcm } from '../../services/intelligence/media';
import type { ChunkInput } from './types';
import { ActivityDeps, stageOf, workflowRun } from './context';

/** OpenAI takes up to 4 known speakers, each a clip of 2 to 10 seconds. */
const KNOWN_SPEAKERS_MAX = 4;
const REFERENCE_MIN_SECONDS = 2;
const REFERENCE_MAX_SECONDS = 10;

/**
 * The speakers of the first chunk as known_speaker_names / known_speaker_references: for each label,
 * a clip of its longest segment (2 to 10 s) cut from the staged audio, as a WAV data URL.
 */
export async function speakerReferences(
  deps: ActivityDeps,
  first: { meetingId: string; plan: string; channel: number; index: number },
  audioPath: string,
  stage: ReturnType<typeof stageOf>,
  signal: AbortSignal | undefined,
): Promise<{ name: string; reference: string }[] | undefined> {
  const segments = await loadChunk(deps.db, first);
  if (!segments) return undefined;
  const longest = new Map<string, AsrSegment>();
  for (const s of segments) {
    if (!s.speaker) continue;
    const best = longest.get(s.speaker);
    if (!best || s.end - s.start > best.end - best.start) longest.set(s.speaker, s);
  }
  const out: { name: string; reference: string }[] = [];
  for (const [name, s] of [...longest.entries()].slice(0, KNOWN_SPEAKERS_MAX)) {
    const tmp = await stage.tempPath(`speaker-${out.length}`);
    try {
      const length = Math.min(REFERENCE_MAX_SECONDS, Math.max(REFERENCE_MIN_SECONDS, s.end - s.start));
      // The first chunk starts at 0 of the channel's audio, so its seconds are the audio's.
      await cutWav(audioPath, tmp, Math.max(0, s.start), length, signal);
      out.push({ name, reference: `data:audio/wav;base64,${(await readFile(tmp)).toString('base64')}` });
    } finally {
      await rm(tmp, { force: true });
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Whether this worker diarizes one-channel chunks (DIARIZATION): auto and own do, except that auto
 * leaves a server that answers speakers (diarized_json) to it; off never does.
 */
export function diarizes(deps: ActivityDeps): boolean {
  const { asr } = deps.config;
  if (asr.diarization === 'off') return false;
  return asrEngine(deps.config) === 'embedded' || asr.responseFormat !== 'diarized_json' || asr.diarization === 'own';
}

/**
 * What the upload says of the number of speakers: speaker_count is exact for a recording in one chunk
 * and an upper bound per chunk otherwise (a chunk may hear fewer people); the attendee list bounds the
 * estimate.
 */
export function speakerBounds(
  options: { speaker_count?: number; attendees?: unknown[] } | undefined,
  single: boolean,
): { speakerCount?: number; maxSpeakers?: number } {
  const count = options?.speaker_count;
  if (count !== undefined) return single ? { speakerCount: count } : { maxSpeakers: count };
  const attendees = options?.attendees?.length ?? 0;
  return attendees > 0 ? { maxSpeakers: Math.min(attendees, MAX_SPEAKERS) } : {};
}

/** The most speakers the whole recording may have (speaker_count, else the attendee count). */
export function speakerLimit(options: { speaker_count?: number; attendees?: unknown[] } | undefined): number {
  return options?.speaker_count ?? (options?.attendees?.length || Infinity);
}

/** Who speaks when in one chunk (seconds from the chunk's start), and each local speaker's voice embedding. */
export async function diarizeChunk(
  audio: { path: string; durationSeconds: number },
  chunk: ChunkInput['chunk'],
  bounds: { speakerCount?: number; maxSpeakers?: number },
) {
  const { turns, voices } = await withDiarizationSlot(async () =>
    diarizeInThread(
      {
        samples: await readPcm(audio.path, chunk.start, Math.min(chunk.end, audio.durationSeconds)),
        sampleRate: DIARIZATION_SAMPLE_RATE,
      },
      bounds,
    ),
  );
  const stored: ChunkVoices = {};
  // Four decimals keep the vectors small in the row and change no cosine the linking compares.
  for (const [speaker, v] of voices) stored[String(speaker)] = v.map((x) => Math.round(x * 1e4) / 1e4);
  return { turns, voices: stored };
}

export type StoredRow = Awaited<ReturnType<typeof loadChunks>>[number];

/**
 * Our speakers for a one-channel recording's chunks, in place of the segments' own: each chunk's local
 * speakers linked to the voices of the chunks before it, one label per voice ("Speaker 1", …); a
 * segment diarization gave no speaker takes the one before it. Undefined (keep the segments' labels)
 * when a chunk was not diarized, or the server answered speakers and DIARIZATION is not `own`.
 */
export function linkedSegments(
  deps: ActivityDeps,
  rows: StoredRow[],
  limit: number,
): { segments: Map<StoredRow, AsrSegment[]>; known: KnownVoice[] } | undefined {
  if (rows.length === 0 || rows.some((r) => !r.voices)) return undefined;
  if (deps.config.asr.diarization !== 'own' && rows.some((r) => r.segments.some((s) => s.speaker))) return undefined;
  let known: KnownVoice[] = [];
  const out = new Map<StoredRow, AsrSegment[]>();
  let previous = '0';
  for (const row of [...rows].sort((a, b) => a.index - b.index)) {
    const local = new Map(Object.entries(row.voices!).map(([k, v]) => [Number(k), v]));
    const linked = linkSpeakers(known, local, SPEAKER_LINK_THRESHOLD, limit);
    known = linked.known;
    out.set(
      row,
      row.segments.map((s) => {
        const global = s.voice !== undefined ? linked.mapping.get(s.voice) : undefined;
        if (global !== undefined) previous = String(global);
        return { start: s.start, end: s.end, text: s.text, speaker: previous };
      }),
    );
  }
  return { segments: out, known };
}

/**
 * How a stitch names speakers by voice: `recognise` is the run's stitch, which matches the voices (once
 * per run: a retried attempt gets the same decision); `reapply` is a later step of the run stitching the
 * chunks again (a worker without the staged sentences), which gives the names that decision gave and
 * matches, stores and audits nothing, so its sentences carry what meeting_info.inferred_speakers says
 * whatever changed since (a profile forgotten, voiceprints turned off).
 */
export type VoiceNaming = 'recognise' | 'reapply';

/**
 * The recording's speakers by voiceprint (core/voiceprints, only for a team that turned them on): each
 * linked voice (its label as the transcript will have it, its mean embedding) is kept and matched to the
 * team's profiles, and the sentences of a matched speaker take the profile's name here, before analytics,
 * summary and everything after them read the sentences.
 */
export async function nameByVoice(
  deps: ActivityDeps,
  meetingId: string,
  sentences: Sentence[],
  known: KnownVoice[],
  naming: VoiceNaming,
): Promise<{ sentences: Sentence[]; inferred: InferredSpeaker[] }> {
  const heard = new Set(sentences.map((s) => s.speaker_name));
  const voices = known
    .map((k) => ({ speaker: speakerName(String(k.speaker)), embedding: k.sum }))
    .filter((v) => heard.has(v.speaker));
  const inferred =
    naming === 'recognise'
      ? await recogniseMeetingVoices(deps.db, meetingId, voices, workflowRun())
      : await storedRecognition(deps.db, meetingId);
  if (inferred.length === 0) return { sentences, inferred };
  const names = new Map(inferred.map((x) => [x.label, x.speaker]));
  return {
    sentences: sentences.map((s) =>
      names.has(s.speaker_name) ? { ...s, speaker_name: names.get(s.speaker_name)! } : s,
    ),
    inferred,
  };
}
