/**
 * Caption files end to end: uploadAudio over real HTTP → TranscriptionWorkflow on a real Temporal
 * dev server with a worker in this process → PostgreSQL; then read back through the MCP client (the
 * way an assistant would) and GraphQL (the way a polling app would).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaptions } from '../../../../services/intelligence/captions';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql, TRANSCRIPT, UPLOAD_AUDIO } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { Worker } from '@temporalio/worker';
import { sharedBundle, startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'services', 'cli', 'demo', 'meetings');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
  meetings: {
    file: string;
    title: string;
    date: string;
    duration: number;
    organizer_email: string;
    speakers: Record<string, string>;
  }[];
};
const teamFile = JSON.parse(readFileSync(join(FIXTURES, 'team.json'), 'utf8')) as {
  users: { name: string; email: string; role: 'member' | 'admin' | 'super_admin' }[];
};
const fixture = (file: string) => ({
  meta: manifest.meetings.find((m) => m.file === file)!,
  bytes: readFileSync(join(FIXTURES, file)),
});

const VTT = fixture('2026-10-05-engineering-standup.vtt');
const SRT = fixture('2026-10-07-interview-backend-engineer.srt');

describe('caption uploads end to end', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let worker: TestWorker;
  let media: MediaServer;
  const users = new Map<string, TestUser>();
  let outsider: TestUser;
  const taskQueue = testTaskQueue('captions');
  const ids: Record<'vtt' | 'srt', string> = { vtt: '', srt: '' };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { name: 'Ledgerly' });
    for (const u of teamFile.users)
      users.set(u.email, await makeUser(t.db, team, { email: u.email, name: u.name, role: u.role }));
    outsider = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
    media = await startMediaServer();
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: taskQueue });
    mcp = await startMcp(t.db);
    worker = await startTestWorker(t.db, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await mcp?.close();
    await gql?.close();
    await media?.close();
    await t?.drop();
  });

  const grace = () => users.get('grace@demo.example')!;

  it('accepts a WebVTT upload at once and completes it in the background', async () => {
    const url = media.serve('/recordings/2026-10-05-engineering-standup.vtt', {
      body: VTT.bytes,
      contentType: 'text/vtt',
    });
    const res = await gql.request(grace().key, UPLOAD_AUDIO, {
      input: { url, title: VTT.meta.title, meeting_date: VTT.meta.date, client_reference_id: 'standup-1005' },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const up = res.body.data.uploadAudio;
    expect(up).toMatchObject({
      success: true,
      title: VTT.meta.title,
      status: 'processing',
      clientReferenceId: 'standup-1005',
    });
    expect(up.message).toContain(up.meetingId);
    ids.vtt = up.meetingId;

    const run = await waitForRun(gql.temporal, ids.vtt);
    // Post-processing: the automation rules run of this meeting (no webhook is configured here), and its
    // embedding for search by meaning.
    expect(run).toMatchObject({
      status: 'completed',
      result: { status: 'completed', children: [`rules-${ids.vtt}`, `embed-${ids.vtt}`] },
    });
    const m = await t.db('meetings').where({ id: ids.vtt }).first();
    expect(m).toMatchObject({
      status: 'completed',
      failure_reason: null,
      title: VTT.meta.title,
      organizer_email: 'grace@demo.example',
    });
    expect(new Date(m.date).toISOString()).toBe(new Date(VTT.meta.date).toISOString());
    // The recording lasts until the last cue ends (the manifest's rounded length is a little longer).
    expect(Number(m.duration_seconds)).toBeCloseTo(parseCaptions(VTT.bytes).duration_seconds, 3);
    expect(Number(m.duration_seconds)).toBeLessThanOrEqual(VTT.meta.duration);
    // The download instructions are gone once processing is over.
    expect(m.upload_options.fetch_secret).toBeUndefined();
  });

  it("serves the file's speakers and timestamps through svc_get_transcript", async () => {
    const expected = parseCaptions(VTT.bytes).sentences;
    const res = await mcp.call(grace().key, 'svc_get_transcript', {
      transcriptId: ids.vtt,
      format: 'json',
      maxTokens: 20_000,
    });
    expect(res.isError).toBe(false);
    const tr = res.data;
    expect(tr.status).toBe('completed');
    expect(tr.has_more).toBe(false);
    expect(tr.sentences).toHaveLength(expected.length);
    expect(tr.sentences.map((s: any) => [s.index, s.speaker_name, s.start_time, s.end_time, s.text])).toEqual(
      expected.map((s) => [s.index, s.speaker_name, s.start_time, s.end_time, s.text]),
    );
    expect(new Set(tr.sentences.map((s: any) => s.speaker_name))).toEqual(new Set(Object.keys(VTT.meta.speakers)));
    // Speakers who are users of the team become participants by name.
    expect(tr.participants.split(', ').sort()).toEqual([...new Set(Object.values(VTT.meta.speakers))].sort());
    expect(tr.analytics).toHaveLength(Object.keys(VTT.meta.speakers).length);
    for (const a of tr.analytics) expect(a.word_count).toBeGreaterThan(0);
    expect(tr.meeting_analytics.duration_seconds).toBeCloseTo(expected[expected.length - 1].end_time, 1);

    // The TOON rendering decodes to the same record.
    const toon = await mcp.call(grace().key, 'svc_get_transcript', { transcriptId: ids.vtt, maxTokens: 20_000 });
    expect(toon.data).toEqual(tr);
  });

  it('fills the summary and analytics', async () => {
    const res = await mcp.call(grace().key, 'svc_get_summary', { transcriptId: ids.vtt });
    expect(res.isError).toBe(false);
    expect(res.data).toMatchObject({ id: ids.vtt, summary_status: 'processed' });
    expect(res.data.keywords.length).toBeGreaterThan(0);
    expect(res.data.overview.length).toBeGreaterThan(20);
    expect(typeof res.data.meeting_type).toBe('string');
    // The summary's run is recorded with it: the built-in summarizer, no model, no tokens.
    expect(
      await t.db('summary_runs').where({ meeting_id: ids.vtt }).select('trigger', 'source', 'model', 'calls'),
    ).toEqual([{ trigger: 'transcription', source: 'extractive', model: null, calls: 0 }]);

    const rows = await t.db('speaker_analytics').where({ meeting_id: ids.vtt }).orderBy('speaker_id');
    expect(rows.map((r) => r.email)).toEqual(rows.map((r) => VTT.meta.speakers[r.name]));
  });

  it('imports SRT with a guest mapped to an email through the attendees list', async () => {
    const url = media.serve('/recordings/interview.srt', { body: SRT.bytes, contentType: 'application/x-subrip' });
    const attendees = [
      { displayName: 'Jordan Reyes', email: 'Jordan.Reyes@candidate.example', phoneNumber: '+1 555 0100' },
    ];
    const res = await gql.request(grace().key, UPLOAD_AUDIO, {
      input: { url, attendees, meeting_date: SRT.meta.date },
    });
    expect(res.body.errors).toBeUndefined();
    // No title given: the file name in the URL.
    expect(res.body.data.uploadAudio.title).toBe('interview');
    ids.srt = res.body.data.uploadAudio.meetingId;
    expect(await waitForRun(gql.temporal, ids.srt)).toMatchObject({ status: 'completed' });

    const tr = await gql.request(grace().key, TRANSCRIPT, { id: ids.srt });
    expect(tr.body.errors).toBeUndefined();
    const data = tr.body.data.transcript;
    const expected = parseCaptions(SRT.bytes).sentences;
    expect(data.status).toBe('completed');
    expect(data.sentences.map((s: any) => [s.speaker_name, s.start_time, s.end_time])).toEqual(
      expected.map((s) => [s.speaker_name, s.start_time, s.end_time]),
    );
    expect(data.participants.split(', ').sort()).toEqual([...new Set(Object.values(SRT.meta.speakers))].sort());
    expect(data.summary.summary_status).toBe('processed');
    expect(data.meeting_analytics.duration_seconds).toBeGreaterThan(300);
    const guest = await t.db('speaker_analytics').where({ meeting_id: ids.srt, name: 'Jordan Reyes' }).first();
    expect(guest.email).toBe('jordan.reyes@candidate.example');
  });

  it("charges the owner's minutes exactly once per meeting", async () => {
    const rows = await t.db('meetings').whereIn('id', [ids.vtt, ids.srt]).select('upload_options');
    const seconds = rows.map((r) => Number(r.upload_options.minutes_charged_seconds));
    for (const s of seconds) expect(s).toBeGreaterThan(0);
    const expected = seconds.reduce((n, s) => n + Math.round((s / 60) * 100) / 100, 0);
    const user = await t.db('users').where({ id: grace().id }).first();
    expect(Number(user.minutes_consumed)).toBeCloseTo(expected, 2);
    const charges = await t
      .db('audit_log')
      .where({ action: 'meeting.minutes_charged' })
      .whereIn('target_id', [ids.vtt, ids.srt]);
    expect(charges).toHaveLength(2);
  });

  it('reads follow the meeting permissions: teammates see it, another team does not', async () => {
    const miguel = users.get('miguel@demo.example')!;
    const asTeammate = await gql.request(miguel.key, TRANSCRIPT, { id: ids.vtt });
    expect(asTeammate.body.data.transcript.id).toBe(ids.vtt);
    const asOutsider = await gql.request(outsider.key, TRANSCRIPT, { id: ids.vtt });
    expect(asOutsider.body.data).toBeNull();
    expect(asOutsider.body.errors![0].extensions).toMatchObject({ code: 'object_not_found' });
    const viaMcp = await mcp.call(outsider.key, 'svc_get_transcript', { transcriptId: ids.vtt });
    expect(viaMcp.isError).toBe(true);
  });

  it('replays its own history deterministically (the workflow code is safe to change only compatibly)', async () => {
    for (const id of [ids.vtt, ids.srt]) {
      const history = await gql.temporal.workflow.getHandle(`transcription-${id}`).fetchHistory();
      await expect(Worker.runReplayHistory({ workflowBundle: await sharedBundle() }, history)).resolves.toBeUndefined();
    }
  });

  it('writes an audit row for the upload and for the finished transcript', async () => {
    const actions = (await t.db('audit_log').where({ target_id: ids.vtt }).orderBy('id').select('action')).map(
      (r) => r.action,
    );
    expect(actions[0]).toBe('meeting.upload');
    expect(actions).toContain('meeting.transcribed');
  });
});
