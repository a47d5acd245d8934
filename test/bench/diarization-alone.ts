/**
 * A child of test/bench/diarization.bench.ts. `diarize`: diarization alone (the worker thread of
 * services/intelligence/diarization, as the worker runs it) over a 16 kHz mono WAV in chunks of
 * `chunkSeconds`, one after the other. `all`: every model a speech worker loads (Silero VAD, the
 * speech model with `recognizers` recognizers, default one, the diarization models), the WAV
 * transcribed and diarized chunk by chunk side by side as transcribeChunk does, every chunk at once as
 * a speech worker takes a recording's chunk activities: decoding waits for a free recognizer,
 * diarization for its thread, each reading the chunk's samples when its turn comes. Prints one JSON line: CPU and wall milliseconds of the
 * work (after the models are loaded; the process's CPU, worker thread included), the speakers found
 * and the process's peak RSS.
 *
 *   npx tsx test/bench/diarization-alone.ts <wav> <diarize|all> <chunkSeconds> [recognizers]
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddedEngine } from '../../services/intelligence/asr';
import { DIARIZATION_SAMPLE_RATE, diarizeInThread, withDiarizationSlot } from '../../services/intelligence/diarization';
import { readPcm } from '../../services/intelligence/media';

async function main() {
  const [wav, mode, chunkSeconds] = [process.argv[2], process.argv[3], Number(process.argv[4])];
  const recognizers = Number(process.argv[5] ?? 1);
  const seconds = (statSync(wav).size - 44) / 32_000;
  const engine =
    mode === 'all'
      ? await embeddedEngine({
          modelsDir: join(resolve(__dirname, '..', '..'), '.models'),
          model: 'moonshine-tiny-en',
          recognizers,
        })
      : undefined;
  // Load the diarization models before measuring (a second of silence).
  await diarizeInThread({ samples: new Float32Array(DIARIZATION_SAMPLE_RATE), sampleRate: DIARIZATION_SAMPLE_RATE });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let speakers = 0;
  const starts: number[] = [];
  for (let s = 0; s < seconds; s += chunkSeconds) starts.push(s);
  const lane = async () => {
    for (let s = starts.shift(); s !== undefined; s = starts.shift()) {
      const read = () => readPcm(wav, s, Math.min(seconds, s + chunkSeconds));
      const [d] = await Promise.all([
        withDiarizationSlot(async () =>
          diarizeInThread({ samples: await read(), sampleRate: DIARIZATION_SAMPLE_RATE }),
        ),
        engine?.withSlot(async () => engine.transcribe(await read())),
      ]);
      speakers = Math.max(speakers, d.voices.size);
    }
  };
  await Promise.all(Array.from({ length: mode === 'all' ? starts.length : 1 }, lane));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  process.stdout.write(
    `${JSON.stringify({ seconds, cpuMs: (cpu.user + cpu.system) / 1000, wallMs, speakers, peakKb })}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
