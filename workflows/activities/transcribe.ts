/**
 * transcribe: media → sentences with speakers and timestamps. Caption files (WebVTT, SRT) are imported
 * with their own speakers, their language detected from their text when the upload gave none; audio and video go to the OpenAI-compatible speech-to-text server at ASR_URL
 * (without it, audio fails with a message saying to set ASR_URL). Sentences are staged; the workflow
 * only gets their count and digest.
 */
import { chargeMinutes, loadIngestMeeting } from '../../services/core/ingest';
import { recordDetectedLanguage } from '../../services/core/languages';
import { createOpenAiCompatibleAsr, selectAsr } from '../../services/intelligence/asr';
import { detectTextLanguage } from '../../services/intelligence/text/language';
import type { MediaInput, Sentence } from '../../services/intelligence/types';
import { ActivityDeps, activitySignal, badInput, runStep, stageOf } from './context';
import { mediaFor } from './media';
import { stitchedSentences } from './chunks';
import { asrLanguage, cancellableFetch, describe, digestOf } from './sentences';
import type { MediaRef, MeetingRef, TranscriptRef } from './types';

export { asrLanguage, cancellableFetch, describe, digestOf };

export async function recognise(deps: ActivityDeps, media: MediaInput, language: string | null): Promise<Sentence[]> {
  const asr = selectAsr(media.contentType, deps.config);
  const engine =
    asr.name === 'openai-compatible'
      ? createOpenAiCompatibleAsr({
          ...deps.config.asr,
          language: asrLanguage(language),
          fetchImpl: cancellableFetch(activitySignal()),
        })
      : asr;
  const sentences = await engine.transcribe(media);
  if (sentences.length === 0) {
    throw badInput(
      asr.name === 'captions'
        ? 'file: the caption file has no cues with text; nothing to transcribe'
        : 'url: no speech was recognised in the recording; nothing to transcribe',
    );
  }
  return sentences;
}

interface StagedSentences {
  digest: string;
  sentences: Sentence[];
}

/** Transcribe the meeting's media and stage the sentences. */
export async function deriveSentences(
  deps: ActivityDeps,
  meetingId: string,
  media: MediaRef,
): Promise<StagedSentences> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  const input = await mediaFor(deps, meetingId, media);
  const sentences = await recognise(deps, input, meeting?.custom_language ?? null);
  // Captions uploaded without a language: told by their text, before their sentences are indexed.
  if (!meeting?.custom_language && selectAsr(input.contentType, deps.config).name === 'captions') {
    const language = detectTextLanguage(sentences.map((s) => s.text));
    if (language) await recordDetectedLanguage(deps.db, meetingId, language);
  }
  const staged = { digest: digestOf(sentences), sentences };
  await stageOf(deps, meetingId).writeJson('sentences', staged);
  return staged;
}

/**
 * The sentences of this run: the staged ones, or (on a worker that lacks them) transcribed again.
 * Analytics and summary are tied to the digest of the sentences they came from, so a re-derived
 * transcript never meets analytics of another.
 */
export async function sentencesFor(
  deps: ActivityDeps,
  meetingId: string,
  media: MediaRef,
  transcript?: TranscriptRef,
): Promise<StagedSentences> {
  const staged = await stageOf(deps, meetingId).readJson<StagedSentences>('sentences');
  if (staged) return staged;
  if (transcript?.plan) {
    // A chunked run: its chunks are in the database; stitch them again rather than transcribe again,
    // with the names the run's stitch gave by voice (not matched again).
    const stitched = await stitchedSentences(deps, meetingId, transcript.plan, 'reapply');
    if (stitched) {
      const again = { digest: digestOf(stitched.sentences), sentences: stitched.sentences };
      await stageOf(deps, meetingId).writeJson('sentences', again);
      return again;
    }
  }
  return deriveSentences(deps, meetingId, media);
}

export function transcribeActivity(deps: ActivityDeps) {
  return (input: MeetingRef & { media: MediaRef }): Promise<TranscriptRef> =>
    runStep('transcribe', async () => {
      // A retried attempt reuses sentences an earlier attempt staged (speech recognition is costly).
      const { sentences } = await sentencesFor(deps, input.meetingId, input.media);
      const ref = describe(sentences, input.media);
      // Caption files and audio without a duration in their metadata are charged here, once.
      await chargeMinutes(deps.db, input.meetingId, ref.durationSeconds);
      return ref;
    });
}
