/** Real speech for the benches: the LibriVox utterances of Debian's pocketsphinx-testdata, looped. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MEDIA_DIR } from '../support/media';
import { librivox } from '../support/speech';

/** `seconds` of the LibriVox utterances looped with pauses, as 16 kHz WAV and as the mp3 uploaded. */
export function speechAudio(seconds: number): { wav: string; mp3: string } {
  mkdirSync(MEDIA_DIR, { recursive: true });
  const mp3 = join(MEDIA_DIR, `speech-loop-${seconds}.mp3`);
  const wav = join(MEDIA_DIR, `speech-loop-${seconds}.wav`);
  if (!existsSync(mp3)) {
    const inputs = librivox().flatMap((u) => ['-i', u.path]);
    const n = librivox().length;
    const pads = Array.from({ length: n }, (_, i) => `[${i}]aresample=16000,apad=pad_dur=1.2[p${i}]`).join(';');
    const once = join(MEDIA_DIR, 'speech-once.wav');
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-y',
      ...inputs,
      '-filter_complex',
      `${pads};${Array.from({ length: n }, (_, i) => `[p${i}]`).join('')}concat=n=${n}:v=0:a=1[a]`,
      '-map',
      '[a]',
      '-ac',
      '1',
      '-ar',
      '16000',
      once,
    ]);
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-stream_loop',
      '-1',
      '-i',
      once,
      '-t',
      String(seconds),
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '48k',
      `${mp3}.tmp.mp3`,
    ]);
    execFileSync('mv', [`${mp3}.tmp.mp3`, mp3]);
  }
  // What the pipeline hears: the mp3 decoded, as extractAudio does.
  if (!existsSync(wav))
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-i',
      mp3,
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'pcm_s16le',
      '-map_metadata',
      '-1',
      '-fflags',
      '+bitexact',
      '-flags:a',
      '+bitexact',
      wav,
    ]);
  return { wav, mp3 };
}
