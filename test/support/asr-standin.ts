/**
 * A local stand-in for an OpenAI-compatible speech-to-text server (faster-whisper-server, whisper.cpp,
 * OpenAI): POST /v1/audio/transcriptions with a real multipart/form-data body, answered with
 * `verbose_json` (segments with start, end, text and, like diarizing servers, a speaker label).
 * It records what it was sent so tests can check the request, not just the outcome.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { durationOf, speechRegions } from './media';

export interface AsrSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
}

export interface AsrRequest {
  authorization?: string;
  model: string | null;
  responseFormat: string | null;
  granularities: string[];
  language: string | null;
  fileName: string | null;
  fileType: string | null;
  fileBytes: number;
  /** Derived mode: the duration and channels ffprobe found in the file. */
  durationSeconds?: number;
  channels?: number;
  knownSpeakerNames?: string[];
  knownSpeakerReferences?: number;
  /** Seconds of each known speaker reference clip (data URLs, probed by ffprobe). */
  referenceSeconds?: number[];
  chunkingStrategy?: string | null;
  /** The HTTP status answered. */
  status?: number;
}

/** What OpenAI accepts (by the file name's extension), and its size limit. */
export const OPENAI_FORMATS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
export const OPENAI_MAX_BYTES = 25 * 1024 * 1024;

export interface StandinOptions {
  segments?: AsrSegment[];
  /**
   * Derive the answer from the audio received: one segment per stretch of sound between silences
   * (ffmpeg silencedetect, like the tests' speechRegions), seconds from the file's start.
   */
  derive?: boolean;
  /** With derive: label speakers (alternating, per file) in verbose_json as diarizing servers do. */
  diarize?: boolean;
  /** Wait this long before answering each request (a model at work). */
  delayMs?: number;
}

export interface AsrStandin {
  /** Base URL to use as ASR_URL, like http://127.0.0.1:PORT */
  url: string;
  requests: AsrRequest[];
  /** The segments every later request is answered with. */
  setSegments(segments: AsrSegment[]): void;
  /** Answer the next n requests with this HTTP status (then recover). */
  failNext(n: number, status?: number): void;
  /** Hold every request without answering (a slow model) until hold(false). */
  hold(on: boolean): void;
  close(): Promise<void>;
}

interface Held {
  finish: () => void;
}

