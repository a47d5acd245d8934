/**
 * One media preparation as the worker does it (services/intelligence/media): stream the download from
 * a URL to a file, ffprobe it, extract the audio as 16 kHz mono WAV with its silences (one ffmpeg pass),
 * probe the WAV and plan the chunks. Run by media.bench.ts in a process of its own (its peak RSS is this
 * process's); prints one JSON line.
 *
 * The clock starts where a running worker's would: after what the worker does once at start (its check
 * that ffmpeg and ffprobe run, services/worker/main.ts: 120 ms of two `-version` runs) and after the
 * file-type detector is loaded (an ESM import, once per process). Counted in, they made the first
 * preparation of a process 0.2 s slower than every later one.
 *
 *   npx tsx test/bench/media-prepare.ts <url> <work dir>
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { planChunks } from '../../services/intelligence/asr/chunks';
import {
  ASR_BYTES_PER_SECOND,
  extractAudio,
  probeMedia,
  requireFfmpeg,
  WAV_HEADER_BYTES,
} from '../../services/intelligence/media/ffmpeg';
import { fetchMediaToFile } from '../../services/intelligence/media/fetch';
import { sniffMedia } from '../../services/intelligence/media/sniff';

async function main() {
  const [url, dir] = process.argv.slice(2);
  const media = join(dir, 'media.bin');
  const audio = join(dir, 'audio.wav');
  requireFfmpeg();
  await sniffMedia(Buffer.from('RIFF\0\0\0\0WAVE'));
  const t0 = performance.now();
  const fetched = await fetchMediaToFile(
    url,
    { allowPrivateNetwork: true, media: { maxBytes: 2 * 1024 ** 3, fetchTimeoutMs: 600_000 } },
    media,
  );
  const t1 = performance.now();
  const probe = await probeMedia(media);
  const t2 = performance.now();
  const { silences } = await extractAudio(media, audio, { silences: true });
  // As the worker does (workflows/activities/chunks.ts): the plain 44-byte header, so the size says the duration.
  const audioSeconds = (statSync(audio).size - WAV_HEADER_BYTES) / ASR_BYTES_PER_SECOND;
  const t3 = performance.now();
  const chunks = planChunks(audioSeconds, silences, {
    maxSeconds: 600,
    maxBytes: 24 * 1024 * 1024,
    bytesPerSecond: ASR_BYTES_PER_SECOND,
    headerBytes: WAV_HEADER_BYTES,
    overlapSeconds: 1,
  });
  const t4 = performance.now();
  rmSync(media, { force: true });
  rmSync(audio, { force: true });
  const usage = process.resourceUsage();
  console.log(
    JSON.stringify({
      bytes: fetched.sizeBytes,
      kind: fetched.kind,
      durationSeconds: probe.durationSeconds,
      videoStreams: probe.videoStreams,
      chunks: chunks.length,
      silences: silences.length,
      ms: { download: t1 - t0, probe: t2 - t1, extract: t3 - t2, plan: t4 - t3, total: t4 - t0 },
      maxRssBytes: usage.maxRSS * 1024,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
