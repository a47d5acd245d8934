/**
 * The embedded engine end to end with no setting changed (no ASR_URL): real LibriVox speech placed at
 * known offsets over quiet noise, uploaded through GraphQL's uploadAudio as an mp4 with a video track
 * and as an mp3, transcribed by the worker through Temporal, found by svc_search over MCP with moments
 * within a second of where the words were said; meeting_info names the engine, model and language; an
 * upload whose language no configured model serves is refused at once, naming the settings.
 */
import { readFileSync } from 'node:fs';
import { McpHarness, startMcp } from '../../../support/mcp';
import { waitForRun } from '../../../support/worker';
import { placedRecording, requireSpeechData } from '../../../support/speech';
import { requireMediaTools } from '../../../support/media';
import { RecordingRig, startRecordingRig } from '../../core/ingest/rig';
import { UPLOAD_AUDIO } from '../../../support/graphql';

requireMediaTools();
requireSpeechData();

/** "dashwood" is said in 0870 (at 3 s), "selfish" in 0890 (at 24 s), "amiable" in 0930 (at 14 s). */
const PARTS = [
  { id: '0870', at: 3 },
  { id: '0930', at: 14 },
  { id: '0890', at: 24 },
];

describe('recordings transcribed by the embedded engine', () => {
  let rig: RecordingRig;
  let mcp: McpHarness;

  beforeAll(async () => {
    rig = await startRecordingRig({ queue: 'embedded', ownerName: 'Elinor Engine', workerEnv: { ASR_URL: '' } });
    mcp = await startMcp(rig.t.db);
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await rig?.close();
  });

  async function moment(word: string, meetingId: string) {
    const res = await mcp.call(rig.owner.key, 'svc_search', { query: `${word} scope:sentences`, format: 'json' });
    expect(res.isError).toBe(false);
    const found = (res.data.moments as { meeting_id: string; start_time: number; text: string }[]).filter(
      (m) => m.meeting_id === meetingId,
    );
    expect(found.length).toBeGreaterThan(0);
    return found[0];
  }

  it.each(['mp4', 'mp3'] as const)(
    'an %s of people speaking becomes a searchable transcript with times',
    async (enc) => {
      const rec = placedRecording(PARTS, 34, enc);
      const url = rig.media.serve(`/placed.${enc}`, {
        body: readFileSync(rec.path),
        contentType: enc === 'mp4' ? 'video/mp4' : 'audio/mpeg',
      });
      const id = await rig.upload({ url, title: `Placed ${enc}` });
      expect(await waitForRun(rig.gql.temporal, id, 120_000)).toMatchObject({ status: 'completed' });

      for (const [word, at] of [
        ['dashwood', 3],
        ['amiable', 14],
        ['selfish', 24],
      ] as const) {
        const m = await moment(word, id);
        expect(m.text.toLowerCase()).toContain(word);
        expect(Math.abs(m.start_time - at)).toBeLessThanOrEqual(1);
      }
      const info = await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
      // No multilingual model: nothing is detected, the English model's one language is the meeting's.
      expect(info.data.meeting_info.transcribed_by).toEqual({
        engine: 'embedded',
        model: 'moonshine-tiny-en',
        language: 'en',
        language_source: 'default',
      });
      // Nothing was heard in the noise before the first words.
      expect(info.data.sentences[0].start_time).toBeGreaterThan(2);
    },
    180_000,
  );

  it('refuses at once an upload in a language no configured model serves, naming the settings', async () => {
    const url = rig.media.serve('/placed-de.mp3', { body: Buffer.from('never fetched'), contentType: 'audio/mpeg' });
    for (const field of ['custom_language', 'language']) {
      const res = await rig.gql.request(rig.owner.key, UPLOAD_AUDIO, {
        input: { url, title: 'Auf Deutsch', [field]: 'de' },
      });
      expect(res.body.data?.uploadAudio ?? null).toBeNull();
      expect(res.body.errors?.[0].message).toMatch(
        new RegExp(
          `^input\\.${field}: no speech model here transcribes de; the models of SPEECH_MODEL and SPEECH_MODELS serve moonshine-tiny-en \\(en\\)`,
        ),
      );
    }
    // Nothing was stored or fetched.
    expect(await rig.t.db('meetings').where({ title: 'Auf Deutsch' }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(rig.media.hits('/placed-de.mp3')).toEqual([]);
    // A caption file is text: its language needs no speech model.
    const vtt = rig.media.serve('/de.vtt', {
      body: Buffer.from('WEBVTT\n\n00:00.000 --> 00:02.000\n<v Anna>Guten Morgen zusammen.\n'),
      contentType: 'text/vtt',
    });
    expect(await rig.upload({ url: vtt, title: 'Untertitel', custom_language: 'de' })).toMatch(/./);
  }, 90_000);
});
