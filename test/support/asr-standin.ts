/**
 * A local stand-in for an OpenAI-compatible speech-to-text server (faster-whisper-server, whisper.cpp,
 * OpenAI): POST /v1/audio/transcriptions with a real multipart/form-data body, answered with
 * `verbose_json` (segments with start, end, text and, like diarizing servers, a speaker label).
 * It records what it was sent so tests can check the request, not just the outcome.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export async function startAsrStandin(opts: { segments?: AsrSegment[] } = {}): Promise<AsrStandin> {
  let segments = opts.segments ?? DEFAULT_SEGMENTS;
  let failures = 0;
  let failStatus = 503;
  let holding = false;
  const held: Held[] = [];
  const requests: AsrRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'POST' || path !== '/v1/audio/transcriptions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
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
    requests.push({
      authorization: req.headers.authorization,
      model: form.get('model') as string | null,
      responseFormat: form.get('response_format') as string | null,
      granularities: form.getAll('timestamp_granularities[]') as string[],
      language: form.get('language') as string | null,
      fileName: file instanceof File ? file.name : null,
      fileType: file instanceof File ? file.type : null,
      fileBytes: file instanceof File ? file.size : 0,
    });
    if (holding) {
      // Wait to be released; a client that gives up (aborted activity) closes the socket meanwhile.
      await new Promise<void>((resolve) => held.push({ finish: resolve }));
      if (res.destroyed || req.destroyed) return;
    }
    if (failures > 0) {
      failures--;
      res.writeHead(failStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model is loading' } }));
      return;
    }
    if (!(file instanceof File) || !form.get('model')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'file and model are required' } }));
      return;
    }
    const duration = segments.reduce((m, s) => Math.max(m, s.end), 0);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        task: 'transcribe',
        language: (form.get('language') as string | null) ?? 'english',
        duration,
        text: segments.map((s) => s.text).join(''),
        segments: segments.map((s, id) => ({ id, seek: 0, start: s.start, end: s.end, text: s.text, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.2, no_speech_prob: 0.01, ...(s.speaker ? { speaker: s.speaker } : {}) })),
      }),
    );
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
