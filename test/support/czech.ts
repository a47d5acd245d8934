/**
 * Real Czech speech with its text, from Debian packages: the voices of the game Fish Fillets NG
 * (`fillets-ng-data-cs`: one Ogg clip per line, /usr/share/games/fillets-ng/sound/<level>/cs/) and
 * their lines (`fillets-ng-data`: dialogs_cs.lua of each level, `dialogId("<clip>", …)` followed by
 * `dialogStr("<Czech text>")`). Acted dialogue of two voices; GPL-2 game data, test input only.
 *
 * A level's clips, in the order of its lines, joined with a short silence between them, make a
 * recording with a reference; the character error rate compares lower-cased letters and digits.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MEDIA_DIR } from './media';
import { MODELS_DIR } from './speech';

export const FILLETS_DIR = '/usr/share/games/fillets-ng';
export const WHISPER_DIR = join(MODELS_DIR, 'whisper-base');
const SAMPLE_RATE = 16_000;
const GAP_SECONDS = 0.6;

/** Fails with what to install when the Czech speech or the multilingual model is missing. */
export function requireCzechData(): void {
  if (!existsSync(join(FILLETS_DIR, 'script', 'briefcase', 'dialogs_cs.lua')))
    throw new Error(`${FILLETS_DIR}/script is missing: install the Debian package \`fillets-ng-data\``);
  if (!existsSync(join(FILLETS_DIR, 'sound', 'briefcase', 'cs')))
    throw new Error(`${FILLETS_DIR}/sound/*/cs is missing: install the Debian package \`fillets-ng-data-cs\``);
  if (!existsSync(join(WHISPER_DIR, 'model.json')))
    throw new Error('the multilingual speech model is missing: run `make models-multilingual`');
}

export interface CzechLine {
  clip: string;
  text: string;
}

/** The level's lines that have a Czech clip, in the order of dialogs_cs.lua. */
export function czechLines(level: string): CzechLine[] {
  const lua = readFileSync(join(FILLETS_DIR, 'script', level, 'dialogs_cs.lua'), 'utf8');
  const out: CzechLine[] = [];
  for (const m of lua.matchAll(/dialogId\("([^"]+)"[^\n]*\)\s*dialogStr\("((?:[^"\\]|\\.)*)"\)/g)) {
    if (existsSync(join(FILLETS_DIR, 'sound', level, 'cs', `${m[1]}.ogg`))) out.push({ clip: m[1], text: m[2] });
  }
  return out;
}

function clipSamples(level: string, clip: string): Float32Array {
  const raw = execFileSync(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-i', join(FILLETS_DIR, 'sound', level, 'cs', `${clip}.ogg`)].concat([
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(SAMPLE_RATE),
      '-',
    ]),
    { maxBuffer: 1 << 28 },
  );
  return Float32Array.from(new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1), (x) => x / 32768);
}

export interface CzechRecording {
  samples: Float32Array;
  reference: string;
  seconds: number;
  lines: number;
}

/** A level's clips joined (a silence between them) up to `maxSeconds`, with the lines they say. */
export function czechRecording(level: string, maxSeconds: number): CzechRecording {
  const gap = new Float32Array(Math.round(GAP_SECONDS * SAMPLE_RATE));
  const parts: Float32Array[] = [];
  const text: string[] = [];
  let n = 0;
  for (const line of czechLines(level)) {
    const clip = clipSamples(level, line.clip);
    if ((n + clip.length + gap.length) / SAMPLE_RATE > maxSeconds) break;
    parts.push(gap, clip);
    text.push(line.text);
    n += clip.length + gap.length;
  }
  const samples = new Float32Array(n + gap.length);
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  return { samples, reference: text.join(' '), seconds: samples.length / SAMPLE_RATE, lines: text.length };
}

/** The recording as a 16 kHz mono WAV in the test media folder (ffmpeg encodes other forms from it). */
export function czechWav(
  level: string,
  maxSeconds: number,
  enc: 'wav' | 'mp3' = 'wav',
): { path: string; rec: CzechRecording } {
  const rec = czechRecording(level, maxSeconds);
  mkdirSync(MEDIA_DIR, { recursive: true });
  const wav = join(MEDIA_DIR, `czech-${level}-${maxSeconds}.wav`);
  const header = Buffer.alloc(44);
  const data = Buffer.alloc(rec.samples.length * 2);
  rec.samples.forEach((x, i) => data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x * 32768))), i * 2));
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(wav, Buffer.concat([header, data]));
  if (enc === 'wav') return { path: wav, rec };
  const mp3 = wav.replace(/\.wav$/, '.mp3');
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', wav, '-c:a', 'libmp3lame', '-b:a', '48k', mp3]);
  return { path: mp3, rec };
}

/** Lower-cased letters and digits with single spaces: what the character error rate compares. */
export function normaliseCzech(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Character error rate: edit distance over the reference's length, both normalised. */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const r = [...normaliseCzech(reference)];
  const h = [...normaliseCzech(hypothesis)];
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return r.length === 0 ? 0 : prev[h.length] / r.length;
}
