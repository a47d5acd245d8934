/**
 * Developer settings over GraphQL (docs/webhooks.md, Developer settings): the saved webhook URL (https only), its
 * secret (16 to 32 characters, or generated and shown once, sealed at rest, rotated with an overlap),
 * and the team-wide webhook (super admins of Enterprise teams only). Every refusal names the field and
 * the rule, and stores nothing.
 */
import { openSecret } from '../../../../services/core/webhooks/secrets';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import {
  CLEAR_TEAM,
  CLEAR_URL,
  DEVELOPER_SETTINGS,
  ok,
  refused,
  SAVE_URL,
  SET_SECRET,
  SET_TEAM,
  SET_TEAM_SECRET,
  TEAM_WEBHOOK,
} from './support';

describe('webhook developer settings', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let ana: TestUser;
  let ben: TestUser;
  let superAdmin: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let businessSuperAdmin: TestUser;
  const key = () => gql.config.secretsKey!;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise' });
    ana = await makeUser(t.db, team);
    ben = await makeUser(t.db, team);
    superAdmin = await makeUser(t.db, team, { role: 'super_admin' });
    admin = await makeUser(t.db, team, { role: 'admin' });
    member = await makeUser(t.db, team);
    businessSuperAdmin = await makeUser(t.db, await makeTeam(t.db, { tier: 'business' }), { role: 'super_admin' });
    // Production defaults: private addresses are refused.
    gql = await startGraphql(t.db, { ALLOW_PRIVATE_NETWORK: 'false' });
  });
  afterAll(async () => {
    await gql?.close();
    await t?.drop();
  });

  const endpoint = (userId: string) => t.db('webhook_endpoints').where({ scope: 'user', user_id: userId }).first();

  describe('webhook URL', () => {
    it('starts empty, with a notice', async () => {
      const data = await ok(gql, ana.key, DEVELOPER_SETTINGS);
      expect(data.developerSettings).toMatchObject({
        url: null,
        secret_set: false,
        disabled_at: null,
        previous_secret_expires_at: null,
      });
      expect(data.developerSettings.notice).toMatch(/No webhook URL/);
    });

    it('saves a valid https URL, audited, and says a secret is still needed', async () => {
      const data = await ok(gql, ana.key, SAVE_URL, { url: ' https://hooks.example.com/transcripts?team=7 ' });
      expect(data.saveWebhookUrl).toMatchObject({
        url: 'https://hooks.example.com/transcripts?team=7',
        secret_set: false,
      });
      expect(data.saveWebhookUrl.notice).toMatch(/No secret is set.*never sent unsigned/);
      expect((await endpoint(ana.id)).url).toBe('https://hooks.example.com/transcripts?team=7');
      const audited = await t.db('audit_log').where({ actor_user_id: ana.id, action: 'webhook.url_saved' }).first();
      expect(audited.details).toEqual({ scope: 'user', host: 'hooks.example.com' });
    });

    it.each([
      [
        'an http URL',
        'http://hooks.example.com/transcripts',
        'invalid_arguments',
        'must be a valid https URL',
        /got a http URL/,
      ],
      [
        'a malformed URL',
        'hooks.example.com/transcripts',
        'invalid_arguments',
        'must be a valid https URL',
        /is not a URL/,
      ],
      ['an https URL without a host', 'https://', 'invalid_arguments', 'must be a valid https URL', /./],
      ['an ftp URL', 'ftp://hooks.example.com/x', 'invalid_arguments', 'must be a valid https URL', /got a ftp URL/],
      [
        'credentials in the URL',
        'https://user:pw@hooks.example.com/x',
        'invalid_arguments',
        'no credentials in the URL',
        /user name or password/,
      ],
      [
        'a loopback address',
        'https://127.0.0.1/hook',
        'invalid_arguments',
        'must be a public address',
        /private, loopback or reserved/,
      ],
      ['a private address', 'https://10.1.2.3/hook', 'invalid_arguments', 'must be a public address', /private/],
      ['localhost', 'https://localhost:8443/hook', 'invalid_arguments', 'must be a public address', /localhost/],
      ['an empty string', '  ', 'args_required', 'required', /url is required/],
    ])('refuses %s and stores nothing', async (_what, url, code, rule, message) => {
      const before = await endpoint(ana.id);
      const error = await refused(gql, ana.key, SAVE_URL, { url });
      expect(error.extensions).toMatchObject({ code, field: 'url', rule });
      expect(error.message).toMatch(message);
      expect(await endpoint(ana.id)).toEqual(before);
    });

    it('takes a URL of exactly 2048 characters and refuses 2049', async () => {
      const base = 'https://hooks.example.com/';
      const at = (n: number) => base + 'a'.repeat(n - base.length);
      const error = await refused(gql, ben.key, SAVE_URL, { url: at(2049) });
      expect(error.extensions).toMatchObject({
        code: 'invalid_arguments',
        field: 'url',
        rule: 'at most 2048 characters',
      });
      expect(await endpoint(ben.id)).toBeUndefined();
      const data = await ok(gql, ben.key, SAVE_URL, { url: at(2048) });
      expect(data.saveWebhookUrl.url).toHaveLength(2048);
    });

    it('clears the URL and keeps the secret', async () => {
      await ok(gql, ben.key, SET_SECRET, { secret: 'b'.repeat(20) });
      const data = await ok(gql, ben.key, CLEAR_URL);
      expect(data.clearWebhookUrl).toMatchObject({ url: null, secret_set: true });
      const row = await endpoint(ben.id);
      expect(row.url).toBeNull();
      expect(openSecret(key(), row.secret_ciphertext)).toBe('b'.repeat(20));
      // Clearing twice is fine and changes nothing.
      expect((await ok(gql, ben.key, CLEAR_URL)).clearWebhookUrl).toMatchObject({ url: null, secret_set: true });
    });
  });

  describe('webhook secret', () => {
    it.each([
      [15, 'a secret of 15 characters'],
      [33, 'a secret of 33 characters'],
    ])('refuses %i characters, naming the field and the rule, and stores nothing', async (n) => {
      const before = await endpoint(member.id);
      const error = await refused(gql, member.key, SET_SECRET, { secret: 's'.repeat(n) });
      expect(error.extensions).toMatchObject({
        code: 'invalid_arguments',
        field: 'secret',
        rule: 'length 16 to 32 characters',
      });
      expect(error.message).toContain(`got ${n}`);
      expect(await endpoint(member.id)).toEqual(before);
    });

    it.each([16, 32])('accepts %i characters, sealed at rest', async (n) => {
      const secret = `${n}`.padEnd(n, 'x');
      const data = await ok(gql, member.key, SET_SECRET, { secret });
      expect(data.setWebhookSecret.secret).toBeNull(); // a chosen secret is not echoed
      expect(data.setWebhookSecret.settings.secret_set).toBe(true);
      const row = await endpoint(member.id);
      expect(row.secret_ciphertext).not.toContain(secret);
      expect(row.secret_ciphertext).toMatch(/^v1\./);
      expect(openSecret(key(), row.secret_ciphertext)).toBe(secret);
    });

    it('counts characters, not bytes: 16 two-byte characters are accepted, 15 refused', async () => {
      await refused(gql, admin.key, SET_SECRET, { secret: 'é'.repeat(15) });
      const data = await ok(gql, admin.key, SET_SECRET, { secret: 'é'.repeat(16) });
      expect(data.setWebhookSecret.settings.secret_set).toBe(true);
    });

    it('refuses control characters, surrounding spaces, both or neither of secret and generate', async () => {
      const before = await endpoint(ana.id);
      expect((await refused(gql, ana.key, SET_SECRET, { secret: 'abcdefgh\nijklmnop' })).extensions).toMatchObject({
        field: 'secret',
        rule: 'printable characters only',
      });
      expect((await refused(gql, ana.key, SET_SECRET, { secret: ' abcdefghijklmnop' })).extensions).toMatchObject({
        field: 'secret',
        rule: 'no leading or trailing spaces',
      });
      expect(
        (await refused(gql, ana.key, SET_SECRET, { secret: 'abcdefghijklmnopq', generate: true })).extensions,
      ).toMatchObject({
        code: 'invalid_arguments',
        field: 'generate',
      });
      expect((await refused(gql, ana.key, SET_SECRET, {})).extensions).toMatchObject({
        code: 'args_required',
        field: 'secret',
        rule: 'required',
      });
      expect((await refused(gql, ana.key, SET_SECRET, { generate: false })).extensions).toMatchObject({
        code: 'args_required',
        field: 'secret',
      });
      expect(await endpoint(ana.id)).toEqual(before);
    });

    it('generates a 32-character secret, shows it once, and never again', async () => {
      const data = await ok(gql, ana.key, SET_SECRET, { generate: true });
      const secret = data.setWebhookSecret.secret;
      expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(data.setWebhookSecret.settings).toMatchObject({
        secret_set: true,
        previous_secret_expires_at: null,
        notice: null,
      });
      expect(openSecret(key(), (await endpoint(ana.id)).secret_ciphertext)).toBe(secret);
      const again = await gql.request(ana.key, DEVELOPER_SETTINGS);
      expect(JSON.stringify(again.body)).not.toContain(secret);
      // The audit log says a secret was set, never which.
      const rows = await t.db('audit_log').where({ actor_user_id: ana.id });
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(rows.find((r) => r.action === 'webhook.secret_set')?.details).toMatchObject({
        scope: 'user',
        generated: true,
        rotated: false,
      });
    });

    it('rotating keeps the old secret for WEBHOOK_SECRET_OVERLAP (24h by default)', async () => {
      const first = (await ok(gql, ben.key, DEVELOPER_SETTINGS)).developerSettings;
      expect(first.secret_set).toBe(true);
      const before = Date.now();
      const data = await ok(gql, ben.key, SET_SECRET, { secret: 'new-secret-0123456789' });
      const until = Date.parse(data.setWebhookSecret.settings.previous_secret_expires_at);
      expect(until).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 1000);
      expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000 + 1000);
      const row = await endpoint(ben.id);
      expect(openSecret(key(), row.secret_ciphertext)).toBe('new-secret-0123456789');
      expect(openSecret(key(), row.previous_secret_ciphertext)).toBe('b'.repeat(20));
    });
  });

  describe('team-wide webhook', () => {
    const teamRow = (teamId: string) => t.db('webhook_endpoints').where({ scope: 'team', team_id: teamId }).first();

    it.each([
      ['a member of an Enterprise team', () => member, 'require_elevated_privilege'],
      ['an admin (not super admin) of an Enterprise team', () => admin, 'require_elevated_privilege'],
      ['a super admin of a Business team', () => businessSuperAdmin, 'paid_required'],
    ])('refuses %s, storing nothing', async (_who, who, code) => {
      const u = who();
      for (const [query, variables] of [
        [SET_TEAM, { url: 'https://hooks.example.com/team' }],
        [SET_TEAM_SECRET, { generate: true }],
        [TEAM_WEBHOOK, {}],
        [CLEAR_TEAM, {}],
      ] as const) {
        const error = await refused(gql, u.key, query, variables);
        expect(error.extensions!.code).toBe(code);
        expect(error.message).toMatch(
          code === 'paid_required' ? /Enterprise tier; your team is on business/ : /super admin/,
        );
      }
      expect(await teamRow(u.teamId)).toBeUndefined();
    });

    it('lets a super admin of an Enterprise team set it, always with a secret (generated once when none is given)', async () => {
      const refusedUrl = await refused(gql, superAdmin.key, SET_TEAM, { url: 'http://hooks.example.com/team' });
      expect(refusedUrl.extensions).toMatchObject({
        code: 'invalid_arguments',
        field: 'url',
        rule: 'must be a valid https URL',
      });
      const shortSecret = await refused(gql, superAdmin.key, SET_TEAM, {
        url: 'https://hooks.example.com/team',
        secret: 'x'.repeat(15),
      });
      expect(shortSecret.extensions).toMatchObject({
        code: 'invalid_arguments',
        field: 'secret',
        rule: 'length 16 to 32 characters',
      });
      expect(await teamRow(superAdmin.teamId)).toBeUndefined();

      const data = await ok(gql, superAdmin.key, SET_TEAM, { url: 'https://hooks.example.com/team' });
      expect(data.setTeamWebhook.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(data.setTeamWebhook.settings).toMatchObject({
        url: 'https://hooks.example.com/team',
        secret_set: true,
        notice: null,
      });
      const row = await teamRow(superAdmin.teamId);
      expect(row.user_id).toBeNull();
      expect(openSecret(key(), row.secret_ciphertext)).toBe(data.setTeamWebhook.secret);

      // A new URL keeps the secret (not shown again); a custom secret of 32 characters rotates it.
      const moved = await ok(gql, superAdmin.key, SET_TEAM, { url: 'https://hooks.example.com/team2' });
      expect(moved.setTeamWebhook.secret).toBeNull();
      expect(openSecret(key(), (await teamRow(superAdmin.teamId)).secret_ciphertext)).toBe(data.setTeamWebhook.secret);
      const rotated = await ok(gql, superAdmin.key, SET_TEAM_SECRET, { secret: 'T'.repeat(32) });
      expect(rotated.setTeamWebhookSecret.settings.previous_secret_expires_at).not.toBeNull();
      expect(openSecret(key(), (await teamRow(superAdmin.teamId)).secret_ciphertext)).toBe('T'.repeat(32));

      expect((await ok(gql, superAdmin.key, TEAM_WEBHOOK)).teamWebhook.url).toBe('https://hooks.example.com/team2');
      expect((await ok(gql, superAdmin.key, CLEAR_TEAM)).clearTeamWebhook).toMatchObject({
        url: null,
        secret_set: true,
      });
    });

    it('is not the same thing as a user setting: a user endpoint of the super admin is untouched', async () => {
      expect(await endpoint(superAdmin.id)).toBeUndefined();
    });
  });
});
