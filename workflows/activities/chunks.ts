/**
 * Chunked transcription of audio and video (the path of runs started since the `chunked-transcription`
 * patch of workflows/transcription.ts):
 *
 * - prepareAudio: ffmpeg extracts the first audio stream as 16 kHz mono WAV (all channels mixed, or each
 *   channel on its own when the upload or ASR_SPLIT_CHANNELS asks), finding its silences in the same
 *   pass, and plans the chunks (ASR_CHUNK_MAX_BYTES, ASR_CHUNK_MAX_SECONDS, cut at silences). The plan
 *   is small and goes through history; the audio stays in the stage.
 * - transcribeChunk: one chunk of the staged audio, decoded by the embedded engine (read straight from
 *   the WAV) or cut out and sent to ASR_URL; on TEMPORAL_SPEECH_TASK_QUEUE. Its segments are stored
 *   in transcript_chunks as they arrive, so a chunk already done is never sent again (a retried
 *   activity, a worker killed mid-way). The workflow runs ASR_CHUNK_CONCURRENCY of them at once.
 *   A one-channel recording's chunk is also diarized (a worker thread, beside the speech engine): each
 *   segment is stored with the chunk-local speaker it overlaps most, and each local speaker's voice
 *   embedding with the chunk, so a resumed run never diarizes a chunk already done.
 * - stitchTranscript: the chunks back on the recording's timeline (services/intelligence/asr/chunks.ts),
 *   channels interleaved by time, staged as the run's sentences; diarized chunks' speakers linked into
 *   one label per voice across chunks (linkSpeakers). For a team with voiceprints on, each linked voice
 *   is kept and matched to the team's speaker profiles, and a matched speaker takes its profile's name
 *   in the sentences before anything is made from them (core/voiceprints). The run decides its names
 *   once: a later step that stitches the chunks again gives the names the stitch gave (reapply).
 *
 * A step on a worker without the stage re-derives the audio (download, extract) exactly as before:
 * the same file and settings give the same plan. Every temporary file is removed whatever happens.
 */
import { openAsBlob } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import {
  countChunks,
  loadChunk,
  loadChunks,
  loadIngestMeeting,
  saveChunk,
  setProgress,
  chargeMinutes,
} from '../../services/core/ingest';
import type { InferredSpeaker } from '../../services/core/voiceprints';
import { assignSpeakers, type KnownVoice } from '../../services/intelligence/diarization';
import {
  asrEngine,
  engineFor,
  modelFor,
  speechModelsFor,
  planChunks,
  requestTranscription,
  selectAsr,
  unservedLanguage,
  stitchChunks,
  toSentences,
  type AsrSegment,
} from '../../services/intelligence/asr';
import {
  ASR_BYTES_PER_SECOND,
  cutWav,
  extractAudio,
  readPcm,
  WAV_HEADER_BYTES,
  type Silence,
} from '../../services/intelligence/media';
import type { Sentence } from '../../services/intelligence/types';
import { ActivityDeps, activitySignal, badInput, runStep, stageOf } from './context';
import {
  diarizeChunk,
  diarizes,
  linkedSegments,
  nameByVoice,
  speakerBounds,
  speakerLimit,
  speakerReferences,
  type StoredRow,
  type VoiceNaming,
} from './chunk-speakers';

export type { VoiceNaming } from './chunk-speakers';
import { mediaPathFor } from './media';
import { sha256 } from './stage';
import { embeddedTranscriber, speechLanguageOf } from './speech-language';
import { asrLanguage, cancellableFetch, describe, digestOf } from './sentences';
import type { AudioPlan, ChunkInput, ChunkResult, MediaRef, MeetingRef, TranscriptRef } from './types';

/** Seconds each chunk after the first starts before the previous cut. */
export const CHUNK_OVERLAP_SECONDS = 1;

interface ExtractedAudio {
  path: string;
  durationSeconds: number;
  silences: Silence[];
}

interface AudioMeta {
  sha256: string;
  durationSeconds: number;
  silences: Silence[];
}

const extracting = new Map<string, Promise<ExtractedAudio>>();

