/**
 * Voiceprints end to end: espeak-ng conversations uploaded through GraphQL's uploadAudio, transcribed
 * and diarized by the worker through Temporal, read back over MCP. A speaker named once is named by
 * itself in the next recording of the same voice saying other words (meeting_info says how sure; the
 * name reaches analytics, search moments and the meeting page, and no embedding reaches an answer,
 * the page, the webhook or a log line), a voice never named is not; forgetting the profile, deleting a meeting and turning voiceprints off each
 * leave no embedding behind; with voiceprints off nothing is kept at all.
 */
import { readFileSync } from 'node:fs';
import { VOICEPRINT_THRESHOLD } from '../../../../services/intelligence/voiceprints';
import type { Conversation } from '../../../support/conversations';
import type { TestUser } from '../../../support/factory';
import { captureLogs } from '../../../support/logs';
import { requireMediaTools } from '../../../support/media';
import type { McpHarness } from '../../../support/mcp';
import { startWebhookReceiver, type WebhookReceiver } from '../../../support/webhook-receiver';
import { waitForRun } from '../../../support/worker';
import type { RecordingRig } from '../ingest/rig';
import { conversation, namesOf, startVoiceprintRig, type Said } from './conversations';

requireMediaTools();

describe('voiceprints through an upload', () => {
  let rig: RecordingRig;
  let mcp: McpHarness;
  let admin: TestUser;
  const meetings: string[] = [];

  let close: (() => Promise<void>) | undefined;
  let rx: WebhookReceiver;

  beforeAll(async () => {
    ({ rig, admin, mcp, close } = await startVoiceprintRig('voiceprints'));
    rx = await startWebhookReceiver();
  }, 120_000);
  afterAll(async () => {
    await rx?.close();
    await close?.();
  });

  async function transcribed(c: Conversation, title: string, input: Record<string, unknown> = {}) {
    const url = rig.media.serve(`/${title.replace(/\s+/g, '-')}.wav`, {
      body: readFileSync(c.wav),
      contentType: 'audio/wav',
    });
    const id = await rig.upload({ url, title, ...input });
    meetings.push(id);
    expect(await waitForRun(rig.gql.temporal, id, 240_000)).toMatchObject({ status: 'completed' });
    const res = await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(res.isError).toBe(false);
    return { id, text: res.text, data: res.data, sentences: res.data.sentences as Said[] };
  }

  const voicesOf = (meetingId: string) => rig.t.db('meeting_voices').where({ meeting_id: meetingId });

  it('keeps the voices of a team that turned voiceprints on, and enrols the voice a person names', async () => {
    expect((await mcp.call(admin.key, 'svc_set_voiceprints', { enabled: true })).isError).toBe(false);
    const c = conversation(11);
    const { id, sentences } = await transcribed(c, 'First call');
    const [alex] = [...namesOf(sentences, c.turns, 'alex')];
    expect(namesOf(sentences, c.turns, 'alex')).toEqual(new Set([alex]));
    expect(alex).toMatch(/^Speaker \d$/);
    expect((await voicesOf(id)).map((r) => r.speaker).sort()).toEqual(['Speaker 1', 'Speaker 2']);
    // The chunks' own embeddings (kept for linking and resuming) are gone once the transcript is saved.
    expect(await rig.t.db('transcript_chunks').where({ meeting_id: id })).toHaveLength(0);

    const renamed = await mcp.call(rig.owner.key, 'svc_rename_speaker', {
      meetingId: id,
      from: alex,
      to: 'Alex Doe',
      email: 'alex@example.test',
    });
    expect(renamed.isError).toBe(false);
    const listed = await mcp.call(rig.owner.key, 'svc_list_speaker_profiles', {});
    expect(listed.data.profiles).toEqual([
      expect.objectContaining({ name: 'Alex Doe', email: 'alex@example.test', voices: 1, meetings: 1 }),
    ]);
  }, 300_000);

  it('names the same voice in the next meeting by itself, says how sure, and names no other voice', async () => {
    const c = conversation(12);
    const logs = captureLogs('debug');
    let read: Awaited<ReturnType<typeof transcribed>>;
    try {
      read = await transcribed(c, 'Second call', { webhook: rx.url('/second-call') });
    } finally {
      logs.stop();
    }
    const { id, sentences, data, text } = read;
    expect(namesOf(sentences, c.turns, 'alex')).toEqual(new Set(['Alex Doe']));
    const bea = namesOf(sentences, c.turns, 'bea');
    expect(bea.size).toBe(1);
    expect([...bea][0]).toMatch(/^Speaker \d$/);
    const inferred = data.meeting_info.inferred_speakers as { speaker: string; confidence: number }[];
    expect(inferred).toEqual([{ speaker: 'Alex Doe', confidence: expect.any(Number) }]);
    expect(inferred[0].confidence).toBeGreaterThanOrEqual(VOICEPRINT_THRESHOLD);
    expect(inferred[0].confidence).toBeLessThanOrEqual(1);
    // The name reached what was made from the sentences: analytics (with the profile's email) and the audit.
    const analytics = await rig.t.db('speaker_analytics').where({ meeting_id: id }).orderBy('name');
    expect(analytics.map((a) => [a.name, a.email])).toEqual([
      ['Alex Doe', 'alex@example.test'],
      [[...bea][0], null],
    ]);
    const matched = await rig.t
      .db('audit_log')
      .where({ action: 'speaker_profile.matched', target_type: 'speaker_profile' });
    expect(matched.map((a) => a.details.meeting_id)).toEqual([id]);

    // No embedding in an answer or a log line: not the key, not a figure of the stored vector.
    const stored = (await voicesOf(id).first('embedding')).embedding as number[];
    const figure = String(stored.find((x) => Math.abs(x) > 0.01)).slice(0, 8);
    const profiles = await mcp.call(admin.key, 'svc_list_speaker_profiles', {});
    const info = await rig.gql.request(
      rig.owner.key,
      'query ($id: ID!) { transcript(id: $id) { meeting_info { inferred_speakers { speaker confidence } } } }',
      { id },
    );
    const res = await mcp.page(rig.owner, `/meetings/${id}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Alex Doe');
    const [hook] = await rx.waitFor('/second-call', 1, 60_000);
    expect(JSON.parse(hook.rawBody.toString())).toMatchObject({ meetingId: id });
    for (const answer of [text, profiles.text, JSON.stringify(info.body), page, hook.rawBody.toString()]) {
      expect(answer).not.toMatch(/embedding/i);
      expect(answer).not.toContain(figure);
    }
    // Search finds Alex's words as moments said by the name the voice was given.
    const own = new Set(
      (data.sentences as (Said & { text: string })[])
        .filter((s) => s.speaker_name !== 'Alex Doe')
        .flatMap((s) => s.text.toLowerCase().match(/[a-z]+/g) ?? []),
    );
    const word = (data.sentences as (Said & { text: string })[])
      .filter((s) => s.speaker_name === 'Alex Doe')
      .flatMap((s) => s.text.toLowerCase().match(/[a-z]{6,}/g) ?? [])
      // Search stems its words: no word the other voice says may share this one's first five letters.
      .find((w) => ![...own].some((o) => o.slice(0, 5) === w.slice(0, 5)));
    expect(word).toBeDefined();
    const found = await mcp.call(rig.owner.key, 'svc_search', { query: word!, format: 'json' });
    const moments = found.data.moments.filter((x: { meeting_id: string }) => x.meeting_id === id);
    expect(moments.length).toBeGreaterThan(0);
    for (const m of moments) expect(m.speaker_name).toBe('Alex Doe');
    expect(info.body.data?.transcript.meeting_info.inferred_speakers).toEqual(inferred);
    expect(logs.lines.length).toBeGreaterThan(0);
    const logged = logs.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(logged).not.toContain(figure);
    expect(logged).not.toMatch(/"embedding"/);

    // A person confirming the inferred name enrols the voice: the name is no longer listed as inferred.
    const confirmed = await mcp.call(rig.owner.key, 'svc_rename_speaker', {
      meetingId: id,
      from: 'Alex Doe',
      to: 'Alex Doe',
    });
    expect(confirmed.isError).toBe(false);
    const after = await mcp.call(rig.owner.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(after.data.meeting_info.inferred_speakers).toBeUndefined();
    expect((await mcp.call(admin.key, 'svc_list_speaker_profiles', {})).data.profiles).toEqual([
      expect.objectContaining({ name: 'Alex Doe', voices: 2, meetings: 2 }),
    ]);
  }, 300_000);

  it('forgets a profile: its voices go and the next recording of the voice is not named', async () => {
    const [profile] = (await mcp.call(admin.key, 'svc_list_speaker_profiles', {})).data.profiles;
    const forgot = await mcp.call(admin.key, 'svc_forget_speaker_profile', { id: profile.id });
    // The voices enrolled in the first and second calls.
    expect(forgot.data).toMatchObject({ success: true, name: 'Alex Doe', voices_deleted: 2 });
    expect(await rig.t.db('meeting_voices').whereNotNull('profile_id')).toHaveLength(0);
    expect(await rig.t.db('speaker_profiles')).toHaveLength(0);

    const c = conversation(13);
    const { sentences, data } = await transcribed(c, 'Third call');
    expect(sentences.every((s) => /^Speaker \d$/.test(s.speaker_name))).toBe(true);
    expect(data.meeting_info.inferred_speakers).toBeUndefined();
  }, 300_000);

  it("deletes a meeting's voices with it; turning voiceprints off deletes the rest and keeps nothing after", async () => {
    const [first] = meetings;
    expect((await voicesOf(first)).length).toBeGreaterThan(0);
    const deleted = await rig.gql.request(rig.owner.key, 'mutation ($id: ID!) { deleteMeeting(id: $id) { deleted } }', {
      id: first,
    });
    expect(deleted.body.errors).toBeUndefined();
    expect(await voicesOf(first)).toHaveLength(0);

    // A voice named again, so there is a profile to delete.
    const third = meetings[2];
    const label = (await voicesOf(third))[0].speaker as string;
    expect(
      (await mcp.call(rig.owner.key, 'svc_rename_speaker', { meetingId: third, from: label, to: 'Bea Roe' })).isError,
    ).toBe(false);
    const off = await mcp.call(admin.key, 'svc_set_voiceprints', { enabled: false });
    expect(off.data).toMatchObject({ enabled: false, profiles_deleted: 1 });
    expect(await rig.t.db('speaker_profiles')).toHaveLength(0);
    expect(await rig.t.db('meeting_voices')).toHaveLength(0);

    const { id } = await transcribed(conversation(13), 'Fourth call');
    expect(await voicesOf(id)).toHaveLength(0);
    expect(await rig.t.db('transcript_chunks').where({ meeting_id: id })).toHaveLength(0);
  }, 300_000);
});
