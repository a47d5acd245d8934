/**
 * Reading seconds of the 16-bit PCM WAV that extractAudio writes (services/intelligence/media/pcm.ts):
 * block by block, every sample once, in order, and no further than the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPcm } from '../../../../services/intelligence/media';

const RATE = 16000;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mi-pcm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A WAV of `seconds` whose sample i is (i mod 65536) − 32768, after a 44-byte header. */
function wav(seconds: number, extraBytes = 0): string {
  const n = Math.round(seconds * RATE);
  const data = Buffer.alloc(44 + 2 * n + extraBytes);
  for (let i = 0; i < n; i++) data.writeInt16LE((i % 65536) - 32768, 44 + 2 * i);
  const path = join(dir, `${seconds}-${extraBytes}.wav`);
  writeFileSync(path, data);
  return path;
}
const expected = (i: number) => ((i % 65536) - 32768) / 32768;

describe('readPcm', () => {
  it('reads every sample of a span longer than one block, in order, as floats in [-1, 1)', async () => {
    const path = wav(20);
    const samples = await readPcm(path, 2.5, 17.25);
    expect(samples).toHaveLength(Math.round(14.75 * RATE));
    const first = 2.5 * RATE;
    for (const i of [0, 1, 65535, 65536, 65537, samples.length - 1])
      expect(samples[i]).toBeCloseTo(expected(first + i), 6);
    let ordered = true;
    for (let i = 1; i < samples.length; i++)
      if ((first + i) % 65536 !== 0 && samples[i] <= samples[i - 1]) ordered = false;
    expect(ordered).toBe(true);
    expect(Math.min(...samples.subarray(0, 70000))).toBe(-1);
  });

  it('stops at the end of the file, drops a trailing half sample, and reads nothing past it', async () => {
    const path = wav(3, 1);
    const tail = await readPcm(path, 2, 10);
    expect(tail).toHaveLength(RATE);
    expect(tail[RATE - 1]).toBeCloseTo(expected(3 * RATE - 1), 6);
    expect(await readPcm(path, 5, 6)).toHaveLength(0);
    expect(await readPcm(path, 0, 0)).toHaveLength(0);
  });
});