/** The staged WAV of one channel (-1: all mixed) of the run's media, extracted once per worker. */
export async function audioFor(
  deps: ActivityDeps,
  meetingId: string,
  media: MediaRef,
  channel: number,
): Promise<ExtractedAudio> {
  const stage = stageOf(deps, meetingId);
  const name = channel < 0 ? 'audio' : `audio-${channel}`;
  const [meta, path] = await Promise.all([stage.readJson<AudioMeta>(name), stage.pathOf(`${name}.wav`)]);
  if (meta && path && meta.sha256 === media.sha256)
    return { path, durationSeconds: meta.durationSeconds, silences: meta.silences };
  const key = `${stage.dir}/${name}`;
  const running = extracting.get(key);
  if (running) return running;
  const work = (async () => {
    const source = await mediaPathFor(deps, meetingId, media);
    const tmp = await stage.tempPath(name);
    try {
      const signal = activitySignal();
      const found = await extractAudio(source, tmp, {
        channel: channel < 0 ? undefined : channel,
        silences: true,
        signal,
      });
      // extractAudio writes a plain 44-byte header: the size says the duration exactly.
      const durationSeconds = Math.max(0, (await stat(tmp)).size - WAV_HEADER_BYTES) / ASR_BYTES_PER_SECOND;
      // Frames of garbage behind a valid header: ffmpeg decodes next to nothing of what the file declares.
      const declared = media.durationSeconds ?? 0;
      if (found.errors.length > 0 && durationSeconds < declared / 2) {
        throw badInput(
          `url: the recording cannot be read (unreadable: ffmpeg decoded ${durationSeconds.toFixed(1)} s of the ${declared.toFixed(1)} s it declares: ${found.errors[0]}); send a complete audio or video file`,
        );
      }
      const silences = found.silences.map((s) => ({
        start: s.start,
        end: Number.isFinite(s.end) ? s.end : durationSeconds,
      }));
      const target = await stage.adopt(tmp, `${name}.wav`);
      await stage.writeJson(name, { sha256: media.sha256, durationSeconds, silences } satisfies AudioMeta);
      return { path: target, durationSeconds, silences };
    } finally {
      await rm(tmp, { force: true });
    }
  })();
  extracting.set(key, work);
  try {
    return await work;
  } finally {
    extracting.delete(key);
  }
}

/** Channel by channel when asked (the upload's split_channels, else ASR_SPLIT_CHANNELS) and there are several. */
function channelsOf(deps: ActivityDeps, media: MediaRef, split: boolean | undefined): number[] {
  const n = media.audioChannels ?? 1;
  if (!(split ?? deps.config.asr.splitChannels) || n < 2) return [-1];
  return Array.from({ length: Math.min(n, 8) }, (_, i) => i);
}

export function prepareAudioActivity(deps: ActivityDeps) {
  return (input: MeetingRef & { media: MediaRef }): Promise<AudioPlan> =>
    runStep('prepare_audio', async () => {
      // An engine that cannot serve the upload is refused at once with what to configure (before any ffmpeg work).
      selectAsr(input.media.contentType, deps.config);
      const meeting = await loadIngestMeeting(deps.db, input.meetingId);
      const embedded = asrEngine(deps.config) === 'embedded';
      const language = asrLanguage(meeting?.custom_language ?? null);
      const speechModels = embedded ? speechModelsFor(deps.config) : undefined;
      // The model of the upload's language (none given: the default one, whatever is detected later).
      const speechModel = speechModels && (language ? modelFor(speechModels, language) : speechModels[0]);
      if (speechModels && !speechModel) throw badInput(unservedLanguage('language', language!, speechModels).message);
      const options = meeting?.upload_options;
      const channels = channelsOf(deps, input.media, options?.split_channels);
      const { asr } = deps.config;
      const limits = {
        maxSeconds: asr.chunkMaxSeconds,
        maxBytes: asr.chunkMaxBytes,
        bytesPerSecond: ASR_BYTES_PER_SECOND,
        headerBytes: WAV_HEADER_BYTES,
        overlapSeconds: CHUNK_OVERLAP_SECONDS,
      };
      const chunks = [];
      let durationSeconds = 0;
      for (const channel of channels) {
        const audio = await audioFor(deps, input.meetingId, input.media, channel);
        durationSeconds = Math.max(durationSeconds, audio.durationSeconds);
        chunks.push(planChunks(audio.durationSeconds, audio.silences, limits));
      }
      const names = options?.speaker_names ?? [];
      const channelLabels = channels.map((c) => (c < 0 ? '' : names[c] || `Channel ${c + 1}`));
      const model = speechModel ? `embedded:${speechModel.name}` : asr.model;
      const plan = sha256(
        JSON.stringify({ media: input.media.sha256, channels, chunks, model, format: asr.responseFormat }),
      ).slice(0, 32);
      const total = chunks.reduce((n, c) => n + c.length, 0);
      await setProgress(deps.db, input.meetingId, {
        stage: 'transcribing',
        percent: 10,
        chunks_done: await countChunks(deps.db, input.meetingId, plan),
        chunks_total: total,
      });
      const referenceFirst = asr.responseFormat === 'diarized_json' && channels[0] < 0 && chunks[0].length > 1;
      return {
        plan,
        durationSeconds,
        channels,
        channelLabels,
        chunks,
        concurrency: asr.chunkConcurrency,
        speechQueue: deps.config.temporal.speechTaskQueue,
        ...(referenceFirst ? { referenceFirst } : {}),
      };
    });
}

