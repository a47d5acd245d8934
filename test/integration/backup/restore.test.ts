/**
 * Backup and restore as docs/backup-restore.md describes it with plain pg_dump: a running system's
 * database is dumped while meetings are written and the mcp role answers reads, restored into a
 * fresh PostgreSQL cluster, and this release's mcp role starts on the copy and answers. The dump is
 * one snapshot: every meeting in it has all of its sentences. The webhook secrets in it open only
 * with the same SECRETS_KEY: the key is part of the backup.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import knexFactory, { Knex } from 'knex';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { findPostgresBin, startLocalPostgres, LocalPostgres } from '../../../services/devstack/postgres';
import { freePort } from '../../../services/devstack/ports';
import { startMcpRole } from '../../../services/mcp/main';
import { saveWebhookUrl, setWebhookSecret } from '../../../services/core/webhooks';
import { openSecret } from '../../../services/core/webhooks/secrets';
import { inspectSchema } from '../../../services/platform/schema';
import { testConfig } from '../../support/config';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const SECRETS_KEY = 'ab'.repeat(32);
const SENTENCES = 12;
const run = promisify(execFile);

/** pg_dump and pg_restore of the PostgreSQL the tests run (initdb may be a symlink into its bin folder). */
const pgTool = (name: 'pg_dump' | 'pg_restore') => join(dirname(realpathSync(join(findPostgresBin(), 'initdb'))), name);

describe('backup with pg_dump under load, restore into a fresh cluster', () => {
  let t: TestDatabase;
  let fresh: LocalPostgres | undefined;
  let restored: Knex | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mi-backup-'));
  let user: TestUser;

  beforeAll(async () => {
    chmodSync(dir, 0o777); // pg_dump/pg_restore may run as the postgres user when we are root
    t = await createTestDatabase();
    user = await makeUser(t.db, await makeTeam(t.db), { name: 'Ada', role: 'admin' });
    await makeMeeting(t.db, { organizer: user, title: 'Before the backup' });
  });
  afterAll(async () => {
    await restored?.destroy();
    fresh?.stop();
    await t?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One meeting and its sentences in one transaction, as the pipeline persists a transcript. */
  const writeMeeting = (n: number) =>
    makeMeeting(t.db, {
      organizer: user,
      title: `Written during the backup ${n}`,
      sentences: Array.from({ length: SENTENCES }, (_, i) => ({
        speaker: i % 2 ? 'Guest' : 'Ada',
        text: `Sentence ${i} of meeting ${n}.`,
        start: i * 2,
        end: i * 2 + 1.5,
      })),
    });

  const mcpCall = async (url: string, key: string) => {
    const c = new McpClient({ name: 'backup-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    try {
      return (await c.callTool({ name: 'svc_get_transcripts', arguments: { format: 'json', limit: 1 } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
    } finally {
      await c.close();
    }
  };

  it('restores a consistent copy that this release starts on and serves, its secrets opening with the same SECRETS_KEY', async () => {
    const config = testConfig({ DATABASE_URL: t.url, SECRETS_KEY }, 'graphql');
    await saveWebhookUrl({ db: t.db, config }, user.principal, 'https://hooks.example.test/in');
    await setWebhookSecret({ db: t.db, config }, user.principal, { secret: 'backup-secret-1234567' });

    // The running system: the mcp role answering reads, a writer persisting meetings, both non-stop.
    const role = await startMcpRole(
      testConfig({ DATABASE_URL: t.url, MCP_PORT: '0', HOST: '127.0.0.1', SECRETS_KEY }, 'mcp'),
    );
    let busy = true;
    let written = 0;
    let reads = 0;
    const writer = (async () => {
      while (busy) await writeMeeting(written++);
    })();
    const reader = (async () => {
      while (busy) {
        const res = await mcpCall(role.url, user.key);
        expect(res.isError).toBeFalsy();
        reads++;
      }
    })();
    let dumpFile: string;
    try {
      while (written < 5) await new Promise((r) => setTimeout(r, 20));
      dumpFile = join(dir, 'meeting-intel.dump');
      const writtenBefore = written;
      await run(pgTool('pg_dump'), ['--format=custom', '--no-owner', '--file', dumpFile, '--dbname', t.url]);
      // Writes went on while pg_dump ran: it read one snapshot, not a moving table.
      expect(written).toBeGreaterThan(writtenBefore);
    } finally {
      busy = false;
      await Promise.all([writer, reader]);
      await role.close();
    }
    expect(reads).toBeGreaterThan(0);

    // A fresh cluster: nothing in it but what the dump brings.
    const pgDir = join(dir, 'restored-cluster');
    fresh = startLocalPostgres({ dataDir: pgDir, port: await freePort(), durable: false });
    const admin = knexFactory({ client: 'pg', connection: fresh.url, pool: { min: 0, max: 1 } });
    await admin.raw('create database meeting_intel');
    await admin.destroy();
    const restoredUrl = fresh.url.replace(/\/postgres$/, '/meeting_intel');
    await run(pgTool('pg_restore'), ['--no-owner', '--exit-on-error', '--dbname', restoredUrl, dumpFile!]);
    restored = knexFactory({ client: 'pg', connection: restoredUrl, pool: { min: 0, max: 2 } });

    // One snapshot: every meeting in the copy has every sentence it was written with.
    const counts: { title: string; n: string }[] = (
      await restored.raw(
        `select m.title, count(s.idx) as n from meetings m left join sentences s on s.meeting_id = m.id where m.title like 'Written during the backup %' group by m.title`,
      )
    ).rows;
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.length).toBeLessThan(written);
    expect(counts.filter((c) => Number(c.n) !== SENTENCES)).toEqual([]);

    // This release runs on the copy: the schema guard finds every migration, the role answers.
    expect(await inspectSchema(restored)).toMatchObject({ pending: [], ahead: [], problem: null });
    const copy = await startMcpRole(
      testConfig({ DATABASE_URL: restoredUrl, MCP_PORT: '0', HOST: '127.0.0.1', SECRETS_KEY }, 'mcp'),
    );
    try {
      expect((await fetch(copy.url.replace(/\/mcp$/, '/readyz'))).status).toBe(200);
      const res = await mcpCall(copy.url, user.key);
      expect(res.isError).toBeFalsy();
      // Every meeting of the copy: the one from before the backup and those the snapshot caught.
      expect(JSON.parse(res.content[0].text)).toMatchObject({ total: counts.length + 1, total_is_lower_bound: false });
    } finally {
      await copy.close();
    }

    // The sealed webhook secret opens with the SECRETS_KEY of the backup, and with no other key.
    const endpoint = await restored('webhook_endpoints').where({ user_id: user.id }).first('secret_ciphertext');
    expect(openSecret(Buffer.from(SECRETS_KEY, 'hex'), endpoint.secret_ciphertext)).toBe('backup-secret-1234567');
    expect(() => openSecret(Buffer.from('cd'.repeat(32), 'hex'), endpoint.secret_ciphertext)).toThrow();
  });
});
