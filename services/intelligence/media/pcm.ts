/**
 * Samples of the 16 kHz mono 16-bit PCM WAV that extractAudio writes (a plain 44-byte header), read
 * straight from the file: a chunk of a long recording is read without another ffmpeg process.
 */
import { open } from 'node:fs/promises';
import { ASR_SAMPLE_RATE, WAV_HEADER_BYTES } from './ffmpeg';

/**
 * The file is read a block at a time into one small buffer: a whole chunk's bytes read at once would be
 * garbage the size of half its samples, left to the garbage collector on every chunk.
 */
const BLOCK_BYTES = 1 << 17;

/** Seconds [start, end) of the WAV as floats in [-1, 1). */
export async function readPcm(path: string, start: number, end: number): Promise<Float32Array> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const from = WAV_HEADER_BYTES + 2 * Math.round(start * ASR_SAMPLE_RATE);
    const to = Math.min(size, WAV_HEADER_BYTES + 2 * Math.round(end * ASR_SAMPLE_RATE));
    const out = new Float32Array(Math.max(0, (to - from) >> 1));
    const block = Buffer.alloc(Math.min(BLOCK_BYTES, out.length * 2));
    const ints = new Int16Array(block.buffer, block.byteOffset, block.length >> 1);
    for (let done = 0; done < out.length;) {
      const want = Math.min(block.length, (out.length - done) * 2);
      const { bytesRead } = await file.read(block, 0, want, from + done * 2);
      const samples = bytesRead >> 1;
      if (samples === 0) return out.subarray(0, done);
      for (let i = 0; i < samples; i++) out[done + i] = ints[i] / 32768;
      done += samples;
    }
    return out;
  } finally {
    await file.close();
  }
}
