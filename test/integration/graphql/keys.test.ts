/**
 * Scoped API keys and their management: a key without meetings:write reads but cannot write (MCP and
 * GraphQL, refused with the missing scope named); an expired key gets 401 on both sides of the instant;
 * users manage their own keys over GraphQL (shown once, never listed); admins list and end teammates'
 * keys and sign-ins, members cannot; the CLI does the same.
 */
import { createApiKey, startSession, apiKeyCredential } from '../../../services/core/people';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { McpHarness, startMcp } from '../../support/mcp';
import { runCli } from '../../support/cli';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: args },
});
const postMcp = (url: string, body: unknown, key: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify(body),
  });

describe('scoped API keys and access governance', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let mcp: McpHarness;
  let admin: TestUser;
  let member: TestUser;
  let meeting: { id: string };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada' });
    member = await makeUser(t.db, team, { name: 'Max' });
    meeting = await makeMeeting(t.db, {
      organizer: member,
      title: 'Plan',
      participants: [],
      sentences: [{ speaker: 'Max', text: 'Hello there', start: 0, end: 2 }],
    });
    gql = await startGraphql(t.db);
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await gql.close();
    await t.drop();
  });

  describe('a key without meetings:write', () => {
    let readOnly: string;
    beforeAll(async () => {
      readOnly = (await createApiKey(t.db, { email: member.email, scopes: ['meetings:read'] })).key;
    });

    it('reads over MCP', async () => {
      const res = await mcp.call(readOnly, 'svc_get_transcript', { transcriptId: meeting.id });
      expect(res.isError).toBe(false);
    });

    it.each([
      ['svc_share_meeting', () => ({ meetingId: meeting.id, emails: ['x@example.org'] })],
      ['svc_update_meeting_title', () => ({ meetingId: meeting.id, title: 'New' })],
      ['svc_move_meeting', () => ({ meetingId: meeting.id, channelId: 'c1' })],
      ['svc_create_soundbite', () => ({ meetingId: meeting.id, startTime: 0, endTime: 1 })],
    ])('cannot call %s over MCP: 403 insufficient_scope naming meetings:write', async (tool, args) => {
      const res = await postMcp(mcp.url, toolCall(tool, args()), readOnly);
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="meetings:write"/);
      expect(JSON.stringify(await res.json())).toMatch(/needs the meetings:write scope/);
      expect((await t.db('meetings').where({ id: meeting.id }).first()).title).toBe('Plan');
    });

    it('reads over GraphQL, and a mutation is refused with insufficient_scope naming meetings:write', async () => {
      const read = await gql.request(readOnly, '{ me { email } }');
      expect(read.body.data.me.email).toBe(member.email);
      const write = await gql.request(
        readOnly,
        'mutation { saveWebhookUrl(url: "https://hooks.example.org/x") { url } }',
      );
      expect(write.status).toBe(403);
      expect(write.body.errors![0].extensions).toMatchObject({ code: 'insufficient_scope', scope: 'meetings:write' });
    });

    it('a key with meetings:write only cannot read', async () => {
      const writeOnly = (await createApiKey(t.db, { email: member.email, scopes: ['meetings:write'] })).key;
      const read = await gql.request(writeOnly, '{ me { email } }');
      expect(read.body.errors![0].extensions).toMatchObject({ code: 'insufficient_scope', scope: 'meetings:read' });
      expect((await postMcp(mcp.url, toolCall('svc_get_transcripts', {}), writeOnly)).status).toBe(403);
    });
  });

  it('an expired key gets 401 auth_failed; one second before its expiry it works', async () => {
    const k = await createApiKey(t.db, { email: member.email, expires: '1h' });
    await t
      .db('api_keys')
      .where({ id: k.id })
      .update({ expires_at: t.db.raw("now() + interval '5 seconds'") });
    expect((await gql.request(k.key, '{ me { email } }')).status).toBe(200);
    expect((await mcp.call(k.key, 'svc_get_transcript', { transcriptId: meeting.id })).isError).toBe(false);
    await t
      .db('api_keys')
      .where({ id: k.id })
      .update({ expires_at: t.db.raw("now() - interval '1 millisecond'") });
    const after = await gql.request(k.key, '{ me { email } }');
    expect(after.status).toBe(401);
    expect(after.body.errors![0].extensions!.code).toBe('auth_failed');
    expect(after.body.errors![0].message).toMatch(/expired/);
    expect((await postMcp(mcp.url, toolCall('svc_get_transcripts', {}), k.key)).status).toBe(401);
  });

  describe('key management over GraphQL', () => {
    const LIST = '{ apiKeys { prefix name scopes status expires_at } }';

    it('creates a key shown once, lists it without the secret, revokes it', async () => {
      const created = await gql.request(
        member.key,
        'mutation { createApiKey(name: "laptop", scopes: ["meetings:read"], expires: "30d") { key api_key { prefix scopes status expires_at } } }',
      );
      const { key, api_key } = created.body.data.createApiKey;
      expect(key).toMatch(/^mi_[a-z0-9]{8}_/);
      expect(api_key).toMatchObject({ scopes: ['meetings:read'], status: 'active', expires_at: expect.any(String) });
      const listed = await gql.request(member.key, LIST);
      expect(listed.body.data.apiKeys).toEqual(
        expect.arrayContaining([expect.objectContaining({ prefix: api_key.prefix, name: 'laptop' })]),
      );
      // The secret is everything after `mi_<prefix>_`; base64url may put `_` anywhere in it (split('_')[2] was '' one time in 64).
      expect(JSON.stringify(listed.body)).not.toContain(key.slice('mi_'.length + api_key.prefix.length + 1));
      expect((await gql.request(key, '{ me { email } }')).body.data.me.email).toBe(member.email);
      const revoked = await gql.request(
        member.key,
        `mutation { revokeApiKey(prefix: "${api_key.prefix}") { revoked } }`,
      );
      expect(revoked.body.data.revokeApiKey.revoked).toBe(true);
      expect((await gql.request(key, '{ me { email } }')).status).toBe(401);
    });

    it('a key cannot make a key carrying more than itself; a member cannot make an admin key', async () => {
      const readOnly = (await createApiKey(t.db, { email: member.email, scopes: ['meetings:read'] })).key;
      const wider = await gql.request(
        readOnly,
        'mutation { createApiKey(scopes: ["meetings:read", "meetings:write"]) { key } }',
      );
      expect(wider.body.errors![0].extensions).toMatchObject({ code: 'insufficient_scope', scope: 'meetings:write' });
      const adminKey = await gql.request(member.key, 'mutation { createApiKey(scopes: ["admin"]) { key } }');
      expect(adminKey.body.errors![0].extensions!.code).toBe('require_elevated_privilege');
    });

    it("a member cannot revoke, list or end a teammate's keys and sign-ins", async () => {
      const adminPrefix = (await t.db('api_keys').where({ user_id: admin.id }).first()).prefix;
      expect(
        (await gql.request(member.key, `mutation { revokeApiKey(prefix: "${adminPrefix}") { revoked } }`)).body
          .errors![0].extensions!.code,
      ).toBe('require_elevated_privilege');
      expect(
        (await gql.request(member.key, `{ signIns(userId: "${admin.id}") { id } }`)).body.errors![0].extensions!.code,
      ).toBe('require_elevated_privilege');
      expect(
        (await gql.request(member.key, `mutation { endSignIns(userId: "${admin.id}") { sessions_ended } }`)).body
          .errors![0].extensions!.code,
      ).toBe('require_elevated_privilege');
      expect((await gql.request(member.key, '{ teamApiKeys { prefix } }')).body.errors![0].extensions).toMatchObject({
        code: 'insufficient_scope',
        scope: 'admin',
      });
    });

    it("an admin (key with admin) lists and ends a teammate's sign-ins, lists and revokes their keys, deactivates them", async () => {
      const adminKey = (
        await createApiKey(t.db, { email: admin.email, scopes: ['meetings:read', 'meetings:write', 'admin'] })
      ).key;
      const victim = await makeUser(t.db, { id: admin.teamId, tier: 'enterprise', feature_flags: [] }, { name: 'Vic' });
      const cred = await apiKeyCredential(t.db, victim.key);
      await startSession(t.db, cred.principal, { method: 'api_key', apiKeyId: cred.keyId, ttlMs: 3_600_000 });
      await startSession(t.db, cred.principal, { method: 'api_key', apiKeyId: cred.keyId, ttlMs: 3_600_000 });
      const listed = await gql.request(
        adminKey,
        `{ signIns(userId: "${victim.id}") { id kind signed_in_with api_key_prefix } }`,
      );
      expect(listed.body.data.signIns).toHaveLength(2);
      const one = listed.body.data.signIns[0].id;
      expect(
        (
          await gql.request(
            adminKey,
            `mutation { endSignIns(userId: "${victim.id}", id: "${one}") { sessions_ended } }`,
          )
        ).body.data.endSignIns.sessions_ended,
      ).toBe(1);
      expect(
        (await gql.request(adminKey, `{ signIns(userId: "${victim.id}") { id } }`)).body.data.signIns,
      ).toHaveLength(1);
      expect(
        (await gql.request(adminKey, `mutation { endSignIns(userId: "${victim.id}") { sessions_ended } }`)).body.data
          .endSignIns.sessions_ended,
      ).toBe(1);
      const team = await gql.request(adminKey, '{ teamApiKeys { prefix user_email } }');
      expect(team.body.data.teamApiKeys.map((k: { user_email: string }) => k.user_email)).toEqual(
        expect.arrayContaining([victim.email, member.email]),
      );
      // An admin's key without the admin scope is not enough.
      const narrowed = (await createApiKey(t.db, { email: admin.email, scopes: ['meetings:read', 'meetings:write'] }))
        .key;
      expect(
        (await gql.request(narrowed, `{ signIns(userId: "${victim.id}") { id } }`)).body.errors![0].extensions,
      ).toMatchObject({ code: 'insufficient_scope', scope: 'admin' });
      const deactivated = await gql.request(
        adminKey,
        `mutation { deactivateUser(userId: "${victim.id}") { keys_revoked deactivated_at } }`,
      );
      expect(deactivated.body.data.deactivateUser).toMatchObject({
        keys_revoked: 1,
        deactivated_at: expect.any(String),
      });
      expect((await gql.request(victim.key, '{ me { email } }')).status).toBe(401);
      expect(
        (await gql.request(member.key, `mutation { deactivateUser(userId: "${admin.id}") { keys_revoked } }`)).body
          .errors![0].extensions!.code,
      ).toBe('insufficient_scope');
    });
  });

  it('team administration needs the admin scope; a key made with no scopes named carries every scope of its user', async () => {
    const LIST = '{ apiKeys { prefix scopes } }';
    const scopesOf = async (key: string) =>
      (await gql.request(key, LIST)).body.data.apiKeys.find((k: { prefix: string }) =>
        key.startsWith(`mi_${k.prefix}_`),
      ).scopes;
    expect(await scopesOf(admin.key)).toEqual(['meetings:read', 'meetings:write', 'admin']);
    expect(await scopesOf(member.key)).toEqual(['meetings:read', 'meetings:write']);
    const narrowed = (await createApiKey(t.db, { email: admin.email, scopes: ['meetings:read', 'meetings:write'] }))
      .key;
    const operations = [
      'mutation { setTeamRetention(days: 400) { retention_days } }',
      `mutation { setLegalHold(meetingId: "${meeting.id}") { id } }`,
      `mutation { liftLegalHold(meetingId: "${meeting.id}") { id } }`,
      '{ readAudit { has_more } }',
      '{ rules { id } }',
    ];
    for (const op of operations) {
      const refused = await gql.request(narrowed, op);
      expect([op, refused.body.errors?.[0]?.extensions]).toEqual([
        op,
        expect.objectContaining({ code: 'insufficient_scope', scope: 'admin' }),
      ]);
      const allowed = await gql.request(admin.key, op);
      expect([op, allowed.body.errors]).toEqual([op, undefined]);
    }
    // Over MCP too: another teammate's live meetings.
    const call = async (key: string) => mcp.call(key, 'svc_get_active_meetings', { email: member.email });
    expect((await call(narrowed)).data.error).toMatchObject({ code: 'insufficient_scope', scope: 'admin' });
    expect((await call(admin.key)).isError).toBe(false);
    // A member is told the operation needs an admin, not a scope.
    expect(
      (await gql.request(member.key, 'mutation { setTeamRetention(days: 400) { retention_days } }')).body.errors![0]
        .extensions!.code,
    ).toBe('require_elevated_privilege');
  });

  it('the CLI creates a scoped, expiring key, lists it without the secret, revokes it, and lists and ends sign-ins', async () => {
    const env = { DATABASE_URL: t.url };
    const created = await runCli(
      ['apikey', 'create', '--email', member.email, '--scopes', 'meetings:read', '--expires', '7d', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      scopes: ['meetings:read'],
      expires_at: expect.any(String),
      key: expect.stringMatching(/^mi_/),
    });
    const bad = await runCli(['apikey', 'create', '--email', member.email, '--scopes', 'meetings:everything'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown scope/);
    const listed = await runCli(['apikey', 'list', '--email', member.email, '--json'], env);
    expect(listed.json.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ prefix: created.json.prefix, scopes: ['meetings:read'], status: 'active' }),
      ]),
    );
    expect(listed.stdout).not.toContain(created.json.key);
    const cred = await apiKeyCredential(t.db, created.json.key);
    await startSession(t.db, cred.principal, { method: 'api_key', apiKeyId: cred.keyId, ttlMs: 3_600_000 });
    expect((await runCli(['user', 'signins', '--email', member.email, '--json'], env)).json.sign_ins).toHaveLength(1);
    const revoked = await runCli(['apikey', 'revoke', '--prefix', created.json.prefix, '--json'], env);
    expect(revoked.json).toMatchObject({ revoked: true, sessions_ended: 1 });
    expect((await runCli(['user', 'signins', '--email', member.email, '--json'], env)).json.sign_ins).toHaveLength(0);
    const ended = await runCli(['user', 'end-signins', '--email', member.email, '--json'], env);
    expect(ended.json).toMatchObject({ grants_ended: 0, sessions_ended: 0 });
  });
});
