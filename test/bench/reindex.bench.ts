/**
 * Re-index benchmark (issue 42, item 4): LanguageReindexWorkflow through to the end over meetings
 * waiting for their language's index, in a data set of 10 M sentences (50,000 meetings × 200), run
 * by a worker process on a real Temporal dev server as a deployment runs it, with caption uploads one
 * at a time during it and after it (upload → completed, seconds).
 *
 * Data: the MCP bench's 10,000 × 200 set (seeded when missing) copied over itself into a template
 * database, once (new meeting ids, triggers off: the same rows, lexeme sets and moments, then the
 * full-text index built again). Each run copies the template and gives the first --waiting meetings
 * an upload language (German, French, Spanish, Italian in turn: every sentence changes
 * configuration) and no meeting language, as release 0.1.0 left them; the bench starts the workflow
 * (with --batch and --rest-ratio) and then the worker, which finds it running.
 *
 *   npx tsx test/bench/reindex.bench.ts --database-url URL                    # 50,000 waiting: 10 M sentences
 *   npx tsx test/bench/reindex.bench.ts --waiting 2500 --rest-ratio 0         # 500,000 sentences, no rests
 *   npx tsx test/bench/reindex.bench.ts --meetings 10000 --waiting 500 --uploads 2   # quick
 */
import type { Server } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { reindexProgress } from '../../services/core/languages';
import { createApiKey } from '../../services/core/people';
import { freePort } from '../../services/devstack/ports';
import { createGraphqlApp } from '../../services/graphql/app';
import { loadConfig } from '../../services/platform/config';
import { createDb, migrateLatest } from '../../services/platform/db';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import { createTemporalClient } from '../../services/platform/temporal';
import { ensureLanguageReindex, languageReindexResult } from '../../workflows/client';
import { LANGUAGE_REINDEX_BATCH } from '../../workflows/contracts';
import { startMediaServer } from '../integration/core/ingest/media-server';
import { provisionTemporal } from '../support/stack';
import { syntheticMeetings, toWebVtt } from '../support/synthetic';
import { startWorkerProcess, waitReady } from './ingest.bench';
import { dbName, isSeeded, provisionDatabase, seedInChild, withDatabase } from './mcp.bench';
import { rolesEnv } from './options';

const BASE = { meetings: 10_000, sentences: 200, users: 50 };

