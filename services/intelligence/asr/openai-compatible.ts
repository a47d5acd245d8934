import { z } from 'zod';
import { NetError } from '../../net/errors';
import { postToModelServer } from '../http-json';
import type { Sentence } from '../types';
import type { Asr } from './port';

/**
 * Any server that speaks OpenAI's POST /v1/audio/transcriptions (faster-whisper-server, speaches,
 * whisper.cpp's server, LocalAI, vLLM, OpenAI itself). It is asked for `verbose_json` with segment
 * timestamps; diarizing servers add a `speaker` to each segment, the others get one "Speaker 1".
 */
export interface OpenAiAsrSettings {
  url: string;
  apiKey: string;
  model: string;
  /** Transcribing an hour of audio on a CPU can take a long while; the default is 30 minutes. */
  timeoutMs?: number;
  /** Spoken language (ISO 639-1) when known; otherwise the server detects it. */
  language?: string;
  /**
   * ASR_RESPONSE_FORMAT: `verbose_json` (segments, a `speaker` on diarizing servers), `diarized_json`
   * (OpenAI's gpt-4o-transcribe-diarize: speaker-labelled segments) or `json` (text only).
   */
  responseFormat?: AsrResponseFormat;
  fetchImpl?: typeof fetch;
}

export type AsrResponseFormat = 'verbose_json' | 'diarized_json' | 'json';
export const ASR_RESPONSE_FORMATS: readonly AsrResponseFormat[] = ['verbose_json', 'diarized_json', 'json'];

/** One segment of an answer, whatever its format: seconds from the start of the file sent. */
export interface AsrSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
}

export interface AsrRequestOptions {
  /** diarized_json: the names of speakers already known, with a short clip of each (data URLs). */
  knownSpeakers?: { name: string; reference: string }[];
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;
export const UNDIARIZED_SPEAKER = 'Speaker 1';

const verboseJson = z.object({
  text: z.string().optional(),
  duration: z.number().optional(),
  usage: z.object({ seconds: z.number().optional() }).passthrough().optional(),
  segments: z
    .array(
      z.object({
        start: z.number(),
        end: z.number(),
        text: z.string(),
        speaker: z.union([z.string(), z.number()]).nullable().optional(),
      }),
    )
    .optional(),
});

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** "SPEAKER_00" (pyannote/WhisperX style) or 0 becomes "Speaker 1"; real names pass through. */
export function speakerName(raw: string | number | null | undefined): string {
  if (raw === undefined || raw === null || raw === '') return UNDIARIZED_SPEAKER;
  const n = typeof raw === 'number' ? raw : /^(?:speaker[_ ]?)?(\d+)$/i.exec(raw.trim())?.[1];
  if (n !== undefined && n !== null) return `Speaker ${Number(n) + 1}`;
  return String(raw).trim();
}

export function segmentsToSentences(body: z.infer<typeof verboseJson>): Sentence[] {
  const ids = new Map<string, number>();
  const sentences: Sentence[] = [];
  const segments = body.segments ?? (body.text ? [{ start: 0, end: body.duration ?? 0, text: body.text }] : []);
  for (const seg of segments) {
    const text = seg.text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const name = speakerName('speaker' in seg ? seg.speaker : undefined);
    let id = ids.get(name);
    if (id === undefined) ids.set(name, (id = ids.size));
    sentences.push({
      index: sentences.length,
      speaker_name: name,
      speaker_id: id,
      text,
      raw_text: seg.text,
      start_time: round3(seg.start),
      end_time: round3(Math.max(seg.end, seg.start)),
    });
  }
  return sentences;
}

/**
 * POST one file to /v1/audio/transcriptions in the configured response format and read the answer as
 * segments: verbose_json and diarized_json give timed segments (a speaker when the server diarizes);
 * json gives only text, one segment over the file's duration (`durationSeconds`, when known).
 */
export async function requestTranscription(
  settings: OpenAiAsrSettings,
  file: Blob,
  fileName: string,
  durationSeconds: number | null,
  options: AsrRequestOptions = {},
): Promise<AsrSegment[]> {
  const format = settings.responseFormat ?? 'verbose_json';
  const form = new FormData();
  form.append('file', file, fileName);
  form.append('model', settings.model);
  form.append('response_format', format);
  if (format === 'verbose_json') form.append('timestamp_granularities[]', 'segment');
  if (format === 'diarized_json') {
    // OpenAI requires a chunking strategy for the diarizing model on audio over 30 s.
    form.append('chunking_strategy', 'auto');
    for (const k of options.knownSpeakers ?? []) {
      form.append('known_speaker_names[]', k.name);
      form.append('known_speaker_references[]', k.reference);
    }
  }
  if (settings.language) form.append('language', settings.language);
  const raw = await postToModelServer('The speech-to-text server', settings, 'audio/transcriptions', form, {
    timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetchImpl: settings.fetchImpl,
  });
  const parsed = verboseJson.safeParse(raw);
  if (!parsed.success || (format !== 'json' && !parsed.data.segments && parsed.data.text === undefined)) {
    throw new NetError(
      `The speech-to-text server answered without ${format} ${format === 'json' ? 'text' : 'segments (start, end, text)'}`,
      {
        retryable: false,
        rule: 'upstream_format',
        code: 'internal_error',
      },
    );
  }
  const body = parsed.data;
  if (body.segments) {
    return body.segments.map((seg) => ({
      start: seg.start,
      end: seg.end,
      text: seg.text,
      ...(seg.speaker !== undefined && seg.speaker !== null && seg.speaker !== ''
        ? { speaker: String(seg.speaker) }
        : {}),
    }));
  }
  const text = body.text ?? '';
  const end = body.duration ?? body.usage?.seconds ?? durationSeconds ?? 0;
  return text.trim() ? [{ start: 0, end, text }] : [];
}

export function createOpenAiCompatibleAsr(settings: OpenAiAsrSettings): Asr {
  return {
    name: 'openai-compatible',
    async transcribe(media) {
      const segments = await requestTranscription(
        settings,
        new Blob([media.bytes], { type: media.contentType }),
        media.fileName,
        null,
      );
      return segmentsToSentences({ segments });
    },
  };
}