export function transcribeChunkActivity(deps: ActivityDeps) {
  return (input: ChunkInput): Promise<ChunkResult> =>
    runStep('transcribe_chunk', async () => {
      const { meetingId, chunk, channel } = input;
      const key = { meetingId, plan: input.plan, channel, index: chunk.index };
      const stored = await loadChunk(deps.db, key);
      if (stored) return { segments: stored.length, reused: true };

      const meeting = await loadIngestMeeting(deps.db, meetingId);
      const audio = await audioFor(deps, meetingId, input.media, channel);
      const recognised =
        asrEngine(deps.config) === 'embedded'
          ? embeddedChunk(deps, meetingId, audio, chunk)
          : serverChunk(deps, input, audio, meeting?.custom_language ?? null);
      const diarized =
        channel < 0 && diarizes(deps)
          ? diarizeChunk(audio, chunk, speakerBounds(meeting?.upload_options, input.total === 1))
          : undefined;
      const [segments, voices] = await Promise.all([recognised, diarized]);
      const local = voices
        ? assignSpeakers(
            segments.map((s) => ({ start_time: s.start, end_time: Math.max(s.start, s.end) })),
            voices.turns,
          )
        : [];
      await saveChunk(
        deps.db,
        key,
        segments.map((s, i) => ({
          start: s.start,
          end: s.end,
          text: s.text,
          ...(s.speaker ? { speaker: s.speaker } : {}),
          ...(local[i] != null ? { voice: local[i]! } : {}),
        })),
        voices?.voices,
      );
      const done = await countChunks(deps.db, meetingId, input.plan);
      await setProgress(deps.db, meetingId, {
        stage: 'transcribing',
        percent: Math.min(90, 10 + Math.floor((80 * done) / Math.max(1, input.total))),
        chunks_done: done,
        chunks_total: input.total,
      });
      return { segments: segments.length, reused: false };
    });
}

/** One chunk by the embedded engine: its samples read from the staged WAV, decoded in this process. */
async function embeddedChunk(
  deps: ActivityDeps,
  meetingId: string,
  audio: ExtractedAudio,
  chunk: ChunkInput['chunk'],
): Promise<AsrSegment[]> {
  const engine = await engineFor(deps.config);
  const signal = activitySignal();
  const { language } = await speechLanguageOf(deps, meetingId, engine, audio);
  return engine.withSlot(async () =>
    engine.transcribe(
      await readPcm(audio.path, chunk.start, Math.min(chunk.end, audio.durationSeconds)),
      signal,
      language,
    ),
  );
}

/** One chunk cut out of the staged audio and sent to ASR_URL. */
async function serverChunk(
  deps: ActivityDeps,
  input: ChunkInput,
  audio: ExtractedAudio,
  customLanguage: string | null,
): Promise<AsrSegment[]> {
  const { meetingId, chunk, channel } = input;
  const stage = stageOf(deps, meetingId);
  const tmp = await stage.tempPath(`chunk-${channel}-${chunk.index}`);
  let segments: AsrSegment[];
  try {
    const signal = activitySignal();
    const seconds = Math.min(chunk.end, audio.durationSeconds) - chunk.start;
    await cutWav(audio.path, tmp, chunk.start, seconds, signal);
    const file = await openAsBlob(tmp, { type: 'audio/wav' });
    const suffix = channel < 0 ? '' : `-ch${channel + 1}`;
    const knownSpeakers =
      deps.config.asr.responseFormat === 'diarized_json' && channel < 0 && chunk.index > 0
        ? await speakerReferences(deps, { meetingId, plan: input.plan, channel, index: 0 }, audio.path, stage, signal)
        : undefined;
    segments = await requestTranscription(
      { ...deps.config.asr, language: asrLanguage(customLanguage), fetchImpl: cancellableFetch(signal) },
      file,
      `chunk-${String(chunk.index + 1).padStart(3, '0')}${suffix}.wav`,
      seconds,
      { knownSpeakers },
    );
  } finally {
    await rm(tmp, { force: true });
  }
  return segments;
}

