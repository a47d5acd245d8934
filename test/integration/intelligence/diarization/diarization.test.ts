/**
 * Diarization with the committed models (services/intelligence/diarization) on real data: pyannote's
 * telephone sample against its reference RTTM (cached by `make models` in .models/testdata,
 * never downloaded here) and espeak-ng conversations of two to four voices with known turns. The
 * conversations use a seed the clustering threshold was not tuned on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assignSpeakers,
  diarize,
  linkSpeakers,
  readWave,
  speakerEmbeddings,
  SPEAKER_LINK_THRESHOLD,
  type KnownVoice,
  type SpeakerTurn,
} from '../../../../services/intelligence/diarization';
import { espeakConversation } from '../../../support/conversations';
import { diarizationErrorRate, parseRttm, type Turn } from '../../../support/der';
import { PYANNOTE_DIR } from '../../../support/speech';

jest.setTimeout(600_000);

const DATA = PYANNOTE_DIR;
const TEST_SEED = 11;

function sample(): { wav: string; reference: Turn[] } {
  const wav = join(DATA, 'sample.wav');
  if (!existsSync(wav)) throw new Error(`${wav} is missing: run make models`);
  return { wav, reference: parseRttm(readFileSync(join(DATA, 'sample.rttm'), 'utf8')) };
}

const named = (turns: SpeakerTurn[]): Turn[] =>
  turns.map((t) => ({ start: t.start, end: t.end, speaker: `s${t.speaker}` }));
const speakers = (turns: SpeakerTurn[]) => new Set(turns.map((t) => t.speaker)).size;

describe('diarize', () => {
  it("finds the two speakers of pyannote's sample within 25 % DER, or one when told there is one", () => {
    const { wav, reference } = sample();
    const audio = readWave(wav);
    const turns = diarize(audio);
    expect(speakers(turns)).toBe(2);
    expect(diarizationErrorRate(reference, named(turns)).der).toBeLessThanOrEqual(0.25);
    // Speakers are numbered in order of first appearance, turns sorted by start.
    expect(turns[0].speaker).toBe(0);
    for (let i = 1; i < turns.length; i++) expect(turns[i].start).toBeGreaterThanOrEqual(turns[i - 1].start);
    expect(speakers(diarize(audio, { speakerCount: 1 }))).toBe(1);
  });

  it.each([2, 3, 4])('finds the %i voices of an espeak-ng conversation within 15 %% DER', (n) => {
    const conversation = espeakConversation(n, TEST_SEED);
    const turns = diarize(readWave(conversation.wav));
    expect(speakers(turns)).toBe(n);
    const score = diarizationErrorRate(conversation.turns, named(turns));
    expect(score.der).toBeLessThanOrEqual(0.15);

    // Each sentence (here: each reference turn, as a recognizer would time it) takes the right voice.
    const said = assignSpeakers(
      conversation.turns.map((t) => ({ start_time: t.start, end_time: t.end })),
      turns,
    );
    const right = conversation.turns.filter((t, i) => score.mapping.get(t.speaker) === `s${said[i]}`).length;
    expect(right / conversation.turns.length).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps one voice one label across chunks diarized separately, by linking their voice embeddings', () => {
    const conversation = espeakConversation(3, TEST_SEED);
    const audio = readWave(conversation.wav);
    // Three chunks cut in the pauses after turns 5 and 11 (no voice is cut in two).
    const cuts = [
      0,
      ...[5, 11].map((i) => (conversation.turns[i].end + conversation.turns[i + 1].start) / 2),
      audio.samples.length / audio.sampleRate,
    ];
    let known: KnownVoice[] = [];
    const all: SpeakerTurn[] = [];
    for (let c = 0; c + 1 < cuts.length; c++) {
      const from = Math.round(cuts[c] * audio.sampleRate);
      const chunk = {
        samples: audio.samples.slice(from, Math.round(cuts[c + 1] * audio.sampleRate)),
        sampleRate: audio.sampleRate,
      };
      const turns = diarize(chunk);
      const linked = linkSpeakers(known, speakerEmbeddings(chunk, turns), SPEAKER_LINK_THRESHOLD);
      known = linked.known;
      for (const t of turns)
        all.push({ start: t.start + cuts[c], end: t.end + cuts[c], speaker: linked.mapping.get(t.speaker)! });
    }
    expect(speakers(all)).toBe(3);
    expect(diarizationErrorRate(conversation.turns, named(all)).der).toBeLessThanOrEqual(0.15);
  });

  it('re-clusters to maxSpeakers when the estimate exceeds it, and keeps an estimate within it', () => {
    const audio = readWave(espeakConversation(3, TEST_SEED).wav);
    expect(speakers(diarize(audio, { maxSpeakers: 2 }))).toBe(2);
    expect(speakers(diarize(audio, { maxSpeakers: 3 }))).toBe(3);
  });

  it('rejects bad input naming the field and the rule, and accepts the limits themselves', () => {
    const silence = { samples: new Float32Array(0), sampleRate: 16000 };
    expect(() => diarize({ samples: new Float32Array(16), sampleRate: 8000 })).toThrow(
      'sampleRate: must be 16000 (resample first), got 8000',
    );
    expect(() => diarize({ samples: [0, 0] as unknown as Float32Array, sampleRate: 16000 })).toThrow(
      'samples: must be a Float32Array',
    );
    expect(() => diarize(silence, { speakerCount: 0 })).toThrow('speakerCount: must be an integer from 1 to 50, got 0');
    expect(() => diarize(silence, { speakerCount: 51 })).toThrow(
      'speakerCount: must be an integer from 1 to 50, got 51',
    );
    expect(() => diarize(silence, { maxSpeakers: 2.5 })).toThrow(
      'maxSpeakers: must be an integer from 1 to 50, got 2.5',
    );
    expect(() => diarize(silence, { threshold: 0 })).toThrow(
      'threshold: must be a cosine distance between 0 and 2, got 0',
    );
    expect(diarize(silence, { speakerCount: 1 })).toEqual([]);
    expect(diarize(silence, { speakerCount: 50, maxSpeakers: 50 })).toEqual([]);
  });
});
