/**
 * Languages benchmark: keyword search with moments over meetings of mixed languages against the same
 * meetings all English, in one run, and the rate of the re-index that gives existing meetings their
 * language's index.
 *
 * The English data set is the MCP bench's (seeded by it, in its cluster, when missing). The mixed one
 * is a copy of it whose meetings take, three in four, German, French or Spanish as their upload
 * language and are re-indexed by the re-index step LanguageReindexWorkflow runs, here in a loop of
 * its own with no rests (timed: the rate; the workflow itself at 10 M sentences: reindex.bench.ts). Their words stay the English vocabulary, indexed with their language's configuration: what
 * differs between the two is the query machinery (one parse per configuration, each tested on its
 * own meetings) and the lexeme sets the configurations make, not the talk.
 *
 * A call is what a keyword list with moments costs in the database and in core: the keyword's parse,
 * the list statement, the moments of the page's meetings (3 a meeting). One call at a time, the two
 * databases in alternating blocks of 20 so the machine's drift falls on both alike; 5 rounds of 400
 * calls a database, the ratio of each round's p95 printed, and their median (a shared machine's p95
 * moves a lot from one minute to the next). Options: --meetings (10000), --sentences (200), --calls
 * (400), --rounds (5), --block (20), --reseed, --keep-postgres, --database-url.
 *
 *   npx tsx test/bench/languages.bench.ts                        # 10,000 meetings × 200 sentences (2 M)
 *   npx tsx test/bench/languages.bench.ts --meetings 500 --sentences 50 --calls 100 --rounds 3   # quick
 */
import type { Knex } from 'knex';
import knexFactory from 'knex';
import { loadavg } from 'node:os';
import { reindexStep } from '../../services/core/languages';
import { LANGUAGE_REINDEX_BATCH } from '../../workflows/contracts';
import { keywordQuery } from '../../services/core/meetings';
import { resolveFilters } from '../../services/core/meetings/filters';
import { momentTsquery, momentWords } from '../../services/core/meetings/keyword-query';
import { listStatement } from '../../services/core/meetings/list-plan';
import { momentsStatement } from '../../services/core/meetings/moments';
import { authenticateApiKey, createApiKey } from '../../services/core/people';
import type { Principal } from '../../services/core/access';
import { createDb, migrateLatest } from '../../services/platform/db';
import { runSql } from '../../services/platform/sql';
import {
  createDatabase,
  dbName,
  GENERAL,
  isSeeded,
  provisionDatabase,
  seedInChild,
  TAIL,
  TOPICS,
  withDatabase,
} from './mcp.bench';

interface Options {
  meetings: number;
  sentences: number;
  users: number;
  /** Measured calls per database. */
  calls: number;
  /** Calls per block before switching database. */
  block: number;
  /** Rounds, each of `calls` calls a database. */
  rounds: number;
  reseed: boolean;
  databaseUrl?: string;
  keepPostgres: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    meetings: 10_000,
    sentences: 200,
    users: 50,
    calls: 400,
    rounds: 5,
    block: 20,
    reseed: false,
    databaseUrl: process.env.DATABASE_URL,
    keepPostgres: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`${a} needs a positive whole number`);
      return v;
    };
    if (a === '--meetings') o.meetings = num();
    else if (a === '--sentences') o.sentences = num();
    else if (a === '--calls') o.calls = num();
    else if (a === '--block') o.block = num();
    else if (a === '--rounds') o.rounds = num();
    else if (a === '--reseed') o.reseed = true;
    else if (a === '--keep-postgres') o.keepPostgres = true;
    else if (a === '--database-url') o.databaseUrl = argv[++i];
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** The upload languages the mixed copy's meetings take in turn; the fourth stays English. */
const LANGUAGES = ['de', 'fr', 'es', null];

/** A copy of the English data set, three in four meetings given another language and re-indexed. Answers the re-index's rate. */
async function mixedCopy(adminUrl: string, english: string, mixed: string): Promise<string> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`drop database if exists ${mixed} with (force)`);
  await admin.raw(`create database ${mixed} template ${english}`);
  await admin.destroy();
  await copySettings(adminUrl, english, mixed);
  const db = createDb({ url: withDatabase(adminUrl, mixed), poolMax: 2 });
  try {
    await db.raw('update bench_info set done = false');
    await db.raw(
      `update meetings m set custom_language = (array[${LANGUAGES.map((l) => (l ? `'${l}'` : 'null')).join(', ')}])[1 + (n.rn % ${LANGUAGES.length})]
       from (select id, row_number() over (order by id) as rn from meetings) n where n.id = m.id`,
    );
    const started = Date.now();
    let meetings = 0;
    let sentences = 0;
    let afterId = '';
    for (;;) {
      const step = await reindexStep(db, LANGUAGE_REINDEX_BATCH, afterId);
      afterId = step.lastId;
      meetings += step.meetings;
      sentences += step.sentences;
      if (meetings % 1000 < LANGUAGE_REINDEX_BATCH)
        process.stdout.write(
          `\r  re-indexing: ${meetings} meetings, ${sentences} sentences, ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
      if (step.done) break;
    }
    const seconds = (Date.now() - started) / 1000;
    await db.raw('vacuum analyze');
    await db.raw('update bench_info set done = true');
    const rate = `re-index: ${meetings} meetings, ${sentences} sentences in ${seconds.toFixed(1)} s: ${(sentences / seconds).toFixed(0)} sentences/s, 10 M sentences in ${(10_000_000 / (sentences / seconds) / 3600).toFixed(1)} h`;
    process.stdout.write(`\r  ${rate}\n`);
    return rate;
  } finally {
    await db.destroy();
  }
}

/**
 * The English database's own settings (ALTER DATABASE … SET, such as the no_jit migration's
 * jit = off) on the copy: CREATE DATABASE … TEMPLATE copies the data, not them.
 */
async function copySettings(adminUrl: string, from: string, to: string): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw(
      'select unnest(s.setconfig) as setting from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase' +
        ' where d.datname = ? and s.setrole = 0',
      [from],
    );
    for (const { setting } of rows as { setting: string }[]) {
      const [name, ...value] = setting.split('=');
      await admin.raw(`alter database ${to} set ${name} = '${value.join('=').replace(/'/g, "''")}'`);
    }
  } finally {
    await admin.destroy();
  }
}