function option(name: string, fallback: number, min = 1): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} takes a number of ${min} or more`);
  return n;
}
const MEETINGS = option('meetings', 50_000, BASE.meetings);
const WAITING = option('waiting', MEETINGS);
const BATCH = option('batch', LANGUAGE_REINDEX_BATCH);
const REST_RATIO = option('rest-ratio', 1, 0);
const UPLOADS = option('uploads', 5, 0);
const UPLOAD_EVERY_S = option('upload-every', 20);
const databaseUrl = (() => {
  const i = process.argv.indexOf('--database-url');
  return i < 0 ? process.env.DATABASE_URL : process.argv[i + 1];
})();
if (MEETINGS % BASE.meetings) throw new Error(`--meetings must be a multiple of ${BASE.meetings}`);
if (WAITING > MEETINGS) throw new Error('--waiting must be at most --meetings');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg()[0].toFixed(1);
const log = (msg: string) => console.log(`  ${msg} (load ${load()})`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The tables holding a meeting's rows in the MCP bench's data set, parents first. */
const TABLES: [string, string][] = [
  ['meetings', 'id'],
  ['sentences', 'meeting_id'],
  ['meeting_participants', 'meeting_id'],
  ['summaries', 'meeting_id'],
  ['meeting_analytics', 'meeting_id'],
  ['speaker_analytics', 'meeting_id'],
  ['best_moments', 'meeting_id'],
];

/**
 * The base set copied until it holds `meetings`: copy k's ids end in the k-th lowercase letter (ULIDs
 * end in 0-9 or A-Z, so no copy meets an original), rows as they are, triggers and foreign keys off.
 */
async function buildTemplate(adminUrl: string, base: string, name: string, meetings: number): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`drop database if exists ${name} with (force)`);
  await admin.raw(`create database ${name} template ${base}`);
  await admin.destroy();
  const db = knexFactory({ client: 'pg', connection: withDatabase(adminUrl, name), pool: { min: 1, max: 1 } });
  try {
    await db.raw('set session_replication_role = replica');
    const gin = (await db.raw("select indexdef from pg_indexes where indexname = 'sentences_tsv_idx'")).rows[0]
      .indexdef;
    await db.raw('drop index sentences_tsv_idx');
    for (let k = 1; k < meetings / BASE.meetings; k++) {
      const letter = String.fromCharCode(96 + k);
      for (const [table, key] of TABLES) {
        const { rows } = await db.raw(
          "select column_name as c from information_schema.columns where table_name = ? and table_schema = 'public'" +
            " and is_generated = 'NEVER' and is_identity = 'NO' and coalesce(column_default, '') not like 'nextval%'" +
            ' order by ordinal_position',
          [table],
        );
        const cols = (rows as { c: string }[]).map((r) => r.c);
        const values = cols.map((c) => (c === key ? `left(${c}, 25) || '${letter}'` : c));
        await db.raw(
          `insert into ${table} (${cols.join(', ')}) select ${values.join(', ')} from ${table} where right(${key}, 1) <= 'Z'`,
        );
      }
      log(`copy ${k} of ${meetings / BASE.meetings - 1} done`);
    }
    await db.raw("set maintenance_work_mem = '1GB'");
    await db.raw(gin);
    await db.raw('vacuum analyze');
    await db.raw('update bench_info set meetings = ?, done = true', [meetings]);
  } finally {
    await db.destroy();
  }
}

/** The first `waiting` meetings as 0.1.0 left an upload with a language: custom_language, no meeting language. */
async function markWaiting(db: Knex, waiting: number): Promise<number> {
  await db.raw(
    `update meetings m set custom_language = (array['de', 'fr', 'es', 'it'])[1 + (n.rn % 4)::int], language = null, language_source = null
     from (select id, row_number() over (order by id) as rn from meetings order by id limit ?) n where n.id = m.id`,
    [waiting],
  );
  const { rows } = await db.raw(
    'select count(*)::int as n from sentences s join meetings m on m.id = s.meeting_id where m.custom_language is not null and m.language is null',
  );
  return rows[0].n;
}

const UPLOAD = 'mutation U($input: AudioUploadInput!) { uploadAudio(input: $input) { success meetingId message } }';

async function main(): Promise<void> {
  console.log(
    `Re-index benchmark: ${MEETINGS} meetings × 200 sentences, ${WAITING} waiting; batch ${BATCH}, rest ratio ${REST_RATIO}; load ${load()}`,
  );
  const pg = await provisionDatabase({ databaseUrl, keepPostgres: true });
  const base = dbName(BASE);
  const template = `mi_reindex_${MEETINGS}x200`;
  const run = `${template}_run`;
  if (!(await isSeeded(pg.adminUrl, withDatabase(pg.adminUrl, base), base))) {
    await seedInChild(withDatabase(pg.adminUrl, base), BASE);
  }
  const up = createDb({ url: withDatabase(pg.adminUrl, base), poolMax: 1 });
  await migrateLatest(up);
  await up.destroy();
  if (!(await isSeeded(pg.adminUrl, withDatabase(pg.adminUrl, template), template))) {
    const t0 = Date.now();
    await buildTemplate(pg.adminUrl, base, template, MEETINGS);
    log(`template ${template} built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const admin = knexFactory({ client: 'pg', connection: pg.adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`drop database if exists ${run} with (force)`);
  await admin.raw(`create database ${run} template ${template}`);
  await admin.destroy();
  const url = withDatabase(pg.adminUrl, run);
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db); // a template built by an older checkout lacks the newest migrations
  const sentences = await markWaiting(db, WAITING);
  log(`${WAITING} meetings waiting, ${sentences} sentences`);

  const temporalServer = await provisionTemporal();
  const env = {
    ...rolesEnv(url, temporalServer.url, 'bench', { DATABASE_POOL_MAX: '10', RATE_LIMIT_PER_MINUTE: '100000' }),
  };
  const config = loadConfig(env, 'graphql');
  const { client: temporal, connection } = createTemporalClient(config);
  const { app, stop } = await createGraphqlApp({ db, config, temporal }, []);
  const server: Server = await listen(app, 0, '127.0.0.1');
  const graphqlUrl = `${serverUrl(server)}/graphql`;
  const uploader = await db('users').where({ role: 'member' }).orderBy('email').first('email');
  const { key } = await createApiKey(db, { email: uploader.email });
  const media = await startMediaServer();
  const calls = syntheticMeetings({
    count: 2 * UPLOADS + 1,
    sentencesPerMeeting: 200,
    seed: 42,
    users: [{ name: 'User 01', email: uploader.email }],
  });
  const urls = calls.map((m, i) => media.serve(`/m/${i}.vtt`, { body: toWebVtt(m), contentType: 'text/vtt' }));
  const uploadOne = async (i: number): Promise<number> => {
    const started = Date.now();
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: UPLOAD, variables: { input: { url: urls[i], title: calls[i].title } } }),
    });
    const body = (await res.json()) as {
      data?: { uploadAudio: { meetingId: string } };
      errors?: { message: string }[];
    };
    if (!body.data) throw new Error(`upload refused: ${body.errors?.[0]?.message}`);
    const id = body.data.uploadAudio.meetingId;
    for (;;) {
      const row = await db('meetings').where({ id }).first('status');
      if (row.status === 'completed') return (Date.now() - started) / 1000;
      if (row.status !== 'processing') throw new Error(`upload ${i} ended ${row.status}`);
      await sleep(50);
    }
  };

  const port = await freePort();
  const logFile = join(tmpdir(), `mi-bench-reindex-worker-${process.pid}.log`);
  const worker = startWorkerProcess(env, port, logFile);
  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`, worker);
    await uploadOne(2 * UPLOADS); // warm-up: the worker's first upload loads what it loads once
    const started = Date.now();
    await ensureLanguageReindex(temporal, env.TEMPORAL_TASK_QUEUE, { batchSize: BATCH, restRatio: REST_RATIO });
    const result = languageReindexResult(temporal, env.TEMPORAL_TASK_QUEUE);
    let finished = false;
    void result.then(() => (finished = true));
    const during: number[] = [];
    let nextUpload = Date.now() + UPLOAD_EVERY_S * 1000;
    let nextReport = Date.now() + 30_000;
    while (!finished) {
      if (during.length < UPLOADS && Date.now() >= nextUpload) {
        during.push(await uploadOne(during.length));
        nextUpload = Date.now() + UPLOAD_EVERY_S * 1000;
      }
      if (Date.now() >= nextReport) {
        const { remaining } = await reindexProgress(db);
        const s = (Date.now() - started) / 1000;
        log(`${s.toFixed(0)} s: ${WAITING - remaining} of ${WAITING} meetings re-indexed`);
        nextReport = Date.now() + 30_000;
      }
      await sleep(250);
    }
    const r = await result;
    const seconds = (Date.now() - started) / 1000;
    const after: number[] = [];
    for (let i = 0; i < during.length; i++) after.push(await uploadOne(UPLOADS + i));
    console.log(
      `  re-index: ${r.meetings} meetings, ${r.sentences} sentences in ${seconds.toFixed(1)} s:` +
        ` ${(r.sentences / seconds).toFixed(0)} sentences/s (batch ${BATCH}, rest ratio ${REST_RATIO}); ${r.remaining} left`,
    );
    console.log(
      `  upload → completed (200 sentences), median: ${median(during).toFixed(2)} s during the re-index` +
        ` (${during.map((x) => x.toFixed(2)).join(', ')}), ${median(after).toFixed(2)} s after (${after.map((x) => x.toFixed(2)).join(', ')})`,
    );
    console.log(`  load after: ${load()}; worker log ${logFile}`);
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    await closeServers([server], 1000);
    await stop();
    await media.close();
    await connection.close();
    await db.destroy();
    await temporalServer.stop();
    pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
