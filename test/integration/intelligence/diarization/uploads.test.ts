/**
 * Diarization wired in end to end: espeak-ng conversations with known turns uploaded through GraphQL's
 * uploadAudio, transcribed by the embedded engine and diarized by the worker through Temporal, read back
 * with MCP's svc_get_transcript. A one-channel recording comes back with one label per voice, each
 * sentence with the voice that said it; speaker_count is obeyed; a recording cut into several chunks
 * keeps each voice one label; a two-channel recording split by channel keeps its channel labels.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpHarness, startMcp } from '../../../support/mcp';
import { waitForRun } from '../../../support/worker';
import { UPLOAD_AUDIO } from '../../../support/graphql';
import { espeakConversation, wavFile, type Conversation } from '../../../support/conversations';
import { wavSamples } from '../../../support/speech';
import { requireMediaTools } from '../../../support/media';
import type { Turn } from '../../../support/der';
import { RecordingRig, startRecordingRig } from '../../core/ingest/rig';

requireMediaTools();

const SEED = 11;
/** Chunks of at most 40 s: the 18-turn conversation (about 90 s) is cut in three, a 6-turn one is not. */
const ENV = {
  ASR_URL: '',
  DIARIZATION: 'auto',
  ASR_CHUNK_MAX_SECONDS: '40',
  ASR_CHUNK_CONCURRENCY: '2',
  SPEECH_RECOGNIZERS: '1',
};

interface Said {
  speaker_name: string;
  start_time: number;
  end_time: number;
}

/** The reference voice of each sentence: the turn it overlaps most (null: none). */
function voiceOf(s: Said, turns: Turn[]): string | null {
  let best: { voice: string; shared: number } | null = null;
  for (const t of turns) {
    const shared = Math.min(s.end_time, t.end) - Math.max(s.start_time, t.start);
    if (shared > 0 && (!best || shared > best.shared)) best = { voice: t.speaker, shared };
  }
  return best?.voice ?? null;
}

/**
 * Per-sentence speaker accuracy: each label stands for the voice most of its sentences were said by;
 * the share of sentences whose label stands for their own voice. Also the labels and the voices they
 * stand for, to check the mapping is one to one.
 */
function speakerAccuracy(sentences: Said[], turns: Turn[]): { accuracy: number; labels: string[]; voices: string[] } {
  const counted = sentences
    .map((s) => ({ label: s.speaker_name, voice: voiceOf(s, turns) }))
    .filter((x) => x.voice !== null);
  const votes = new Map<string, Map<string, number>>();
  for (const { label, voice } of counted) {
    const v = votes.get(label) ?? new Map<string, number>();
    v.set(voice!, (v.get(voice!) ?? 0) + 1);
    votes.set(label, v);
  }
  const stands = new Map([...votes].map(([label, v]) => [label, [...v].sort((a, b) => b[1] - a[1])[0][0]]));
  const right = counted.filter((x) => stands.get(x.label) === x.voice).length;
  return { accuracy: right / counted.length, labels: [...stands.keys()], voices: [...stands.values()] };
}

/** Left channel: the first voice's turns; right: the second's (a call recorded one person a side). */
function stereoOf(c: Conversation, path: string): void {
  const mono = wavSamples(c.wav);
  const rate = 16000;
  const pcm = new Int16Array(mono.length * 2);
  for (const t of c.turns) {
    const side = t.speaker === c.turns[0].speaker ? 0 : 1;
    for (let i = Math.floor(t.start * rate); i < Math.min(mono.length, Math.ceil(t.end * rate)); i++) {
      pcm[i * 2 + side] = Math.max(-32768, Math.min(32767, Math.round(mono[i] * 32768)));
    }
  }
  writeFileSync(path, wavFile(pcm, 2));
}

