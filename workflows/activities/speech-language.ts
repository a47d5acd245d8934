/**
 * The language a meeting's speech is decoded in, by the embedded engine:
 *
 * - given: the upload's language (custom_language), routed to the model that serves it;
 * - detected: without one, and with a Whisper model among the configured ones, the language of the
 *   recording's first speech (up to DETECT_SECONDS of it, from its first LISTEN_SECONDS of audio),
 *   detected once and kept in meetings.detected_language, so every chunk, on whatever worker, decodes
 *   in that one language. A recording whose language changes part way is decoded throughout in the
 *   language of its beginning (docs/speech.md);
 * - default: no language given and no model that detects: the default model, as before multilingual
 *   models existed (an English recording behaves exactly as it always did).
 */
import { keepDetectedLanguage, loadIngestMeeting } from '../../services/core/ingest';
import {
  detectorOf,
  modelFor,
  speechModelsFor,
  unservedLanguage,
  type EmbeddedEngine,
  type RoutedModel,
} from '../../services/intelligence/asr';
import { readPcm } from '../../services/intelligence/media';
import { ActivityDeps, activitySignal, badInput } from './context';
import { asrLanguage } from './sentences';

/** Audio read from the start of a recording to find its first speech. */
export const LISTEN_SECONDS = 120;

export interface SpeechLanguage {
  /** ISO 639-1; undefined: the default model in its own language. */
  language?: string;
  source: 'given' | 'detected' | 'default';
}

const detecting = new Map<string, Promise<string | undefined>>();

/** Detect once per meeting per process (chunks of one recording start together), and keep the answer. */
function detectOnce(
  deps: ActivityDeps,
  meetingId: string,
  engine: EmbeddedEngine,
  audio: { path: string; durationSeconds: number },
): Promise<string | undefined> {
  let running = detecting.get(meetingId);
  if (!running) {
    running = (async () => {
      const samples = await readPcm(audio.path, 0, Math.min(LISTEN_SECONDS, audio.durationSeconds));
      const found = await engine.detectLanguage(samples, activitySignal());
      return found ? keepDetectedLanguage(deps.db, meetingId, found) : undefined;
    })();
    detecting.set(meetingId, running);
    void running.finally(() => detecting.delete(meetingId)).catch(() => undefined);
  }
  return running;
}

/** The language this meeting's chunks decode in (detected and kept on the first chunk that asks). */
export async function speechLanguageOf(
  deps: ActivityDeps,
  meetingId: string,
  engine: EmbeddedEngine,
  audio: { path: string; durationSeconds: number },
): Promise<SpeechLanguage> {
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  const given = asrLanguage(meeting?.custom_language ?? null);
  if (given) return { language: given, source: 'given' };
  if (!detectorOf(engine.models)) return { source: 'default' };
  const language = meeting?.detected_language ?? (await detectOnce(deps, meetingId, engine, audio));
  if (!language) return { source: 'default' };
  if (!modelFor(engine.models, language))
    throw badInput(unservedLanguage('language', `${language} (detected)`, engine.models).message);
  return { language, source: 'detected' };
}

/**
 * What meeting_info.transcribed_by says of an embedded transcription: the model that served the
 * meeting's language and how the language was known. Read from the model.json files and the meeting
 * (the stitch runs on a general worker, which may not load the models).
 */
export async function embeddedTranscriber(
  deps: ActivityDeps,
  meetingId: string,
): Promise<{ engine: 'embedded'; model: string; language?: string; language_source: SpeechLanguage['source'] }> {
  const models = speechModelsFor(deps.config);
  const meeting = await loadIngestMeeting(deps.db, meetingId);
  const given = asrLanguage(meeting?.custom_language ?? null);
  const language = given ?? meeting?.detected_language ?? undefined;
  const model: RoutedModel = (language && modelFor(models, language)) || models[0];
  if (language)
    return { engine: 'embedded', model: model.name, language, language_source: given ? 'given' : 'detected' };
  const only = model.languages.length === 1 && model.languages[0] !== '*' ? model.languages[0] : undefined;
  return { engine: 'embedded', model: model.name, ...(only ? { language: only } : {}), language_source: 'default' };
}
