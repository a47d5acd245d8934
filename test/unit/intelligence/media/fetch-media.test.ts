import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetchMedia, fileNameFor, mediaDuration, sniffMedia } from '../../../../services/intelligence/media';
import { NetError } from '../../../../services/net';
import { localServer, wav } from '../../net/local-server';

const config = { allowPrivateNetwork: true, media: { maxBytes: 200_000, fetchTimeoutMs: 2_000 } };
const fixture = (name: string) =>
  readFileSync(join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings', name));

describe('fetchMedia', () => {
  let server: Awaited<ReturnType<typeof localServer>>;
  const send = (body: Buffer, type = 'application/octet-stream', extra: Record<string, string> = {}) =>
    ((_req, res) => {
      res.writeHead(200, { 'content-type': type, ...extra });
      res.end(body);
    }) as Parameters<typeof localServer>[0][string];
  beforeAll(async () => {
    server = await localServer({
      '/recording.wav': send(wav(1.5), 'audio/wav'),
      '/download': send(wav(2), 'application/octet-stream', {
        'content-disposition': 'attachment; filename="Team sync.WAV"',
      }),
      '/standup.vtt': send(fixture('2026-10-05-engineering-standup.vtt'), 'text/plain'),
      '/retro.srt': send(fixture('2026-10-12-sprint-41-retrospective.srt')),
      '/slides.pdf': send(Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), 'audio/mpeg'),
      '/notes.txt': send(Buffer.from('Meeting notes: we agreed to ship on Friday.'), 'text/vtt'),
      '/huge.wav': send(wav(30), 'audio/wav'),
      '/signed.wav': (req, res) => {
        if (req.headers.authorization !== 'Bearer download-token') {
          res.writeHead(401);
          res.end();
          return;
        }
        res.end(wav(1));
      },
      '/moved': (_req, res) => {
        res.writeHead(302, { location: '/recording.wav' });
        res.end();
      },
    });
  });
  afterAll(() => server.close());

  it('sniffs audio from its bytes and reads its duration', async () => {
    const media = await fetchMedia(server.url('/recording.wav'), config);
    expect(media).toMatchObject({
      kind: 'audio',
      contentType: 'audio/wav',
      fileName: 'recording.wav',
      durationSeconds: 1.5,
      sizeBytes: 24_044,
    });
    expect(media.bytes.subarray(0, 4).toString()).toBe('RIFF');
  });

  it('names the file from Content-Disposition with the extension its content has, whatever the server calls it', async () => {
    const media = await fetchMedia(server.url('/download?id=7'), config);
    expect(media).toMatchObject({
      kind: 'audio',
      contentType: 'audio/wav',
      fileName: 'Team sync.wav',
      durationSeconds: 2,
    });
  });

  it('recognizes WebVTT and SRT captions by their text, with the last cue end as duration', async () => {
    const vtt = await fetchMedia(server.url('/standup.vtt'), config);
    expect(vtt).toMatchObject({ kind: 'captions', contentType: 'text/vtt', fileName: 'standup.vtt' });
    expect(vtt.durationSeconds).toBeCloseTo(167.596, 3);
    const srt = await fetchMedia(server.url('/retro.srt'), config);
    expect(srt).toMatchObject({ kind: 'captions', contentType: 'application/x-subrip', fileName: 'retro.srt' });
    expect(srt.durationSeconds).toBeGreaterThan(200);
  });

  it('follows redirects and reports the final URL', async () => {
    const media = await fetchMedia(server.url('/moved'), config);
    expect(media.url).toBe(server.url('/recording.wav'));
    expect(media.kind).toBe('audio');
  });

  it('refuses types it cannot transcribe, whatever Content-Type claims', async () => {
    const pdf = await fetchMedia(server.url('/slides.pdf'), config).catch((e: unknown) => e);
    expect(pdf).toBeInstanceOf(NetError);
    expect(pdf).toMatchObject({
      message: 'url: unsupported file type (application/pdf); send audio, video, WebVTT or SRT',
      retryable: false,
      details: { field: 'url', rule: 'unsupported_media_type' },
    });
    await expect(fetchMedia(server.url('/notes.txt'), config)).rejects.toThrow(
      'url: unsupported file type (unrecognized content); send audio, video, WebVTT or SRT',
    );
  });

  it('applies MEDIA_MAX_BYTES and the private-network guard', async () => {
    await expect(fetchMedia(server.url('/huge.wav'), config)).rejects.toThrow(
      'url: file is larger than the 200000-byte limit',
    );
    await expect(fetchMedia(server.url('/recording.wav'), { ...config, allowPrivateNetwork: false })).rejects.toThrow(
      'url: resolves to a private address (127.0.0.1, loopback); set ALLOW_PRIVATE_NETWORK=true for local development only',
    );
  });

  it('sends download credentials as headers when given', async () => {
    await expect(fetchMedia(server.url('/signed.wav'), config)).rejects.toThrow('url: server answered 401');
    const media = await fetchMedia(server.url('/signed.wav'), config, {
      headers: { authorization: 'Bearer download-token' },
    });
    expect(media).toMatchObject({ kind: 'audio', durationSeconds: 1 });
    expect(server.seen.at(-1)!.headers.accept).toMatch(/^audio\/\*/);
  });

  it('reports a missing file with the status', async () => {
    await expect(fetchMedia(server.url('/gone.mp3'), config)).rejects.toMatchObject({
      message: 'url: server answered 404',
      retryable: false,
    });
  });
});

describe('mediaDuration', () => {
  it('reads the length of audio with or without the sniffed extension, and null for what it cannot read', async () => {
    expect(await mediaDuration(wav(2.5), 'audio/wav', 'wav')).toBe(2.5);
    expect(await mediaDuration(wav(0.75), 'audio/wav')).toBe(0.75);
    expect(await mediaDuration(Buffer.from('not audio at all'), 'audio/mpeg')).toBeNull();
  });
});

describe('sniffMedia and fileNameFor', () => {
  it('tells video from audio by magic numbers', async () => {
    // the start of an ISO-BMFF MP4: ftyp box with brand isom
    const mp4 = Buffer.concat([
      Buffer.from([0, 0, 0, 0x20]),
      Buffer.from('ftypisom\0\0\x02\0isomiso2avc1mp41', 'latin1'),
      Buffer.alloc(64),
    ]);
    expect(await sniffMedia(mp4)).toEqual({
      ok: true,
      media: { kind: 'video', contentType: 'video/mp4', extension: 'mp4' },
    });
    expect(await sniffMedia(Buffer.alloc(0))).toEqual({ ok: false, found: 'an empty file' });
  });

  it('keeps names safe and short', () => {
    expect(fileNameFor('http://h/a/..%2F..%2Fetc%2Fpasswd', undefined, 'mp3')).toBe('_.._etc_passwd.mp3');
    expect(fileNameFor('http://h/', undefined, 'vtt')).toBe('media.vtt');
    expect(fileNameFor('http://h/x', 'attachment; filename="../../weekly call.m4a"', 'mp4')).toBe(
      '_.._weekly call.mp4',
    );
    expect(fileNameFor(`http://h/${'a'.repeat(300)}.mp3`, undefined, 'mp3')).toHaveLength(120 + 4);
  });
});
