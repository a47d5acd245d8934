/**
 * `make dev`: everything a laptop needs, started and stopped together.
 *   PostgreSQL: DATABASE_URL, else a throwaway cluster in .dev/pg (initdb/pg_ctl from PATH or /usr/lib/postgresql).
 *   Temporal:   TEMPORAL_ADDRESS, else `temporal server start-dev` (built into .tools/bin when absent).
 * Then: migrate, seed the demo team, serve mcp + graphql + worker in this process, print where to connect.
 * Ctrl-C stops everything it started.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import { authenticateApiKey } from '../core/people';
import { asrEngine, engineFor } from '../intelligence/asr';
import { loadConfig } from '../platform/config';
import { createDb, migrateLatest } from '../platform/db';
import { onShutdownSignal } from '../platform/http';
import { createRuntime } from '../platform/runtime';
import { configureLogger } from '../platform/logger';
import { installTemporalRuntime } from '../platform/temporal-runtime';
import { seedDemo } from '../cli/commands/seed';
import { startMcpRole } from '../mcp/main';
import { startGraphqlRole } from '../graphql/main';
import { startWorkerRole } from '../worker/main';
import { findPostgresBin, MissingBinaryError, startLocalPostgres } from './postgres';
import { buildTemporal, findTemporal, startLocalTemporal } from './temporal';
import { freePort } from './ports';

const ROOT = resolve(__dirname, '..', '..');
const DEV = join(ROOT, '.dev');
const say = (s: string) => process.stdout.write(`[dev] ${s}\n`);

async function portOr(preferred: number): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => void freePort().then(res));
    s.listen(preferred, '127.0.0.1', () => s.close(() => res(preferred)));
  });
}

/** A value kept in .dev between runs (the secrets key, the demo API key). */
function kept(name: string, make: () => string): string {
  const file = join(DEV, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const v = make();
  writeFileSync(file, `${v}\n`, { mode: 0o600 });
  return v;
}

/** A dev server left running by a run that was killed holds its state file: stop it first. */
function stopLeftover(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    process.kill(pid, 'SIGKILL');
    say(`stopped a Temporal dev server left from an earlier run (pid ${pid})`);
  } catch {
    /* not running */
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw('select 1 from pg_database where datname = ?', [name]);
    if (!rows.length) await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

function redactPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return 'your DATABASE_URL';
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  mkdirSync(DEV, { recursive: true });
  const stops: (() => Promise<void> | void)[] = [];

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    try {
      findPostgresBin();
    } catch (e) {
      if (e instanceof MissingBinaryError) {
        process.stderr.write(`\n${e.message}\n\n`);
        process.exit(1);
      }
      throw e;
    }
    const pg = startLocalPostgres({ dataDir: join(DEV, 'pg'), port: await portOr(54329) });
    stops.push(() => pg.stop());
    say(`PostgreSQL ${pg.url} (data in .dev/pg)`);
    databaseUrl = await ensureDatabase(pg.url, 'meeting_intelligence');
  } else {
    say('PostgreSQL from DATABASE_URL');
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const binary = findTemporal() ?? buildTemporal(say);
    stopLeftover(join(DEV, 'temporal.pid'));
    const t = await startLocalTemporal({ binary, port: await portOr(7233), dbFile: join(DEV, 'temporal.db') });
    writeFileSync(join(DEV, 'temporal.pid'), String(t.process.pid));
    stops.push(() => t.stop());
    temporalAddress = t.address;
    say(`Temporal dev server ${temporalAddress} (state in .dev/temporal.db)`);
  } else {
    say(`Temporal from TEMPORAL_ADDRESS ${temporalAddress}`);
  }

  const mcpPort = Number(process.env.MCP_PORT ?? (await portOr(3000)));
  const graphqlPort = Number(process.env.GRAPHQL_PORT ?? (await portOr(4000)));
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    SECRETS_KEY: process.env.SECRETS_KEY ?? kept('secrets-key', () => randomBytes(32).toString('hex')),
    ALLOW_PRIVATE_NETWORK: process.env.ALLOW_PRIVATE_NETWORK ?? 'true',
    HOST: process.env.HOST ?? '127.0.0.1',
    MCP_PORT: String(mcpPort),
    GRAPHQL_PORT: String(graphqlPort),
    WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT ?? String(await portOr(9464)),
    // The address the mcp role listens on (HOST defaults to 127.0.0.1): the links the service makes and
    // the URLs printed below are the one the browser and the MCP clients use.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${mcpPort}`,
    GRAPHQL_INTROSPECTION: process.env.GRAPHQL_INTROSPECTION ?? 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The multilingual model once `make models-multilingual` has made it (docs/speech.md).
    SPEECH_MODELS:
      process.env.SPEECH_MODELS ??
      (existsSync(join(process.env.SPEECH_MODELS_DIR ?? '.models', 'whisper-base', 'model.json'))
        ? 'whisper-base'
        : ''),
  };
  const config = loadConfig(env, 'worker');
  configureLogger(config, 'dev');
  installTemporalRuntime(config);

  const db = createDb({ url: config.databaseUrl, poolMax: 4 });
  await migrateLatest(db);
  const seeded = await seedDemo(db, config);
  // The demo key is kept between runs; a new one is made when it no longer works, or when it lacks the
  // admin scope (keys made by earlier versions without naming scopes carried read and write only).
  let apiKey = existsSync(join(DEV, 'demo-api-key')) ? readFileSync(join(DEV, 'demo-api-key'), 'utf8').trim() : '';
  try {
    const p = await authenticateApiKey(db, apiKey);
    if (p.scopes && !p.scopes.includes('admin')) throw new Error('the demo key lacks the admin scope');
  } catch {
    apiKey = seeded.apiKey ?? (await seeded.newKey());
    writeFileSync(join(DEV, 'demo-api-key'), `${apiKey}\n`, { mode: 0o600 });
  }
  await db.destroy();

  const rt = createRuntime(config);
  const roles = [await startMcpRole(config, rt), await startGraphqlRole(config, rt), await startWorkerRole(config, rt)];
  onShutdownSignal(async () => {
    say('stopping');
    await Promise.all(roles.map((r) => r.close()));
    await rt.close();
    for (const stop of stops.reverse()) await stop();
    say('stopped everything it started');
  });

  // The CLI's own database is the service's: the URL of the cluster started here, or the caller's
  // DATABASE_URL (its password not printed).
  const cliDatabaseUrl = process.env.DATABASE_URL ? redactPassword(databaseUrl) : databaseUrl;
  const mcpUrl = `${config.publicBaseUrl}/mcp`;
  const graphqlUrl = roles[1].url;
  const speech = await speechLine(config);
  process.stdout.write(`
  Meeting Intelligence is ready (${((Date.now() - started) / 1000).toFixed(1)} s)

    MCP:      ${mcpUrl}
    GraphQL:  ${graphqlUrl}
    Pages:    ${mcpUrl.replace(/\/mcp$/, '/meetings')}   (sign in with the API key)
    API key:  ${apiKey}   (demo super admin ${seeded.adminEmail})
    Speech:   ${speech}

  Transcribe a recording (an mp3 or mp4 at a URL the worker can fetch):
    curl -s ${graphqlUrl} -H "Authorization: Bearer ${apiKey}" -H 'content-type: application/json' \\
      -d '{"query":"mutation($i: AudioUploadInput) { uploadAudio(input: $i) { meetingId } }","variables":{"i":{"url":"https://example.com/meeting.mp3","title":"Weekly"}}}'

  Connect an MCP client, e.g. Claude Code:
    claude mcp add --transport http meetings ${mcpUrl} --header "Authorization: Bearer ${apiKey}"
  Try it:
    curl -s ${mcpUrl} -H "Authorization: Bearer ${apiKey}" -H 'content-type: application/json' \\
      -H 'accept: application/json, text/event-stream' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_get_transcripts","arguments":{"limit":3}}}'

  The admin CLI against this service's database:
    CLI: DATABASE_URL=${cliDatabaseUrl} npx meeting-intel team create --name Acme --tier pro

  Ctrl-C stops everything.
`);
}

/** Which engine and model transcribe recordings (the embedded engine is already loaded by the worker). */
async function speechLine(config: ReturnType<typeof loadConfig>): Promise<string> {
  if (asrEngine(config) !== 'embedded') return `the server at ASR_URL ${config.asr.url} (model ${config.asr.model})`;
  const engine = await engineFor(config);
  const e = engine.describe();
  const more = engine.models.slice(1).map((m) => `${m.name} (${m.languages.join(', ')})`);
  return `embedded engine, model ${e.model}${more.length ? ` and ${more.join(', ')}` : ''} (${e.runtime}; SPEECH_MODEL, SPEECH_MODELS and docs/speech.md to change it)`;
}

main().catch((e) => {
  process.stderr.write(`[dev] failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
