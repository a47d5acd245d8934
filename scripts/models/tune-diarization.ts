/**
 * Tunes the diarization clustering threshold: runs sherpa-onnx's OfflineSpeakerDiarization with the
 * committed models over espeak-ng conversations of 2, 3 and 4 voices (tuning seeds, not the tests'),
 * and pyannote's sample when `make models` has cached it (.models/testdata), at each
 * threshold given, and prints DER (missed, false alarm, confusion in seconds), the number of speakers
 * found and CPU seconds per audio second (one thread). The figures go to docs/speakers.md.
 *
 *   npx tsx scripts/models/tune-diarization.ts [--thresholds 0.4,0.5,0.6] [--seeds 1,2] [--shifts 0.5,1]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DIARIZATION_WINDOW_SHIFT, diarize, readWave, type Audio } from '../../services/intelligence/diarization';
import { espeakConversation } from '../../test/support/conversations';
import { diarizationErrorRate, parseRttm, type Turn } from '../../test/support/der';

const { values } = parseArgs({
  options: {
    thresholds: { type: 'string', default: '0.4,0.5,0.6' },
    seeds: { type: 'string', default: '1,2' },
    shifts: { type: 'string', default: String(DIARIZATION_WINDOW_SHIFT) },
  },
});
const list = (s: string) => s.split(',').map(Number);

const cases: { name: string; audio: Audio; reference: Turn[] }[] = [];
for (const n of [2, 3, 4]) {
  for (const seed of list(values.seeds)) {
    const c = espeakConversation(n, seed);
    cases.push({ name: `espeak ${n} voices, seed ${seed}`, audio: readWave(c.wav), reference: c.turns });
  }
}
const data = join(__dirname, '..', '..', '.models', 'testdata', 'pyannote');
if (existsSync(join(data, 'sample.wav'))) {
  cases.push({
    name: 'pyannote sample.wav',
    audio: readWave(join(data, 'sample.wav')),
    reference: parseRttm(readFileSync(join(data, 'sample.rttm'), 'utf8')),
  });
}

for (const [windowShift, threshold] of list(values.shifts).flatMap((w) => list(values.thresholds).map((t) => [w, t]))) {
  for (const c of cases) {
    const before = process.cpuUsage();
    const turns = diarize(c.audio, { threshold, windowShift });
    const cpu = process.cpuUsage(before);
    const r = diarizationErrorRate(
      c.reference,
      turns.map((t) => ({ start: t.start, end: t.end, speaker: String(t.speaker) })),
    );
    const seconds = c.audio.samples.length / c.audio.sampleRate;
    process.stdout.write(
      `shift ${windowShift} threshold ${threshold}  ${c.name.padEnd(26)} speakers ${new Set(turns.map((t) => t.speaker)).size}  DER ${(100 * r.der).toFixed(1)} %` +
        `  (missed ${r.missed.toFixed(2)} s, false alarm ${r.falseAlarm.toFixed(2)} s, confusion ${r.confusion.toFixed(2)} s)` +
        `  ${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(3)} CPU-s/s\n`,
    );
  }
}
