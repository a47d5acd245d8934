/**
 * Real recordings for the ingest tests and the media benchmark, made on the spot by Debian's espeak-ng
 * (speech in two voices) and ffmpeg (mixing, encoding), cached in a temporary directory shared by the
 * test files of one run (keyed by the recipe's version; files are written under a temporary name and
 * renamed, so two test files making the same recording at once never see half of one).
 *
 * The conversation: a short pause, voice A says one sentence, a pause, voice B answers, a pause, A
 * again; the same on two channels with A on the left and B on the right. `long` loops it (with silences)
 * for over an hour, encoded at a low bitrate, so it must be chunked.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RECIPE = 'v1';
export const MEDIA_DIR = join(tmpdir(), `mi-test-media-${RECIPE}`);

export const LINES = {
  a1: 'Good morning everyone, this is the weekly pipeline review.',
  b1: 'Thanks. Can we start with the renewal for the northern region?',
  a2: 'Sure, I will send the revised quote by Friday afternoon.',
};

/** Fails with the Debian package to install when a tool is missing. */
export function requireMediaTools(): void {
  for (const [bin, pkg] of [
    ['ffmpeg', 'ffmpeg'],
    ['ffprobe', 'ffmpeg'],
    ['espeak-ng', 'espeak-ng'],
  ]) {
    if (
      spawnSync(bin, ['--version'], { stdio: 'ignore' }).status !== 0 &&
      spawnSync(bin, ['-version'], { stdio: 'ignore' }).status !== 0
    ) {
      throw new Error(`${bin} is not on PATH: install the Debian package \`${pkg}\` (apt-get install ${pkg})`);
    }
  }
}

const ffmpeg = (args: string[]) =>
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });

/** Make `name` in the cache with `make(tmpPath)` unless it is there; returns its path. */
function cached(name: string, make: (tmp: string) => void): string {
  mkdirSync(MEDIA_DIR, { recursive: true });
  const path = join(MEDIA_DIR, name);
  if (existsSync(path)) return path;
  const ext = name.slice(name.lastIndexOf('.'));
  const tmp = join(MEDIA_DIR, `.${process.pid}.${Math.random().toString(36).slice(2)}${ext}`);
  try {
    make(tmp);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  return path;
}

function speech(name: string, voice: string, text: string): string {
  return cached(`${name}.wav`, (tmp) => execFileSync('espeak-ng', ['-v', voice, '-s', '160', '-w', tmp, text]));
}

/** The three utterances with pauses, mono 16 kHz (A, B, A). */
export function conversationWav(): string {
  const a1 = speech('a1', 'en-us', LINES.a1);
  const b1 = speech('b1', 'en-us+f3', LINES.b1);
  const a2 = speech('a2', 'en-us', LINES.a2);
  return cached('conversation.wav', (tmp) =>
    ffmpeg([
      '-i',
      a1,
      '-i',
      b1,
      '-i',
      a2,
      '-filter_complex',
      '[0]aresample=16000,adelay=800:all=1,apad=pad_dur=1.6[x0];[1]aresample=16000,apad=pad_dur=1.6[x1];[2]aresample=16000,apad=pad_dur=1.2[x2];[x0][x1][x2]concat=n=3:v=0:a=1[out]',
      '-map',
      '[out]',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'pcm_s16le',
      tmp,
    ]),
  );
}

/** Two channels: voice A's lines on the left, voice B's on the right, at the same times as the mono mix. */
export function stereoWav(): string {
  const a1 = speech('a1', 'en-us', LINES.a1);
  const b1 = speech('b1', 'en-us+f3', LINES.b1);
  const a2 = speech('a2', 'en-us', LINES.a2);
  return cached('stereo.wav', (tmp) =>
    ffmpeg([
      '-i',
      a1,
      '-i',
      b1,
      '-i',
      a2,
      '-filter_complex',
      [
        '[0]aresample=16000,adelay=800:all=1,apad=pad_dur=1.6[x0]',
        '[1]aresample=16000,apad=pad_dur=1.6[x1]',
        '[2]aresample=16000,apad=pad_dur=1.2[x2]',
        '[x0]asplit[a0][s0]',
        '[x1]asplit[b1][s1]',
        '[x2]asplit[a2][s2]',
        '[s0]volume=0[q0]',
        '[s1]volume=0[q1]',
        '[s2]volume=0[q2]',
        '[a0][q1][a2]concat=n=3:v=0:a=1[left]',
        '[q0][b1][q2]concat=n=3:v=0:a=1[right]',
        '[left][right]join=inputs=2:channel_layout=stereo[out]',
      ].join(';'),
      '-map',
      '[out]',
      '-ar',
      '16000',
      '-c:a',
      'pcm_s16le',
      tmp,
    ]),
  );
}

export type Encoding = 'wav' | 'mp3' | 'm4a' | 'opus' | 'webm' | 'mp4';

const CODECS: Record<Encoding, string[]> = {
  wav: ['-c:a', 'pcm_s16le'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '48k'],
  m4a: ['-c:a', 'aac', '-b:a', '48k'],
  opus: ['-c:a', 'libopus', '-b:a', '24k'],
  webm: ['-c:a', 'libopus', '-b:a', '24k'],
  mp4: ['-c:a', 'aac', '-b:a', '48k'],
};

const EXT: Record<Encoding, string> = { wav: 'wav', mp3: 'mp3', m4a: 'm4a', opus: 'ogg', webm: 'webm', mp4: 'mp4' };

/** The conversation (mono or stereo) encoded; webm and mp4 carry a small video track as well. */
export function encoded(source: 'mono' | 'stereo', enc: Encoding): string {
  const input = source === 'mono' ? conversationWav() : stereoWav();
  return cached(`${source}.${EXT[enc]}`, (tmp) => {
    const video = enc === 'webm' || enc === 'mp4';
    const args = video
      ? ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5', '-i', input, '-map', '0:v', '-map', '1:a', '-shortest']
      : ['-i', input];
    if (video)
      args.push(
        '-c:v',
        enc === 'webm' ? 'libvpx' : 'libx264',
        ...(enc === 'mp4' ? ['-preset', 'ultrafast', '-pix_fmt', 'yuv420p'] : ['-b:v', '50k']),
      );
    ffmpeg([...args, ...CODECS[enc], tmp]);
  });
}

/**
 * Over an hour (`seconds`, default 3700) of the conversation looped, as `enc` (low bitrate: an mp3 at
 * 16 kbit/s, or an mp4 with a tiny video track for the benchmark).
 */
export function longRecording(enc: 'mp3' | 'mp4' = 'mp3', seconds = 3700): string {
  const input = conversationWav();
  // mp4: moov first (faststart), so ffmpeg can read it from a URL without seeking.
  return cached(`long-${seconds}${enc === 'mp4' ? '-faststart' : ''}.${enc}`, (tmp) => {
    const audio = ['-stream_loop', '-1', '-i', input];
    if (enc === 'mp3')
      ffmpeg([...audio, '-t', String(seconds), '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '16k', tmp]);
    else
      ffmpeg([
        '-f',
        'lavfi',
        '-i',
        'color=c=gray:size=64x48:rate=1',
        ...audio,
        '-map',
        '0:v',
        '-map',
        '1:a',
        '-t',
        String(seconds),
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-b:a',
        '32k',
        '-ac',
        '1',
        '-movflags',
        '+faststart',
        tmp,
      ]);
  });
}

/** A video with no audio stream at all. */
export function silentVideo(): string {
  return cached('no-audio.mp4', (tmp) =>
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=5',
      '-t',
      '3',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      tmp,
    ]),
  );
}

/** An mp3 whose first bytes are right (it sniffs as audio/mpeg) but whose frames are garbage. */
export function corruptMp3(): string {
  return cached('corrupt.mp3', (tmp) => {
    const good = readFileSync(encoded('mono', 'mp3'));
    const bad = Buffer.from(good.subarray(0, 2048));
    for (let i = 600; i < bad.length; i++) bad[i] = (i * 7919) & 0xff;
    writeFileSync(tmp, bad);
  });
}

/** An m4a cut off after its first 3 KB (moov missing): ffprobe cannot read it. */
export function truncatedM4a(): string {
  return cached('truncated.m4a', (tmp) => {
    const good = readFileSync(encoded('mono', 'm4a'));
    writeFileSync(tmp, good.subarray(0, 3000));
  });
}

/** The non-silent stretches of a file, as ffmpeg's silencedetect sees them (what the ASR stand-in hears). */
export function speechRegions(
  path: string,
  opts: { channel?: number; noise?: string; minSilence?: number } = {},
): { start: number; end: number }[] {
  const filters = [];
  if (opts.channel !== undefined) filters.push(`pan=mono|c0=c${opts.channel}`);
  filters.push(`silencedetect=noise=${opts.noise ?? '-35dB'}:d=${opts.minSilence ?? 0.6}`);
  const r = spawnSync(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-nostats', '-i', path, '-af', filters.join(','), '-f', 'null', '-'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const duration = Number(
    spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path], {
      encoding: 'utf8',
    }).stdout.trim(),
  );
  const silences: { start: number; end: number }[] = [];
  let start: number | null = null;
  for (const m of r.stderr.matchAll(/silence_(start|end): (-?[\d.]+)/g)) {
    if (m[1] === 'start') start = Math.max(0, Number(m[2]));
    else if (start !== null) {
      silences.push({ start, end: Number(m[2]) });
      start = null;
    }
  }
  if (start !== null) silences.push({ start, end: duration });
  const regions: { start: number; end: number }[] = [];
  let t = 0;
  for (const s of silences) {
    if (s.start - t > 0.05) regions.push({ start: t, end: s.start });
    t = s.end;
  }
  if (duration - t > 0.05) regions.push({ start: t, end: duration });
  return regions;
}

export function durationOf(path: string): number {
  return Number(
    spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path], {
      encoding: 'utf8',
    }).stdout.trim(),
  );
}