describe('speakers of uploaded recordings', () => {
  let rig: RecordingRig;
  let mcp: McpHarness;

  beforeAll(async () => {
    rig = await startRecordingRig({ queue: 'diarized-uploads', ownerName: 'Dora Rise', workerEnv: ENV });
    mcp = await startMcp(rig.t.db);
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await rig?.close();
  });

  async function transcribed(
    c: Conversation | string,
    input: Record<string, unknown>,
  ): Promise<{ id: string; sentences: Said[] }> {
    const path = typeof c === 'string' ? c : c.wav;
    const url = rig.media.serve(`/${input.title as string}.wav`.replace(/\s+/g, '-'), {
      body: readFileSync(path),
      contentType: 'audio/wav',
    });
    const id = await rig.upload({ url, ...input });
    expect(await waitForRun(rig.gql.temporal, id, 240_000)).toMatchObject({ status: 'completed' });
    const res = await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(res.isError).toBe(false);
    return { id, sentences: res.data.sentences as Said[] };
  }

  it('gives a one-channel recording of three voices three speakers, each sentence the voice that said it', async () => {
    const c = espeakConversation(3, SEED, 6);
    // One chunk (under ASR_CHUNK_MAX_SECONDS): nothing to link.
    expect(c.duration).toBeLessThan(40);
    const { sentences } = await transcribed(c, { title: 'Three voices' });
    const { accuracy, labels, voices } = speakerAccuracy(sentences, c.turns);
    expect(labels.sort()).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 3']);
    expect(new Set(voices).size).toBe(3);
    expect(accuracy).toBeGreaterThanOrEqual(0.9);
    // The first voice heard is Speaker 1.
    expect(sentences[0].speaker_name).toBe('Speaker 1');
  }, 300_000);

  it.each([0, 51])('refuses speaker_count %i at uploadAudio, naming the field and the rule', async (n) => {
    const res = await rig.gql.request(rig.owner.key, UPLOAD_AUDIO, {
      input: { url: 'https://media.example.com/call.mp3', speaker_count: n },
    });
    expect(res.body.data?.uploadAudio ?? null).toBeNull();
    const [error] = res.body.errors!;
    expect(error.message).toBe(`input.speaker_count must be an integer from 1 to 50 (how many people speak); got ${n}`);
    expect(error.extensions).toMatchObject({
      field: expect.stringMatching(/speaker_count$/),
      rule: 'an integer from 1 to 50',
    });
  });

  it('finds as many speakers as speaker_count says', async () => {
    const c = espeakConversation(3, SEED, 6);
    const { sentences } = await transcribed(c, { title: 'Told two', speaker_count: 2 });
    expect(new Set(sentences.map((s) => s.speaker_name)).size).toBe(2);
  }, 300_000);

  it('keeps each voice one label across the chunks of a longer recording', async () => {
    const c = espeakConversation(3, SEED);
    // Over twice ASR_CHUNK_MAX_SECONDS: at least three chunks.
    expect(c.duration).toBeGreaterThan(80);
    const { sentences } = await transcribed(c, { title: 'Three voices in chunks' });
    const { accuracy, labels, voices } = speakerAccuracy(sentences, c.turns);
    expect(labels).toHaveLength(3);
    expect(new Set(voices).size).toBe(3);
    expect(accuracy).toBeGreaterThanOrEqual(0.9);
    // Every voice speaks in more than one chunk (cuts near 40 and 80 s), under one label.
    for (const voice of new Set(c.turns.map((t) => t.speaker))) {
      const own = sentences.filter((s) => voiceOf(s, c.turns) === voice);
      const spread = Math.max(...own.map((s) => s.start_time)) - Math.min(...own.map((s) => s.start_time));
      expect(spread).toBeGreaterThan(40);
    }
  }, 300_000);

  it('labels a two-channel recording split by channel with its channel names, not diarized ones', async () => {
    const c = espeakConversation(2, SEED, 6);
    const path = join(tmpdir(), `mi-diarize-stereo-${process.pid}.wav`);
    stereoOf(c, path);
    const first = c.turns[0].speaker;
    const { sentences } = await transcribed(path, {
      title: 'Two sides',
      split_channels: true,
      speaker_names: ['Left Person', 'Right Person'],
    });
    expect(new Set(sentences.map((s) => s.speaker_name))).toEqual(new Set(['Left Person', 'Right Person']));
    for (const s of sentences) {
      const voice = voiceOf(s, c.turns);
      if (voice) expect(s.speaker_name).toBe(voice === first ? 'Left Person' : 'Right Person');
    }
  }, 300_000);
});
