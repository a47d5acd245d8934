/**
 * Conversations of two to four synthetic voices with known speaker turns, for scoring diarization: each
 * turn is one sentence spoken by Debian's espeak-ng in that speaker's voice (variant, pitch, speed),
 * resampled to 16 kHz by ffmpeg, trimmed of its leading and trailing silence (so the reference turn is
 * exactly the sound), and laid after the previous turn with a pause. The voices take turns in an order
 * drawn from the seed (never the same voice twice in a row), so the same (speakers, seed) always gives
 * the same recording and reference.
 *
 * Made on demand and cached in a temporary directory keyed by the recipe's version, as media.ts does.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrng } from './synthetic';
import type { Turn } from './der';
import { requireMediaTools } from './media';

const RECIPE = 'v3';
const CACHE = join(tmpdir(), `mi-test-conversations-${RECIPE}`);
const RATE = 16000;

/**
 * Four voices a speaker-embedding model tells apart: among some twenty espeak-ng variants, pitches and
 * speeds, the four whose CAM++ embeddings are least alike across voices while staying alike within a
 * voice (two male and two female variants).
 */
export const VOICES = [
  { name: 'alex', args: ['-v', 'en-us+croak', '-s', '160'] },
  { name: 'bea', args: ['-v', 'en-us+f5', '-p', '90', '-s', '175'] },
  { name: 'cal', args: ['-v', 'en-us+Diogo', '-s', '150'] },
  { name: 'dora', args: ['-v', 'en-us+klatt', '-p', '80', '-s', '165'] },
] as const;

const SENTENCES = [
  'Good morning everyone, thanks for joining the weekly pipeline review.',
  'Can we start with the renewal for the northern region before we look at new deals?',
  'I will send the revised quote to their finance team by Friday afternoon.',
  'The customer asked for a longer trial because their security review is still open.',
  'Our support backlog went down by a third since we moved the queue to the new tool.',
  'I think we should hold the price and offer a faster onboarding plan instead.',
  'Marketing wants two case studies from this quarter, ideally from the retail accounts.',
  'Who owns the follow up with the procurement office in Denver?',
  'The migration finished on Tuesday night and nobody reported any missing data.',
  'Let us keep the launch date, but cut the reporting feature from the first release.',
  'I spoke to their engineering lead and they are happy with the integration so far.',
  'We still need a signed order form before legal can start the contract review.',
  'Hiring is on track, we have two offers out and one more final interview next week.',
  'Please add the budget numbers to the shared sheet before the board meeting.',
  'The demo crashed once yesterday, so I want a second rehearsal on Thursday morning.',
  'That sounds reasonable to me, as long as the support team agrees with the timeline.',
  'We lost the deal in Lisbon because the competitor bundled training for free.',
  'My suggestion is to review the forecast every Monday instead of every other week.',
  'The new pricing page went live and sign ups are up compared with last month.',
  'Before we close, does anyone have a risk we have not talked about today?',
];

export interface Conversation {
  /** A 16 kHz mono 16-bit WAV file. */
  wav: string;
  /** Reference turns, speakers named after VOICES. */
  turns: Turn[];
  duration: number;
}

