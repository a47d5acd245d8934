/**
 * Samples of the 16 kHz mono 16-bit PCM WAV that extractAudio writes (a plain 44-byte header), read
 * straight from the file: a chunk of a long recording is read without another ffmpeg process.
 */
import { open } from 'node:fs/promises';
import { ASR_SAMPLE_RATE, WAV_HEADER_BYTES } from './ffmpeg';

/** Seconds [start, end) of the WAV as floats in [-1, 1). */
export async function readPcm(path: string, start: number, end: number): Promise<Float32Array> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const from = WAV_HEADER_BYTES + 2 * Math.round(start * ASR_SAMPLE_RATE);
    const to = Math.min(size, WAV_HEADER_BYTES + 2 * Math.round(end * ASR_SAMPLE_RATE));
    const bytes = Buffer.alloc(Math.max(0, to - from));
    if (bytes.length > 0) await file.read(bytes, 0, bytes.length, from);
    const ints = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
    const out = new Float32Array(ints.length);
    for (let i = 0; i < ints.length; i++) out[i] = ints[i] / 32768;
    return out;
  } finally {
    await file.close();
  }
}
