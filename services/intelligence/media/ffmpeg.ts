/**
 * Recordings on disk, through Debian's `ffmpeg` package (ffmpeg and ffprobe on PATH): what a file holds
 * (ffprobe's JSON), its audio extracted and normalised to 16 kHz mono PCM WAV (one channel of it, or all
 * mixed down), the silences in it, and a time range of it cut out for the speech-to-text server. Video is
 * never decoded beyond what demuxing needs, and never sent anywhere. Every call is a child process with
 * the caller's cancellation signal: an aborted activity kills ffmpeg.
 */
import { spawn, spawnSync } from 'node:child_process';

/** What a speech server receives: 16 kHz mono 16-bit PCM, 32,000 bytes a second plus a 44-byte header. */
export const ASR_SAMPLE_RATE = 16_000;
export const ASR_BYTES_PER_SECOND = ASR_SAMPLE_RATE * 2;
export const WAV_HEADER_BYTES = 44;

export class FfmpegMissingError extends Error {}

let available: boolean | undefined;

/** Throws a message naming the Debian package when ffmpeg or ffprobe is not on PATH. */
export function requireFfmpeg(): void {
  available ??= ['ffmpeg', 'ffprobe'].every((bin) => spawnSync(bin, ['-version'], { stdio: 'ignore' }).status === 0);
  if (!available) {
    throw new FfmpegMissingError(
      'ffmpeg and ffprobe are needed to read audio and video recordings and are not on PATH: install the Debian package `ffmpeg` (apt-get install ffmpeg)',
    );
  }
}

/** A file ffmpeg cannot read (corrupt, truncated, not media at all): the reason, in ffmpeg's words. */
export class UnreadableMediaError extends Error {}

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(
  bin: 'ffmpeg' | 'ffprobe',
  args: string[],
  signal?: AbortSignal,
  keepStderr = 64 * 1024,
): Promise<RunResult> {
  requireFfmpeg();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      // silencedetect's lines are what we read; keep the tail, bounded, of anything longer.
      if (err.length > keepStderr * 2) err = err.slice(-keepStderr);
    });
    child.on('error', (e) => reject(e));
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) resolve({ stdout, stderr: err });
      else reject(new UnreadableMediaError(lastLines(err) || `${bin} exited with ${code}`));
    });
  });
}

const lastLines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-2)
    .join('; ')
    .slice(0, 300);

export interface MediaProbe {
  /** ffprobe's format name (mov,mp4,m4a,3gp,3g2,mj2 / wav / ogg / matroska,webm / mp3…). */
  format: string;
  durationSeconds: number | null;
  /** The first audio stream, when there is one. */
  audio: { codec: string; channels: number; sampleRate: number } | null;
  audioStreams: number;
  videoStreams: number;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
};

/** ffprobe's view of a file; UnreadableMediaError when it cannot parse it. */
export async function probeMedia(path: string, signal?: AbortSignal): Promise<MediaProbe> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    signal,
  );
  let parsed: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new UnreadableMediaError('ffprobe gave no description of the file');
  }
  const streams = parsed.streams ?? [];
  const audio = streams.filter((s) => s.codec_type === 'audio');
  // Cover art in an mp3 or m4a is a "video" stream of one picture: not a video track.
  const video = streams.filter(
    (s) => s.codec_type === 'video' && !(s.disposition as Record<string, number> | undefined)?.attached_pic,
  );
  const first = audio[0];
  const duration = num(parsed.format?.duration) ?? (first ? num(first.duration) : null);
  return {
    format: String(parsed.format?.format_name ?? 'unknown'),
    durationSeconds: duration === null ? null : Math.round(duration * 1000) / 1000,
    audio: first
      ? {
          codec: String(first.codec_name ?? 'unknown'),
          channels: Number(first.channels ?? 1) || 1,
          sampleRate: Number(first.sample_rate ?? 0) || 0,
        }
      : null,
    audioStreams: audio.length,
    videoStreams: video.length,
  };
}

export interface Silence {
  start: number;
  end: number;
}

export interface ExtractOptions {
  /** One channel of the first audio stream (0-based), or all of them mixed down to mono. */
  channel?: number;
  /** Also find the silences (ffmpeg's silencedetect, in the same pass). */
  silences?: boolean;
  signal?: AbortSignal;
}

/** PCM WAV with the plain 44-byte header (no LIST chunk of metadata): sizes are exact. */
const PLAIN_WAV = [
  '-map_metadata',
  '-1',
  '-fflags',
  '+bitexact',
  '-flags:a',
  '+bitexact',
  '-c:a',
  'pcm_s16le',
  '-f',
  'wav',
];

/** silencedetect: quieter than -35 dB for at least half a second. */
const SILENCE_FILTER = 'silencedetect=noise=-35dB:d=0.5';

/**
 * The first audio stream of `input` as 16 kHz mono PCM WAV at `output`, in one ffmpeg pass (video
 * streams are not decoded: -vn), with the silences it holds when asked and the decoding errors ffmpeg
 * reported on the way (a file whose frames are garbage decodes to almost nothing, with errors).
 * UnreadableMediaError when ffmpeg cannot decode it at all.
 */
export async function extractAudio(
  input: string,
  output: string,
  opts: ExtractOptions = {},
): Promise<{ silences: Silence[]; errors: string[] }> {
  const filters: string[] = [];
  if (opts.channel !== undefined) filters.push(`pan=mono|c0=c${opts.channel}`);
  filters.push(`aresample=${ASR_SAMPLE_RATE}`);
  if (opts.silences) filters.push(SILENCE_FILTER);
  const args = [
    '-nostdin',
    '-hide_banner',
    '-nostats',
    '-v',
    opts.silences ? 'info' : 'warning',
    '-y',
    '-i',
    input,
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
  ];
  args.push('-af', filters.join(','), '-ac', '1', '-ar', String(ASR_SAMPLE_RATE), ...PLAIN_WAV, output);
  const { stderr } = await run('ffmpeg', args, opts.signal, 8 * 1024 * 1024);
  const errors = stderr
    .split('\n')
    .filter((l) => /error while decoding|invalid data|header missing|corrupt/i.test(l))
    .slice(0, 5)
    .map((l) => l.replace(/^\[[^\]]*\]\s*/, '').trim());
  return { silences: opts.silences ? parseSilences(stderr) : [], errors };
}

/** The silence_start / silence_end pairs of silencedetect's log. */
export function parseSilences(log: string): Silence[] {
  const out: Silence[] = [];
  let start: number | null = null;
  for (const m of log.matchAll(/silence_(start|end): (-?[\d.]+)/g)) {
    const t = Math.max(0, Number(m[2]));
    if (m[1] === 'start') start = t;
    else if (start !== null) {
      out.push({ start, end: t });
      start = null;
    }
  }
  if (start !== null) out.push({ start, end: Number.POSITIVE_INFINITY });
  return out;
}

/**
 * Seconds [start, start + seconds) of a PCM WAV made by extractAudio, as a WAV of its own (a stream
 * copy: no re-encoding, exact to the sample).
 */
export async function cutWav(
  input: string,
  output: string,
  start: number,
  seconds: number,
  signal?: AbortSignal,
): Promise<void> {
  await run(
    'ffmpeg',
    [
      '-nostdin',
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-ss',
      start.toFixed(3),
      '-t',
      seconds.toFixed(3),
      '-i',
      input,
      ...PLAIN_WAV,
      output,
    ],
    signal,
  );
}
