/**
 * Real human speech with references, from registry packages only: five LibriVox utterances of
 * Debian's pocketsphinx-testdata (with their transcription) and the pyannote-audio wheel's telephone
 * call (sample.wav with its timed words, sample.stm; `make models` caches it in .models/testdata).
 * Recordings for the end-to-end tests are built from them by ffmpeg, each utterance at a known offset.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MEDIA_DIR } from './media';

export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
export const PYANNOTE_DIR = join(__dirname, '..', '..', '.models', 'testdata', 'pyannote');
export const MODELS_DIR = join(__dirname, '..', '..', '.models');

/** Fails with what to install when the recordings are missing. */
export function requireSpeechData(): void {
  if (!existsSync(join(LIBRIVOX_DIR, 'transcription')))
    throw new Error(`${LIBRIVOX_DIR} is missing: install the Debian package \`pocketsphinx-testdata\``);
  if (!existsSync(join(PYANNOTE_DIR, 'sample.stm'))) throw new Error(`${PYANNOTE_DIR} is missing: run \`make models\``);
  if (!existsSync(join(MODELS_DIR, 'moonshine-tiny-en', 'model.json')))
    throw new Error('the speech model is missing: run `make models`');
}

export interface Utterance {
  id: string;
  path: string;
  reference: string;
}

export function librivox(): Utterance[] {
  return readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const m = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
      if (!m) throw new Error(`unexpected line in the LibriVox transcription: ${line}`);
      return { id: m[2], reference: m[1], path: join(LIBRIVOX_DIR, `${m[2]}.wav`) };
    });
}

/** The call's words in order (sample.stm: one timed turn a line, the words after five fields). */
export function pyannoteReference(): string {
  return readFileSync(join(PYANNOTE_DIR, 'sample.stm'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ').slice(5).join(' '))
    .join(' ');
}

/** 16 kHz mono 16-bit WAV samples as floats. */
export function wavSamples(path: string): Float32Array {
  const raw = execFileSync(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-i', path, '-f', 's16le', '-ac', '1', '-ar', '16000', '-'],
    { maxBuffer: 1 << 30 },
  );
  const ints = new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1);
  return Float32Array.from(ints, (x) => x / 32768);
}

export interface Placed {
  path: string;
  /** Each utterance and the second it starts at. */
  placed: { utterance: Utterance; at: number }[];
  seconds: number;
}

/**
 * Utterances at the given offsets over quiet noise (pink, low), `seconds` long, encoded as mp3 or as
 * mp4 with a video track. Cached in the test media folder by its recipe.
 */
export function placedRecording(
  parts: { id: string; at: number }[],
  seconds: number,
  enc: 'mp3' | 'mp4' | 'wav',
  noise = 0.003,
): Placed {
  const all = librivox();
  const placed = parts.map((p) => ({ utterance: all.find((u) => u.id.endsWith(p.id))!, at: p.at }));
  const recipe = createHash('sha256').update(JSON.stringify({ parts, seconds, noise })).digest('hex').slice(0, 16);
  const name = `placed-${recipe}.${enc}`;
  const path = join(MEDIA_DIR, name);
  if (existsSync(path)) return { path, placed, seconds };
  const inputs = ['-f', 'lavfi', '-i', `anoisesrc=color=pink:amplitude=${noise}:sample_rate=16000:duration=${seconds}`];
  placed.forEach((p) => inputs.push('-i', p.utterance.path));
  const delays = placed.map((p, i) => `[${i + 1}]aresample=16000,adelay=${Math.round(p.at * 1000)}:all=1[d${i}]`);
  const mix = `[0]${placed.map((_, i) => `[d${i}]`).join('')}amix=inputs=${placed.length + 1}:normalize=0:duration=first[a]`;
  const video = enc === 'mp4' ? ['-f', 'lavfi', '-i', `testsrc=size=160x120:rate=5:duration=${seconds}`] : [];
  const maps =
    enc === 'mp4'
      ? [
          '-map',
          `${placed.length + 1}:v`,
          '-map',
          '[a]',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-pix_fmt',
          'yuv420p',
          '-c:a',
          'aac',
          '-b:a',
          '64k',
        ]
      : ['-map', '[a]'];
  const codec = enc === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '48k'] : enc === 'wav' ? ['-c:a', 'pcm_s16le'] : [];
  execFileSync('mkdir', ['-p', MEDIA_DIR]);
  const tmp = `${path}.${process.pid}.tmp.${enc}`;
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    ...inputs,
    ...video,
    '-filter_complex',
    [...delays, mix].join(';'),
    ...maps,
    ...codec,
    '-ac',
    '1',
    '-ar',
    '16000',
    '-t',
    String(seconds),
    tmp,
  ]);
  execFileSync('mv', [tmp, path]);
  return { path, placed, seconds };
}
