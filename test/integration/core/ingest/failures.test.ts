/**
 * Uploads that cannot become transcripts: each ends `failed` with its own reason a person can act on,
 * readable through GraphQL and MCP, and with nothing half-written stored.
 */
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { silentWav } from '../../../support/asr-standin';
import { GraphqlHarness, startGraphql, TRANSCRIPT, UPLOAD_AUDIO } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { startTestWorker, TestWorker, waitForRun } from '../../../support/worker';
import { MediaServer, startMediaServer } from './media-server';

const CAP = 4096;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A valid WebVTT file of exactly `size` bytes (trailing blank lines pad it). */
function vttOfSize(size: number): Buffer {
  const head = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ann>We ship on Friday.\n';
  if (head.length > size) throw new Error('too small');
  return Buffer.from(head + '\n'.repeat(size - head.length));
}

describe('uploads that fail', () => {
  let t: TestDatabase;
  let media: MediaServer;
  let mcp: McpHarness;
  let member: TestUser;
  let admin: TestUser;
  // A worker that may reach the local media server, with a small size cap and no ASR configured.
  let gql: GraphqlHarness;
  let worker: TestWorker;
  // A worker that keeps the production rule: no private addresses (the API in front of it accepts the name).
  let gqlStrictWorker: GraphqlHarness;
  let strictWorker: TestWorker;
  const queue = testTaskQueue('fail');
  const strictQueue = testTaskQueue('fail-strict');

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    member = await makeUser(t.db, team, { name: 'Mia Member' });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Adam Admin' });
    media = await startMediaServer();
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
    worker = await startTestWorker(t.db, { taskQueue: queue, env: { MEDIA_MAX_BYTES: String(CAP), ASR_URL: '' } });
    gqlStrictWorker = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: strictQueue });
    strictWorker = await startTestWorker(t.db, { taskQueue: strictQueue, env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  });
  afterAll(async () => {
    await worker?.stop();
    await strictWorker?.stop();
    await gql?.close();
    await gqlStrictWorker?.close();
    await mcp?.close();
    await media?.close();
    await t?.drop();
  });

  async function uploadAndWait(h: GraphqlHarness, user: TestUser, input: Record<string, unknown>) {
    const res = await h.request(user.key, UPLOAD_AUDIO, { input });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.uploadAudio.success).toBe(true);
    const id = res.body.data.uploadAudio.meetingId as string;
    return { id, run: await waitForRun(h.temporal, id) };
  }

  /** The failed state every reader sees, and that nothing of a transcript was stored. */
  async function expectFailed(id: string, reason: RegExp) {
    const m = await t.db('meetings').where({ id }).first();
    expect(m.status).toBe('failed');
    expect(m.failure_reason).toMatch(reason);
    // A person's sentence, not a stack trace or SQL.
    expect(m.failure_reason).not.toMatch(/\n\s+at |select |insert |Error:/);
    expect(m.upload_options.fetch_secret).toBeUndefined();
    for (const table of ['sentences', 'summaries', 'meeting_analytics', 'speaker_analytics']) {
      expect(await t.db(table).where({ meeting_id: id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    }
    const viaGraphql = await gql.request(member.key, TRANSCRIPT, { id });
    expect(viaGraphql.body.data.transcript).toMatchObject({
      status: 'failed',
      sentences: [],
      meeting_info: { summary_status: 'failed' },
    });
    expect(viaGraphql.body.data.transcript.meeting_info.message).toContain(m.failure_reason);
    const viaMcp = await mcp.call(member.key, 'svc_get_transcript', { transcriptId: id, format: 'json' });
    expect(viaMcp.data).toMatchObject({ status: 'failed', sentences: [] });
    expect(viaMcp.data.meeting_info.message).toContain(m.failure_reason);
    return m;
  }

  it('a 404 ends failed, saying the server answered 404', async () => {
    const { id, run } = await uploadAndWait(gql, member, { url: `${media.url}/missing/recording.vtt` });
    expect(run).toMatchObject({ status: 'failed', message: expect.stringContaining('404') });
    await expectFailed(id, /answered 404/);
    // A 404 is not retried.
    expect(media.hits('/missing/recording.vtt')).toHaveLength(1);
  });

  it('a file of exactly MEDIA_MAX_BYTES is accepted; one byte more fails with the limit named', async () => {
    const atCap = media.serve('/cap/at.vtt', { body: vttOfSize(CAP), contentType: 'text/vtt' });
    const ok = await uploadAndWait(gql, member, { url: atCap });
    expect(ok.run.status).toBe('completed');

    const over = media.serve('/cap/over.vtt', { body: vttOfSize(CAP + 1), contentType: 'text/vtt' });
    const { id, run } = await uploadAndWait(gql, member, { url: over });
    expect(run.status).toBe('failed');
    await expectFailed(id, new RegExp(`larger than the ${CAP}-byte limit`));
  });

  it("an admin's bypass_size_check lifts the cap", async () => {
    const over = media.serve('/cap/admin-over.vtt', { body: vttOfSize(CAP * 2), contentType: 'text/vtt' });
    const { run } = await uploadAndWait(gql, admin, { url: over, bypass_size_check: true });
    expect(run.status).toBe('completed');
  });

  it('an unsupported type fails, naming what the bytes are (not what the server claimed)', async () => {
    const png = media.serve('/img/chart.mp3', { body: PNG, contentType: 'audio/mpeg' });
    const { id } = await uploadAndWait(gql, member, { url: png });
    await expectFailed(id, /unsupported file type \(image\/png\); send audio, video, WebVTT or SRT/);

    const text = media.serve('/notes.txt', { body: 'just some meeting notes, no captions', contentType: 'text/plain' });
    const second = await uploadAndWait(gql, member, { url: text });
    await expectFailed(second.id, /unsupported file type \(unrecognized content\)/);
  });

  it('silent audio without ASR_URL goes to the embedded engine, which hears no words in it', async () => {
    const wav = media.serve('/audio/standup.wav', { body: silentWav(0.2), contentType: 'audio/wav' });
    const { id } = await uploadAndWait(gql, member, { url: wav });
    await expectFailed(id, /no speech was recognised in the recording/);
  });

  it('a caption file without cues fails with its own reason', async () => {
    const empty = media.serve('/empty.vtt', { body: 'WEBVTT\n\nNOTE nothing was said\n', contentType: 'text/vtt' });
    const { id } = await uploadAndWait(gql, member, { url: empty });
    await expectFailed(id, /no cues with text/);
  });

  it('a name that resolves to a private address is refused after DNS when the dev flag is off', async () => {
    const path = '/private/by-name.vtt';
    const port = new URL(media.url).port;
    media.serve(path, { body: vttOfSize(200), contentType: 'text/vtt' });
    const { id, run } = await uploadAndWait(gqlStrictWorker, member, { url: `http://localhost:${port}${path}` });
    expect(run.status).toBe('failed');
    await expectFailed(id, /resolves to a private address \((127\.0\.0\.1|::1), loopback\).*ALLOW_PRIVATE_NETWORK/);
    // Refused before connecting: the server never saw the request.
    expect(media.hits(path)).toHaveLength(0);
  });
});
