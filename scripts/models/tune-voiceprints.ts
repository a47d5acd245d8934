/**
 * Measures what the voiceprint threshold must separate: the cosine similarity of speaker embeddings
 * (CAM++) of the same voice saying other words in another recording, and of different voices, over the
 * test set of test/support/voices.ts (real recordings and espeak-ng conversations of the tuning seeds,
 * not the tests'). Embeddings are computed as production does (diarized; chunked: recordings of a
 * minute or more cut in three chunks, speakers linked across them) and from the reference turns.
 * Prints, per class of pair, the count, least, greatest and mean similarity, then the closest pairs of
 * different voices and the least alike pairs of one voice. The figures go to docs/speakers.md.
 *
 *   npx tsx scripts/models/tune-voiceprints.ts [--seeds 1,2] [--how diarized,chunked,reference]
 */
import { parseArgs } from 'node:util';
import {
  MIXED,
  espeakRecording,
  realRecordings,
  recordingVoices,
  voicePairs,
  type EmbeddingWay,
  type VoicePair,
} from '../../test/support/voices';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2' },
    how: { type: 'string', default: 'diarized,chunked,reference' },
  },
});

const recordings = [...realRecordings(), ...values.seeds.split(',').map((seed) => espeakRecording(4, Number(seed)))];

const label = (p: VoicePair) =>
  `${p.a.voice} (${p.a.recording}) / ${p.b.voice} (${p.b.recording})  ${p.similarity.toFixed(3)}`;

function line(name: string, pairs: VoicePair[]): string {
  if (pairs.length === 0) return `  ${name.padEnd(40)} none\n`;
  const s = pairs.map((p) => p.similarity);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return (
    `  ${name.padEnd(40)} ${String(pairs.length).padStart(4)} pairs  min ${Math.min(...s).toFixed(3)}` +
    `  max ${Math.max(...s).toFixed(3)}  mean ${mean.toFixed(3)}\n`
  );
}

for (const how of values.how.split(',') as EmbeddingWay[]) {
  const samples = recordings.flatMap((r) =>
    recordingVoices(r, how === 'chunked' && r.audio.samples.length < 60 * r.audio.sampleRate ? 'diarized' : how),
  );
  const { same, different } = voicePairs(samples);
  const real = (p: VoicePair) => p.a.source === 'real' && p.b.source === 'real';
  const espeak = (p: VoicePair) => p.a.source === 'espeak' && p.b.source === 'espeak';
  const presumed = (p: VoicePair) => p.a.presumed || p.b.presumed;
  const mixed = samples.filter((s) => s.voice === MIXED).map((s) => s.recording);
  process.stdout.write(
    `${how}: ${samples.length} voice samples in ${recordings.length} recordings` +
      `${mixed.length ? `; mixed speakers left out: ${mixed.join(', ')}` : ''}\n`,
  );
  process.stdout.write(
    line(
      'same voice, real (documented)',
      same.filter((p) => real(p) && !presumed(p)),
    ),
  );
  process.stdout.write(
    line(
      'same voice, real (presumed)',
      same.filter((p) => real(p) && presumed(p)),
    ),
  );
  process.stdout.write(line('same voice, espeak-ng', same.filter(espeak)));
  process.stdout.write(line('different voices, real', different.filter(real)));
  process.stdout.write(
    line(
      'different voices, real (documented)',
      different.filter((p) => real(p) && !presumed(p)),
    ),
  );
  process.stdout.write(
    line(
      'different voices, real and espeak-ng',
      different.filter((p) => !real(p) && !espeak(p)),
    ),
  );
  process.stdout.write(line('different voices, espeak-ng', different.filter(espeak)));
  process.stdout.write(line('same voice, all', same));
  process.stdout.write(line('different voices, all', different));
  process.stdout.write('  closest different voices:\n');
  for (const p of [...different].sort((a, b) => b.similarity - a.similarity).slice(0, 5))
    process.stdout.write(`    ${label(p)}\n`);
  process.stdout.write('  least alike same voice:\n');
  for (const p of [...same].sort((a, b) => a.similarity - b.similarity).slice(0, 5))
    process.stdout.write(`    ${label(p)}\n`);
}
