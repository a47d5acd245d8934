/**
 * The baseline of test/bench/speech.bench.ts: the embedded engine alone (Silero VAD and sherpa-onnx,
 * nothing else) decoding a 16 kHz mono WAV in pieces of `chunkSeconds`, as many at once as the pool
 * has recognizers. Prints one JSON line: CPU and wall milliseconds of the decoding (after the model
 * is loaded), the words heard and the process's peak RSS.
 *
 *   npx tsx test/bench/speech-alone.ts <wav> <recognizers> <chunkSeconds>
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddedEngine } from '../../services/intelligence/asr';
import { readPcm } from '../../services/intelligence/media';

async function main() {
  const [wav, recognizers, chunkSeconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
  const engine = await embeddedEngine({
    modelsDir: join(resolve(__dirname, '..', '..'), '.models'),
    model: 'moonshine-tiny-en',
    recognizers,
  });
  const seconds = (statSync(wav).size - 44) / 32_000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const starts = Array.from({ length: Math.ceil(seconds / chunkSeconds) }, (_, i) => i * chunkSeconds);
  const parts = await Promise.all(
    starts.map((s) =>
      engine.withSlot(async () => engine.transcribe(await readPcm(wav, s, Math.min(seconds, s + chunkSeconds)))),
    ),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const words = parts.flat().reduce((n, seg) => n + seg.text.split(/\s+/).filter(Boolean).length, 0);
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  process.stdout.write(
    `${JSON.stringify({ seconds, cpuMs: (cpu.user + cpu.system) / 1000, wallMs, words, peakKb })}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
