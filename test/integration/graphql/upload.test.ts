/**
 * uploadAudio's input rules over real HTTP: every limit on both sides of its boundary, each refusal
 * naming its field (extensions.field like input.title) with nothing stored; the accepted side creates
 * a meeting in `processing` and starts its run (no worker here: runs are terminated at the end).
 */
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../support/graphql';
import { transcriptionWorkflowId } from '../../../workflows/contracts';

describe('uploadAudio input rules', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let strict: GraphqlHarness;
  let member: TestUser;
  let admin: TestUser;
  const queue = testTaskQueue('upload-rules');
  const base = 'https://media.example.com/recordings/weekly_sync-2026.mp3';

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    member = await makeUser(t.db, team, { name: 'Mel Member' });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ann Admin' });
    gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue });
    strict = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ALLOW_PRIVATE_NETWORK: 'false' });
  });
  afterAll(async () => {
    // No worker polls this queue: end the runs the accepted uploads started.
    const ids = await t.db('meetings').select('id');
    await Promise.all(
      ids.map(({ id }) =>
        gql.temporal.workflow
          .getHandle(transcriptionWorkflowId(id))
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await strict?.close();
    await gql?.close();
    await t?.drop();
  });

  const stored = async () => {
    const [{ n: meetings }] = await t.db('meetings').count({ n: '*' });
    const [{ n: audit }] = await t.db('audit_log').where({ action: 'meeting.upload' }).count({ n: '*' });
    return { meetings: Number(meetings), audit: Number(audit) };
  };

  async function accepted(input: Record<string, unknown>, user = member, h = gql) {
    const res = await h.request(user.key, UPLOAD_AUDIO, { input: { url: base, ...input } });
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    const up = res.body.data.uploadAudio;
    expect(up).toMatchObject({ success: true, status: 'processing' });
    return up;
  }

  async function refused(
    input: Record<string, unknown>,
    expected: { code?: string; field: string; message?: RegExp },
    user = member,
    h = gql,
  ) {
    const before = await stored();
    const res = await h.request(user.key, UPLOAD_AUDIO, { input: { url: base, ...input } });
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    const err = res.body.errors![0];
    expect(err.extensions).toMatchObject({ code: expected.code ?? 'invalid_arguments', field: expected.field });
    if (expected.message) expect(err.message).toMatch(expected.message);
    expect(err.extensions).not.toHaveProperty('stacktrace');
    expect(await stored()).toEqual(before);
    return err;
  }

  it("accepts the spec's minimal request and answers at once with the meeting to poll", async () => {
    const before = await stored();
    const up = await accepted({});
    expect(up.title).toBe('weekly sync-2026');
    expect(up.message).toContain(up.meetingId);
    expect(await stored()).toEqual({ meetings: before.meetings + 1, audit: before.audit + 1 });
    const m = await t.db('meetings').where({ id: up.meetingId }).first();
    expect(m).toMatchObject({
      status: 'processing',
      organizer_id: member.id,
      uploader_id: member.id,
      source_url: base,
      title: 'weekly sync-2026',
    });
    const run = await gql.temporal.workflow.getHandle(transcriptionWorkflowId(up.meetingId)).describe();
    expect(run.status.name).toBe('RUNNING');
    expect(run.taskQueue).toBe(queue);
  });

  it('url: http and https only, a real URL, no credentials, required', async () => {
    await accepted({ url: 'http://media.example.com/a.vtt' });
    await refused(
      { url: 'ftp://media.example.com/a.mp3' },
      { field: 'input.url', message: /http or https URL; got a ftp URL/ },
    );
    await refused({ url: 'file:///etc/passwd' }, { field: 'input.url' });
    await refused({ url: 'not a url' }, { field: 'input.url' });
    await refused({ url: '' }, { code: 'args_required', field: 'input.url' });
    await refused({ url: 'https://user:pw@media.example.com/a.mp3' }, { field: 'input.url', message: /download_auth/ });
    const longest = `https://media.example.com/${'a'.repeat(2048 - 'https://media.example.com/'.length)}`;
    expect(longest).toHaveLength(2048);
    await accepted({ url: longest, title: 'Longest URL' });
    await refused({ url: `${longest}b` }, { field: 'input.url', message: /at most 2048/ });
    // Missing entirely: GraphQL's own type check, reported in the same shape.
    const res = await gql.request(member.key, UPLOAD_AUDIO, { input: { title: 'No url' } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'args_required', field: 'input.url' });
  });

  it('url: private and loopback literals are refused at once when the dev flag is off', async () => {
    for (const url of [
      'http://127.0.0.1:8080/a.vtt',
      'http://[::1]/a.vtt',
      'http://10.0.0.7/a.vtt',
      'http://169.254.169.254/latest/meta-data',
      'http://localhost/a.vtt',
      'http://localhost./a.vtt',
    ]) {
      await refused({ url }, { field: 'input.url', message: /private, loopback or reserved address/ }, member, strict);
    }
    // A public address passes the same server; names are checked after DNS by the download.
    await accepted({ url: 'https://93.184.216.34/a.vtt' }, member, strict);
    // With the dev flag on (tests, laptops), a loopback literal is allowed.
    await accepted({ url: 'http://127.0.0.1:8080/a.vtt' });
  });

  it('title: 256 characters pass, 257 are refused, blank is refused', async () => {
    const up = await accepted({ title: 'T'.repeat(256) });
    expect(up.title).toHaveLength(256);
    await refused({ title: 'T'.repeat(257) }, { field: 'input.title', message: /1 to 256 characters long; got 257/ });
    await refused({ title: '   ' }, { field: 'input.title' });
  });

  it('client_reference_id: 128 characters pass, 129 are refused', async () => {
    const up = await accepted({ client_reference_id: 'r'.repeat(128) });
    expect(up.clientReferenceId).toHaveLength(128);
    await refused(
      { client_reference_id: 'r'.repeat(129) },
      { field: 'input.client_reference_id', message: /1 to 128/ },
    );
  });

  it('attendees: 100 pass, 101 are refused; each needs a valid email', async () => {
    const people = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ displayName: `Guest ${i}`, email: `guest${i}@example.com` }));
    const up = await accepted({ attendees: people(100) });
    expect(await t.db('meeting_participants').where({ meeting_id: up.meetingId }).count({ n: '*' })).toEqual([
      { n: '101' },
    ]);
    await refused({ attendees: people(101) }, { field: 'input.attendees', message: /at most 100/ });
    await refused(
      {
        attendees: [
          { displayName: 'X', email: 'x@example.com' },
          { displayName: 'Y', email: 'not-an-email' },
        ],
      },
      { field: 'input.attendees[1].email' },
    );
    await refused(
      { attendees: [{ displayName: 'No Mail' }] },
      { code: 'args_required', field: 'input.attendees[0].email' },
    );
    await refused(
      { attendees: [{ email: 'p@example.com', phoneNumber: 'call me' }] },
      { field: 'input.attendees[0].phoneNumber' },
    );
  });

  it('webhook: https passes, http is refused', async () => {
    const up = await accepted({ webhook: 'https://hooks.example.com/transcripts?token=abc' });
    expect((await t.db('meetings').where({ id: up.meetingId }).first()).upload_webhook).toBe(
      'https://hooks.example.com/transcripts?token=abc',
    );
    await refused(
      { webhook: 'http://hooks.example.com/transcripts' },
      { field: 'input.webhook', message: /https URL/ },
    );
    await refused({ webhook: 'nope' }, { field: 'input.webhook' });
  });

  it('custom_language: a short language code', async () => {
    await accepted({ custom_language: 'en' });
    await accepted({ custom_language: 'en-GB' });
    // The embedded engine's default model hears English only: another language is refused at once.
    await refused(
      { custom_language: 'pt-BR' },
      { field: 'input.custom_language', message: /no speech model here transcribes pt-BR; .*SPEECH_MODELS/ },
    );
    await refused({ custom_language: 'english' }, { field: 'input.custom_language' });
    await refused({ custom_language: 'EN' }, { field: 'input.custom_language' });
  });

  it('meeting_date: ISO 8601 date or date-time', async () => {
    const up = await accepted({ meeting_date: '2026-11-02T15:00:00Z' });
    expect(new Date((await t.db('meetings').where({ id: up.meetingId }).first()).date).toISOString()).toBe(
      '2026-11-02T15:00:00.000Z',
    );
    await accepted({ meeting_date: '2026-11-02' });
    await refused({ meeting_date: '02/11/2026' }, { field: 'input.meeting_date' });
    await refused({ meeting_date: '2026-13-45' }, { field: 'input.meeting_date' });
  });

  it('download_auth: checked per type', async () => {
    await accepted({ download_auth: { type: 'none' } });
    await accepted({ download_auth: { type: 'bearer_token', bearer: { token: 'tok' } } });
    await accepted({ download_auth: { type: 'basic_auth', basic: { username: 'u', password: 'p' } } });
    await refused(
      { download_auth: { type: 'bearer_token' } },
      { code: 'args_required', field: 'input.download_auth.bearer.token' },
    );
    await refused(
      { download_auth: { type: 'basic_auth', basic: { username: 'a:b', password: 'p' } } },
      { field: 'input.download_auth.basic.username' },
    );
    await refused(
      { download_auth: { type: 'none', bearer: { token: 'tok' } } },
      { field: 'input.download_auth.bearer' },
    );
    await refused(
      { download_auth: { type: 'bearer_token', bearer: { token: 'a\nb' } } },
      { field: 'input.download_auth.bearer.token' },
    );
    // Not one of the enum values: GraphQL's type check, same shape.
    const res = await gql.request(member.key, UPLOAD_AUDIO, { input: { url: base, download_auth: { type: 'oauth' } } });
    expect(res.body.errors![0].extensions).toMatchObject({
      code: 'invalid_arguments',
      field: 'input.download_auth.type',
    });
  });

  it('bypass_size_check: admins only', async () => {
    const before = await stored();
    const res = await gql.request(member.key, UPLOAD_AUDIO, { input: { url: base, bypass_size_check: true } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'require_elevated_privilege' });
    expect(res.body.errors![0].message).toMatch(/bypass_size_check requires a team admin/);
    expect(await stored()).toEqual(before);
    const up = await accepted({ bypass_size_check: true }, admin);
    expect((await t.db('meetings').where({ id: up.meetingId }).first()).upload_options.bypass_size_check).toBe(true);
    await accepted({ bypass_size_check: false }, member);
  });

  it('stores download credentials sealed, never in the clear', async () => {
    const up = await accepted({
      url: `${base}?X-Amz-Signature=sekret-sig`,
      download_auth: { type: 'bearer_token', bearer: { token: 'very-secret-token' } },
    });
    const row = await t.db('meetings').where({ id: up.meetingId }).first();
    const audit = await t.db('audit_log').where({ target_id: up.meetingId });
    const text = JSON.stringify([row, audit]);
    expect(text).not.toContain('very-secret-token');
    expect(text).not.toContain('sekret-sig');
    expect(row.source_url).toBe(base);
    expect(row.upload_options.fetch_secret).toMatch(/^v1\./);
  });
});