function synthesize(args: readonly string[], text: string): Int16Array {
  const wav = execFileSync('espeak-ng', [...args, '--stdout', text], { maxBuffer: 64 * 1024 * 1024 });
  const pcm = execFileSync(
    'ffmpeg',
    [
      '-nostdin',
      '-hide_banner',
      '-v',
      'error',
      '-i',
      'pipe:0',
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(RATE),
      'pipe:1',
    ],
    {
      input: wav,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
  // Trim what is quieter than about -40 dBFS at either end: the turn is the sound, not espeak's padding.
  const loud = (s: number) => Math.abs(s) > 328;
  let a = 0;
  while (a < samples.length && !loud(samples[a])) a++;
  let b = samples.length;
  while (b > a && !loud(samples[b - 1])) b--;
  return samples.slice(a, b);
}

/** A 16 kHz 16-bit PCM WAV file of `samples` (interleaved when `channels` is more than one). */
export function wavFile(samples: Int16Array, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2 * channels, 28);
  header.writeUInt16LE(2 * channels, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.byteLength, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}

/**
 * A conversation of `speakers` voices (the first `speakers` of VOICES) over `turnCount` turns, pauses of
 * 0.3 to 1.2 s between turns and at least a second of silence at each end.
 */
export function espeakConversation(speakers: number, seed: number, turnCount = 18): Conversation {
  if (!Number.isInteger(speakers) || speakers < 2 || speakers > VOICES.length)
    throw new Error(`speakers: an integer from 2 to ${VOICES.length}, got ${speakers}`);
  const base = join(CACHE, `conversation-${speakers}-${seed}-${turnCount}`);
  if (existsSync(`${base}.json`)) return JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Conversation;
  requireMediaTools();
  mkdirSync(CACHE, { recursive: true });
  const random = createPrng(seed * 7919 + speakers);
  const parts: Int16Array[] = [];
  const turns: Turn[] = [];
  const silence = (n: number) => parts.push(new Int16Array(n));
  silence(RATE);
  let t = RATE;
  let previous = -1;
  const order = [...SENTENCES.keys()].sort(() => random() - 0.5);
  for (let i = 0; i < turnCount; i++) {
    // Every voice speaks in the first `speakers` turns, then any voice but the one that just spoke.
    let who = i < speakers ? i : Math.floor(random() * (speakers - 1));
    if (i >= speakers && who >= previous) who++;
    previous = who;
    const voice = VOICES[who];
    const audio = synthesize(voice.args, SENTENCES[order[i % order.length]]);
    turns.push({ start: t / RATE, end: (t + audio.length) / RATE, speaker: voice.name });
    parts.push(audio);
    t += audio.length;
    const pause = Math.round(RATE * (0.3 + 0.9 * random()));
    silence(pause);
    t += pause;
  }
  silence(RATE);
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const conversation: Conversation = { wav: `${base}.wav`, turns, duration: all.length / RATE };
  const tmp = `${base}.${process.pid}.tmp`;
  writeFileSync(tmp, wavFile(all));
  renameSync(tmp, `${base}.wav`);
  writeFileSync(tmp, JSON.stringify(conversation));
  renameSync(tmp, `${base}.json`);
  return conversation;
}

/**
 * `lines` said in turn by the first two voices, 0.8 s apart, as one 16 kHz mono WAV (cached): each
 * turn with its words and where it is, for tests that find a moment by what was said.
 */
export function espeakScript(
  name: string,
  lines: readonly string[],
): { wav: string; turns: (Turn & { text: string })[] } {
  const digest = createHash('sha256').update(JSON.stringify(lines)).digest('hex').slice(0, 12);
  const base = join(CACHE, `script-${name}-${digest}`);
  if (existsSync(`${base}.json`)) return JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  requireMediaTools();
  mkdirSync(CACHE, { recursive: true });
  const gap = new Int16Array(Math.round(RATE * 0.8));
  const parts: Int16Array[] = [new Int16Array(RATE)];
  const turns: (Turn & { text: string })[] = [];
  let t = RATE;
  lines.forEach((text, i) => {
    const voice = VOICES[i % 2];
    const audio = synthesize(voice.args, text);
    turns.push({ start: t / RATE, end: (t + audio.length) / RATE, speaker: voice.name, text });
    parts.push(audio, gap);
    t += audio.length + gap.length;
  });
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const script = { wav: `${base}.wav`, turns };
  const tmp = `${base}.${process.pid}.tmp`;
  writeFileSync(tmp, wavFile(all));
  renameSync(tmp, `${base}.wav`);
  writeFileSync(tmp, JSON.stringify(script));
  renameSync(tmp, `${base}.json`);
  return script;
}
