/**
 * The GraphQL endpoint itself: authentication, error shape (codes, never a stack), document depth and
 * size limits, introspection only when configured, rate limiting, metrics, health, and an upload that
 * cannot be queued storing nothing.
 */
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql, UPLOAD_AUDIO } from '../../support/graphql';
import { revokeApiKey } from '../../../services/core/people';
import { whileCapturing } from '../../support/logs';

const ME = 'query Me { me { user_id email name is_admin minutes_consumed num_transcripts } }';

describe('GraphQL endpoint', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let open: GraphqlHarness;
  let user: TestUser;
  const queue = testTaskQueue('gql-server');

  beforeAll(async () => {
    t = await createTestDatabase();
    user = await makeUser(t.db, await makeTeam(t.db), { name: 'Gina', role: 'admin' });
    gql = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: queue,
      GRAPHQL_MAX_DEPTH: '2',
      GRAPHQL_MAX_QUERY_BYTES: '400',
    });
    open = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, GRAPHQL_INTROSPECTION: 'true' });
  });
  afterAll(async () => {
    await open?.close();
    await gql?.close();
    await t?.drop();
  });

  it("answers `me` for the key's user", async () => {
    const res = await gql.request(user.key, ME);
    expect(res.status).toBe(200);
    expect(res.body.data.me).toEqual({
      user_id: user.id,
      email: user.email,
      name: 'Gina',
      is_admin: true,
      minutes_consumed: 0,
      num_transcripts: 0,
    });
  });

  it('refuses a missing, unknown or revoked key with 401 and auth_failed', async () => {
    const missing = await gql.request(undefined, ME);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(missing.body.errors![0].extensions).toEqual({ code: 'auth_failed' });
    expect(missing.body.data).toBeUndefined();

    const unknown = await gql.request('mi_aaaaaaaa_' + 'x'.repeat(43), ME);
    expect(unknown.status).toBe(401);
    expect(unknown.body.errors![0].extensions!.code).toBe('auth_failed');

    const victim = await makeUser(t.db, { id: user.teamId, tier: 'enterprise', feature_flags: [] });
    expect((await gql.request(victim.key, ME)).status).toBe(200);
    await revokeApiKey(t.db, victim.key.split('_')[1]);
    const revoked = await gql.request(victim.key, ME);
    expect(revoked.status).toBe(401);
    expect(revoked.body.errors![0].message).toMatch(/unknown or revoked/);
  });

  it('refuses documents deeper than GRAPHQL_MAX_DEPTH, naming the rule', async () => {
    // Depth counts nesting below the root field (services/graphql/depth-limit.ts): transcript 0, summary 1, keywords 2.
    const atLimit = await gql.request(user.key, 'query { transcript(id: "x") { summary { keywords } } }');
    expect(atLimit.body.errors![0].extensions!.code).toBe('object_not_found'); // it ran
    const deep = await gql.request(
      user.key,
      'query Deep { transcript(id: "x") { summary { action_items { text } } } }',
    );
    expect(deep.status).toBe(400);
    expect(deep.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'query', rule: 'depth' });
    expect(deep.body.errors![0].message).toMatch(/exceeds maximum operation depth of 2/);
  });

  it('refuses documents larger than GRAPHQL_MAX_QUERY_BYTES with 413', async () => {
    const padded = (n: number) => `query Me { me { user_id } }${' '.repeat(n - 'query Me { me { user_id } }'.length)}`;
    expect((await gql.request(user.key, padded(400))).status).toBe(200);
    const big = await gql.request(user.key, padded(401));
    expect(big.status).toBe(413);
    expect(big.body.errors![0].extensions).toMatchObject({
      code: 'invalid_arguments',
      field: 'query',
      rule: 'at most 400 bytes',
    });
  });

  it('answers malformed JSON and unknown fields in the same error shape, without stack traces', async () => {
    const res = await fetch(gql.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].extensions).toMatchObject({
      code: 'invalid_arguments',
      field: 'body',
    });

    const unknown = await gql.request(user.key, '{ me { password } }');
    expect(unknown.body.errors![0].extensions).toMatchObject({
      code: 'invalid_arguments',
      field: 'query',
      rule: 'schema',
    });
    const syntax = await gql.request(user.key, '{ me { ');
    expect(syntax.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'query' });
    for (const e of [...unknown.body.errors!, ...syntax.body.errors!])
      expect(JSON.stringify(e)).not.toMatch(/stacktrace|\n\s+at /);
  });

  it('hides the schema unless introspection is configured', async () => {
    const closed = await gql.request(user.key, '{ __schema { queryType { name } } }');
    expect(closed.body.errors![0].message).toMatch(/introspection/i);
    // Nor does it leak field names through suggestions.
    const typo = await gql.request(user.key, '{ transcriptz { has_more } }');
    expect(typo.body.errors![0].message).not.toMatch(/Did you mean/);
    const getClosed = await fetch(gql.url, { headers: { accept: 'text/html' } });
    expect(getClosed.status).toBe(405);

    const schema = await open.request(user.key, '{ __schema { mutationType { fields { name } } } }');
    // The core mutation plus those the modules add (webhooks, rules, live ingest).
    const mutations: string[] = schema.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(mutations).toEqual(
      expect.arrayContaining([
        'uploadAudio',
        'saveWebhookUrl',
        'setWebhookSecret',
        'createRule',
        'startLiveMeeting',
        'appendLiveSentences',
      ]),
    );
    const landing = await fetch(open.url, { headers: { accept: 'text/html' } });
    expect(landing.status).toBe(200);
    expect(landing.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('serves health, readiness and metrics with bounded operation labels', async () => {
    const base = gql.url.replace(/\/graphql$/, '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await gql.request(user.key, 'query WhateverTheClientCallsIt { me { user_id } }');
    await gql.request(user.key, '{ transcripts(limit: 99) { has_more } }');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/graphql_operations_total\{operation="me",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/graphql_operations_total\{operation="transcripts",outcome="invalid_arguments"\} \d+/);
    expect(metrics).toMatch(/graphql_operations_total\{operation="other",outcome="auth_failed"\} \d+/);
    expect(metrics).toMatch(/graphql_operation_duration_seconds_count\{operation="me"\} \d+/);
    expect(metrics).not.toMatch(/WhateverTheClientCallsIt/);
  });

  it('limits each key to RATE_LIMIT_PER_MINUTE operations with 429 and Retry-After', async () => {
    const limited = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, RATE_LIMIT_PER_MINUTE: '2' });
    const busy = await makeUser(t.db, { id: user.teamId, tier: 'enterprise', feature_flags: [] });
    try {
      // The limit counts in fixed clock minutes and five calls span at most two of them, so at most four
      // pass: at least one is refused wherever the minute turns.
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await limited.request(busy.key, ME));
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(answer.body.errors![0].extensions).toMatchObject({ code: 'too_many_requests' });
      }
    } finally {
      await limited.close();
    }
  });

  it('an upload that cannot be queued (Temporal unreachable) fails plainly and stores nothing', async () => {
    const down = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const [{ n: before }] = await t.db('meetings').count({ n: '*' });
      const { result: res, logs } = await whileCapturing('error', () =>
        down.request(user.key, UPLOAD_AUDIO, {
          input: { url: 'https://media.example.com/a.vtt', client_reference_id: 'down-1' },
        }),
      );
      expect(res.body.errors![0].extensions).toEqual({ code: 'internal_error' });
      expect(res.body.errors![0].message).toMatch(/nothing was stored.*again/);
      // The cause is logged for the operator (with the request's id), never sent to the caller.
      const [cause] = logs.find('error', /^could not start the transcription workflow$/);
      expect(cause).toMatchObject({
        requestId: expect.any(String),
        meetingId: expect.any(String),
        err: { message: expect.stringMatching(/Failed to start Workflow/) },
      });
      expect(logs.find('error', /^graphql operation failed$/)).toEqual([
        expect.objectContaining({
          requestId: cause.requestId,
          err: expect.objectContaining({ code: 'internal_error', message: res.body.errors![0].message }),
        }),
      ]);
      expect(JSON.stringify(res.body)).not.toContain(String((cause.err as { message: string }).message));
      const [{ n: after }] = await t.db('meetings').count({ n: '*' });
      expect(after).toBe(before);
    } finally {
      await down.close();
    }
  }, 60_000);
});