interface Target {
  label: string;
  db: Knex;
  principals: Principal[];
  times: number[];
}

async function target(label: string, url: string, users: number): Promise<Target> {
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db);
  await db('api_keys').del();
  const members = await db('users').where({ role: 'member' }).orderBy('email').limit(users);
  const keys = await Promise.all(members.map(async (u) => (await createApiKey(db, { email: u.email })).key));
  const principals = await Promise.all(keys.map(async (k) => (await authenticateApiKey(db, k))!));
  return { label, db, principals, times: [] };
}

/** One keyword call's database and core work: parse, list, moments of the page. */
async function call(t: Target, keyword: string, i: number): Promise<void> {
  const kq = await keywordQuery(t.db, keyword);
  const list = await listStatement(t.db, t.principals[i % t.principals.length], resolveFilters({ keyword }), kq);
  const rows = await runSql<{ id: string; search_config: string }>(t.db, list, list.name);
  const said = momentTsquery(kq);
  if (said && rows.length) {
    const m = momentsStatement(
      rows.slice(0, 10).map((r) => r.id),
      said,
      3,
      momentWords(
        kq,
        rows.slice(0, 10).map((r) => r.search_config),
      ),
    );
    await runSql(t.db, m, m.name);
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `Languages benchmark: ${o.meetings} meetings × ${o.sentences} sentences, all English against mixed; load ${loadavg()[0].toFixed(1)}`,
  );
  const pg = await provisionDatabase(o);
  const english = dbName(o);
  const mixed = `${english}_mixed`;
  const englishUrl = withDatabase(pg.adminUrl, english);
  const mixedUrl = withDatabase(pg.adminUrl, mixed);
  try {
    if (o.reseed || !(await isSeeded(pg.adminUrl, englishUrl, english))) {
      await createDatabase(pg.adminUrl, english, true);
      await seedInChild(englishUrl, o);
    }
    // The English set at this code's schema before it is copied (a copy of an older one re-indexes nothing new).
    const up = createDb({ url: englishUrl, poolMax: 1 });
    await migrateLatest(up);
    await up.destroy();
    let rate = 're-index: not run (mixed copy reused; --reseed to measure it)';
    if (o.reseed || !(await isSeeded(pg.adminUrl, mixedUrl, mixed)))
      rate = await mixedCopy(pg.adminUrl, english, mixed);
    await copySettings(pg.adminUrl, english, mixed);

    const targets = [
      await target('all English', englishUrl, o.users),
      await target('mixed languages', mixedUrl, o.users),
    ];
    // Keywords from the head, middle and tail of the vocabulary, two words, a phrase, a -word: real searches vary.
    const keywords = [
      TOPICS[0],
      TOPICS[8],
      TOPICS[40],
      TOPICS[TOPICS.length - 3],
      GENERAL[60],
      TAIL[2000],
      `${TOPICS[0]} ${TOPICS[8]}`,
      `"${GENERAL[30]} ${GENERAL[31]}"`,
      `${TOPICS[3]} -${TOPICS[5]}`,
    ];
    for (const t of targets) {
      const configs = (await t.db.raw("select string_agg(config, ', ' order by config) as c from search_configs"))
        .rows[0].c;
      console.log(`  ${t.label}: configurations in use ${configs}`);
      for (let i = 0; i < 2 * keywords.length; i++) await call(t, keywords[i % keywords.length], i); // warm-up
    }
    // Rounds of o.calls calls a database, alternating blocks; the ratio of each round's p95, and their median.
    const ratios: number[] = [];
    for (let round = 0; round < o.rounds; round++) {
      for (const t of targets) t.times = [];
      for (let done = 0; done < o.calls; done += o.block) {
        for (const t of targets) {
          for (let j = 0; j < o.block; j++) {
            const i = done + j;
            const started = process.hrtime.bigint();
            await call(t, keywords[i % keywords.length], i);
            t.times.push(Number(process.hrtime.bigint() - started) / 1e6);
          }
        }
      }
      const [en, mx] = targets.map((t) => ({ p50: percentile(t.times, 0.5), p95: percentile(t.times, 0.95) }));
      ratios.push(mx.p95 / en.p95);
      console.log(
        `  round ${round + 1}: English p50 ${en.p50.toFixed(2)} p95 ${en.p95.toFixed(2)} ms; mixed p50 ${mx.p50.toFixed(2)}` +
          ` p95 ${mx.p95.toFixed(2)} ms; p95 ${(mx.p95 / en.p95).toFixed(3)}×, p50 ${(mx.p50 / en.p50).toFixed(3)}×`,
      );
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    console.log(
      `  mixed ÷ English, p95, median of ${o.rounds} rounds: ${sorted[Math.floor(sorted.length / 2)].toFixed(3)}×` +
        ` (range ${sorted[0].toFixed(3)}–${sorted[sorted.length - 1].toFixed(3)}; target ≤ 1.2×)`,
    );
    console.log(`  ${rate}`);
    console.log(`  load after: ${loadavg()[0].toFixed(1)}`);
    for (const t of targets) await t.db.destroy();
  } finally {
    pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