/** Which engine and model transcribe on this worker (its configuration is the speech workers'). */
async function transcriber(deps: ActivityDeps, meetingId: string) {
  if (asrEngine(deps.config) === 'embedded') return embeddedTranscriber(deps, meetingId);
  // A server is told the upload's language when it has one, and detects it itself otherwise.
  const given = asrLanguage((await loadIngestMeeting(deps.db, meetingId))?.custom_language ?? null);
  const language = given ? { language: given, language_source: 'given' as const } : {};
  return { engine: 'openai-compatible', model: deps.config.asr.model, ...language };
}

/** The plan's chunks, stitched, as sentences; undefined when a chunk is missing (rows gone). */
export async function stitchedSentences(
  deps: ActivityDeps,
  meetingId: string,
  plan: AudioPlan,
  naming: VoiceNaming,
): Promise<{ sentences: Sentence[]; diarized: boolean; inferred: InferredSpeaker[] } | undefined> {
  const rows = await loadChunks(deps.db, meetingId, plan.plan);
  let diarized = false;
  let known: KnownVoice[] | undefined;
  const perChannel = await Promise.all(
    plan.channels.map(async (channel, c) => {
      const own = plan.chunks[c].map((chunk) => rows.find((r) => r.channel === channel && r.index === chunk.index));
      if (own.some((r) => !r)) return undefined;
      const linked =
        channel < 0
          ? linkedSegments(
              deps,
              own as StoredRow[],
              speakerLimit((await loadIngestMeeting(deps.db, meetingId))?.upload_options),
            )
          : undefined;
      if (linked) {
        diarized = true;
        known = linked.known;
      }
      const parts = plan.chunks[c].map((chunk, i) => ({
        chunk,
        segments: linked?.segments.get(own[i]!) ?? own[i]!.segments,
      }));
      return stitchChunks(parts, { speaker: channel < 0 ? undefined : plan.channelLabels[c] });
    }),
  );
  if (perChannel.some((p) => !p)) return undefined;
  const sentences = toSentences(perChannel as NonNullable<(typeof perChannel)[number]>[]);
  if (!known) return { sentences, diarized, inferred: [] };
  return { ...(await nameByVoice(deps, meetingId, sentences, known, naming)), diarized };
}

export function stitchTranscriptActivity(deps: ActivityDeps) {
  return (input: MeetingRef & { media: MediaRef; plan: AudioPlan }): Promise<TranscriptRef> =>
    runStep('stitch_transcript', async () => {
      const stitched = await stitchedSentences(deps, input.meetingId, input.plan, 'recognise');
      if (!stitched) throw new Error('a transcribed chunk is missing from transcript_chunks');
      const { sentences, diarized, inferred } = stitched;
      if (sentences.length === 0)
        throw badInput('url: no speech was recognised in the recording; nothing to transcribe');
      await stageOf(deps, input.meetingId).writeJson('sentences', { digest: digestOf(sentences), sentences });
      const ref = describe(sentences, {
        ...input.media,
        durationSeconds: input.media.durationSeconds ?? input.plan.durationSeconds,
      });
      await chargeMinutes(deps.db, input.meetingId, ref.durationSeconds);
      const chunkCount = input.plan.chunks.reduce((n, c) => n + c.length, 0);
      const perChunkLabels =
        input.plan.channels[0] < 0 &&
        input.plan.chunks[0].length > 1 &&
        ref.speakers > 1 &&
        !input.plan.referenceFirst &&
        !diarized;
      await setProgress(deps.db, input.meetingId, {
        stage: 'analysing',
        percent: 90,
        chunks_done: chunkCount,
        chunks_total: chunkCount,
        transcribed_by: await transcriber(deps, input.meetingId),
        ...(inferred.length
          ? { inferred_speakers: inferred.map((x) => ({ speaker: x.speaker, confidence: x.confidence })) }
          : {}),
        ...(perChunkLabels
          ? { note: 'speaker labels are per chunk: the speech server numbers the speakers of each chunk on its own' }
          : {}),
      });
      return { ...ref, plan: input.plan };
    });
}