export const DEFAULT_SEGMENTS: AsrSegment[] = [
  { start: 0, end: 2.4, text: ' Good morning, this is the weekly pipeline review.', speaker: 'SPEAKER_00' },
  { start: 2.6, end: 5.1, text: ' Thanks. Can we start with the Contoso renewal?', speaker: 'SPEAKER_01' },
  { start: 5.3, end: 8.9, text: ' Sure, I will send the revised quote by Friday.', speaker: 'SPEAKER_00' },
];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** One segment per sound between silences of the file received, with the server's words for it. */
function derivedSegments(
  bytes: Buffer,
  name: string,
  diarize: 'SPEAKER_' | 'letters' | undefined,
  names: string[],
): { segments: AsrSegment[]; duration: number; channels: number } {
  const dir = mkdtempSync(join(tmpdir(), 'mi-asr-standin-'));
  try {
    const path = join(dir, name.replace(/[^A-Za-z0-9._-]/g, '_') || 'audio.bin');
    writeFileSync(path, bytes);
    const probe = spawnSync(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=channels', '-of', 'csv=p=0', path],
      { encoding: 'utf8' },
    );
    const channels = Number(probe.stdout.trim()) || 0;
    const duration = durationOf(path);
    const segments = speechRegions(path).map((r, i) => {
      const seg: AsrSegment = {
        start: Math.round(r.start * 1000) / 1000,
        end: Math.round(r.end * 1000) / 1000,
        text: ` Speech of ${(r.end - r.start).toFixed(1)} seconds.`,
      };
      if (diarize === 'SPEAKER_') seg.speaker = `SPEAKER_0${i % 2}`;
      if (diarize === 'letters') seg.speaker = names[i % 2] ?? String.fromCharCode(65 + (i % 2));
      return seg;
    });
    return { segments, duration, channels };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const openAiError = (message: string, type = 'invalid_request_error') =>
  JSON.stringify({ error: { message, type, param: null, code: null } });

export async function startAsrStandin(opts: StandinOptions = {}): Promise<AsrStandin> {
  let segments = opts.segments ?? DEFAULT_SEGMENTS;
  let failures = 0;
  let failStatus = 503;
  let holding = false;
  const held: Held[] = [];
  const requests: AsrRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'POST' || path !== '/v1/audio/transcriptions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = await readBody(req);
    // Parse the multipart body exactly as a server framework would (undici's FormData parser).
    const form = await new Request('http://standin/v1/audio/transcriptions', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body,
    }).formData();
    const file = form.get('file');
    const request: AsrRequest = {
      authorization: req.headers.authorization,
      model: form.get('model') as string | null,
      responseFormat: form.get('response_format') as string | null,
      granularities: form.getAll('timestamp_granularities[]') as string[],
      language: form.get('language') as string | null,
      fileName: file instanceof File ? file.name : null,
      fileType: file instanceof File ? file.type : null,
      fileBytes: file instanceof File ? file.size : 0,
    };
    requests.push(request);
    const answer = (status: number, json: string) => {
      if (opts.derive) request.status = status;
      res.writeHead(status, { 'content-type': 'application/json' }).end(json);
    };
    if (holding) {
      // Wait to be released; a client that gives up (aborted activity) closes the socket meanwhile.
      await new Promise<void>((resolve) => held.push({ finish: resolve }));
      if (res.destroyed || req.destroyed) return;
    }
    if (failures > 0) {
      failures--;
      res
        .writeHead(failStatus, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'model is loading' } }));
      return;
    }
    if (!(file instanceof File) || !form.get('model')) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'file and model are required' } }));
      return;
    }
    if (!opts.derive) {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const duration = segments.reduce((m, s) => Math.max(m, s.end), 0);
      answer(
        200,
        JSON.stringify({
          task: 'transcribe',
          language: (form.get('language') as string | null) ?? 'english',
          duration,
          text: segments.map((s) => s.text).join(''),
          segments: segments.map((s, id) => ({
            id,
            seek: 0,
            start: s.start,
            end: s.end,
            text: s.text,
            tokens: [],
            temperature: 0,
            avg_logprob: -0.2,
            compression_ratio: 1.2,
            no_speech_prob: 0.01,
            ...(s.speaker ? { speaker: s.speaker } : {}),
          })),
        }),
      );
      return;
    }
    // OpenAI's own refusals, status and body as it sends them.
    if (file.size > OPENAI_MAX_BYTES) {
      answer(
        413,
        openAiError(
          `Maximum content size limit (${OPENAI_MAX_BYTES}) exceeded (${file.size} bytes read)`,
          'server_error',
        ),
      );
      return;
    }
    const ext = /\.([A-Za-z0-9]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    if (!OPENAI_FORMATS.includes(ext)) {
      answer(
        400,
        openAiError(`Invalid file format. Supported formats: ${JSON.stringify(OPENAI_FORMATS).replace(/"/g, "'")}`),
      );
      return;
    }
    const format = (form.get('response_format') as string | null) ?? 'json';
    const names = form.getAll('known_speaker_names[]') as string[];
    request.knownSpeakerNames = names;
    const references = form.getAll('known_speaker_references[]') as string[];
    request.knownSpeakerReferences = references.length;
    request.referenceSeconds = references.map((ref) => {
      const m = /^data:audio\/[a-z0-9.+-]+;base64,(.+)$/.exec(ref);
      return m
        ? Math.round(derivedSegments(Buffer.from(m[1], 'base64'), 'reference.wav', undefined, []).duration * 100) / 100
        : -1;
    });
    request.chunkingStrategy = form.get('chunking_strategy') as string | null;
    const derived = derivedSegments(
      Buffer.from(await file.arrayBuffer()),
      file.name,
      format === 'diarized_json' ? 'letters' : opts.diarize ? 'SPEAKER_' : undefined,
      names,
    );
    request.durationSeconds = derived.duration;
    request.channels = derived.channels;
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    // A client that gave up (an aborted activity) closed the socket meanwhile. (req itself is destroyed
    // once its body has been read, so only the socket says so.)
    if (res.destroyed || req.socket.destroyed) return;
    const text = derived.segments
      .map((s) => s.text)
      .join('')
      .trim();
    if (format === 'json') {
      answer(200, JSON.stringify({ text, usage: { type: 'duration', seconds: Math.ceil(derived.duration) } }));
    } else if (format === 'diarized_json') {
      answer(
        200,
        JSON.stringify({
          task: 'transcribe',
          duration: derived.duration,
          text,
          segments: derived.segments.map((s, i) => ({
            type: 'transcript.text.segment',
            id: `seg_${i}`,
            start: s.start,
            end: s.end,
            text: s.text.trim(),
            speaker: s.speaker,
          })),
          usage: { type: 'duration', seconds: Math.ceil(derived.duration) },
        }),
      );
    } else if (format === 'verbose_json') {
      answer(
        200,
        JSON.stringify({
          task: 'transcribe',
          language: (form.get('language') as string | null) ?? 'english',
          duration: derived.duration,
          text,
          segments: derived.segments.map((s, id) => ({
            id,
            seek: 0,
            start: s.start,
            end: s.end,
            text: s.text,
            tokens: [],
            temperature: 0,
            avg_logprob: -0.2,
            compression_ratio: 1.2,
            no_speech_prob: 0.01,
            ...(s.speaker ? { speaker: s.speaker } : {}),
          })),
        }),
      );
    } else {
      answer(400, openAiError(`Unsupported response_format: ${format}`));
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setSegments: (s) => {
      segments = s;
    },
    failNext: (n, status = 503) => {
      failures = n;
      failStatus = status;
    },
    hold: (on) => {
      holding = on;
      if (!on) for (const h of held.splice(0)) h.finish();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of held.splice(0)) h.finish();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid PCM WAV file of `seconds` of silence: real audio bytes that sniffing and metadata agree on. */
export function silentWav(seconds: number, sampleRate = 8000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  return b;
}
