/**
 * MCP benchmark: seeds PostgreSQL with N meetings × M sentences, runs the mcp role from its build
 * (dist/, as the image runs it) in a process of its own, and drives POST /mcp with concurrent JSON-RPC
 * tools/call requests from another. Beside the figures it measures, in the same run, the same SQL
 * through pg alone (the database's share) and a bare MCP SDK server answering a no-op tool (the
 * protocol's own cost), also in a process of its own. RSS and CPU are read per process from /proc.
 *
 *   npx tsx test/bench/mcp.bench.ts                          # 10,000 meetings × 200 sentences
 *   npx tsx test/bench/mcp.bench.ts --meetings 1000 --sentences 50 --seconds 5
 *
 * See test/bench/README.md for every option, and test/bench/JOURNAL.md for the method in full.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { Pool } from 'pg';
import { ulid } from 'ulid';
import { decode } from '@toon-format/toon';
import { encode as tokens } from 'gpt-tokenizer';
import { createApiKey, authenticateApiKey } from '../../services/core/people';
import { API_KEY_LOOKUP_SQL } from '../../services/core/people/apikeys';
import { POSTGRES_MALLOC_ENV, startLocalPostgres } from '../../services/devstack/postgres';
import { freePort } from '../../services/devstack/ports';
import { createDb, migrateLatest } from '../../services/platform/db';
import { cpuMs, postgresCpuByPid, postgresCpuSince } from './proc';
import { imageContract } from '../support/k8s/image';
import { resolveFilters } from '../../services/core/meetings/filters';
import { keywordQuery } from '../../services/core/meetings';
import { listStatement } from '../../services/core/meetings/list-plan';
import { momentsStatement } from '../../services/core/meetings/moments';
import { momentTsquery, momentWord } from '../../services/core/meetings/keyword-query';

// ---- options ------------------------------------------------------------------------------------

interface Options {
  meetings: number;
  sentences: number;
  users: number;
  concurrency: number;
  /** mcp role processes (and bare SDK processes) the driver spreads its calls over, as a Service would. */
  replicas: number;
  seconds: number;
  serialSeconds: number;
  serialRounds: number;
  databaseUrl?: string;
  reseed: boolean;
  seedOnly: boolean;
  /** Internal: run as the load driver of one phase (spec on stdin, stats on stdout). */
  driver: boolean;
  keepPostgres: boolean;
  /** Only the one-at-a-time runs behind the overhead ratio, after a short warm-up (under a minute), for trying a change quickly. */
  overheadOnly: boolean;
  /** Only the keyword calls with moments (both tools), after the warm-up, in rounds beside the bare no-op: for trying a change quickly. */
  keywordOnly: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    meetings: 10_000,
    sentences: 200,
    users: 50,
    concurrency: 16,
    replicas: 1,
    seconds: 10,
    serialSeconds: 18,
    serialRounds: 5,
    databaseUrl: process.env.DATABASE_URL,
    reseed: false,
    seedOnly: false,
    driver: false,
    keepPostgres: false,
    overheadOnly: false,
    keywordOnly: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return v;
    };
    switch (a) {
      case '--meetings':
        o.meetings = Math.floor(num());
        break;
      case '--sentences':
        o.sentences = Math.floor(num());
        break;
      case '--users':
        o.users = Math.max(2, Math.floor(num()));
        break;
      case '--concurrency':
        o.concurrency = Math.floor(num());
        break;
      case '--replicas':
        o.replicas = Math.floor(num());
        break;
      case '--seconds':
        o.seconds = num();
        break;
      case '--serial-seconds':
        o.serialSeconds = num();
        break;
      case '--serial-rounds':
        o.serialRounds = Math.floor(num());
        break;
      case '--database-url':
        o.databaseUrl = argv[++i];
        break;
      case '--reseed':
        o.reseed = true;
        break;
      case '--seed-only':
        o.seedOnly = true;
        break;
      case '--driver':
        o.driver = true;
        break;
      case '--keep-postgres':
        o.keepPostgres = true;
        break;
      case '--overhead-only':
        o.overheadOnly = true;
        break;
      case '--keyword-only':
        o.keywordOnly = true;
        break;
      case '--help':
      case '-h':
        console.log(
          'options: --meetings N --sentences M --users U --concurrency C --replicas R --seconds S --serial-seconds S --serial-rounds N --database-url URL --reseed --keep-postgres --overhead-only --keyword-only',
        );
        return process.exit(0);
      default:
        throw new Error(`unknown option ${a} (try --help)`);
    }
  }
  return o;
}

// ---- deterministic data -----------------------------------------------------------------------

/** mulberry32: small, fast, and the same rows on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Everyday speech, most frequent first (Zipf-distributed draws make the head common and the tail rare).
export const GENERAL = (
  'the to and a of i we that is it you in this so for on be have just think can do yeah what with but are not if ' +
  'was like know about they at our there one get all okay right going would will need also maybe then out from when ' +
  'how more some time make sure next week go see because good which really them other by thing team work let into ' +
  'any now well first should could those still want people back much last sounds great question look actually day ' +
  'things point take update plan call meeting said kind here lot probably already start working today done mean ' +
  'follow quick change part new idea side number again issue open try thanks yes everyone sort month morning ' +
  'together early share later happen understand wait little long end case keep small agree each fine between far ' +
  'anything nothing different before after enough important problem easy hard bring list real sense around best'
).split(' ');

// What meetings are about; each meeting draws a few, which then recur through its sentences.
export const TOPICS = (
  'budget roadmap customer pricing release hiring onboarding migration database security launch marketing sales ' +
  'forecast revenue quarter contract invoice vendor partner design prototype feedback research analytics dashboard ' +
  'kubernetes deployment incident outage latency performance testing integration api mobile website checkout ' +
  'subscription churn retention support ticket escalation compliance audit privacy legal procurement training ' +
  'recruiting interview offer promotion retrospective sprint backlog estimate milestone deadline dependency risk ' +
  'warehouse shipping logistics inventory supplier factory quality certification renewal expansion board investor ' +
  'fundraising valuation acquisition merger benchmark competitor positioning messaging campaign webinar conference ' +
  'newsletter podcast translation localization accessibility gdpr soc2 encryption backup failover observability ' +
  'telemetry grafana prometheus terraform helm postgres temporal webhook transcript summary soundbite'
).split(' ');

// The long tail: names, products and jargon a team uses now and then (pseudo-words, deterministic).
export const TAIL = (() => {
  const rand = prng(42);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ren',
    'tor',
    'vak',
    'sel',
    'dun',
    'pra',
    'zi',
    'mor',
    'bex',
    'qua',
    'lin',
    'fen',
    'gar',
    'hol',
    'jut',
    'nix',
    'ost',
  ];
  const words = new Set<string>();
  while (words.size < 4000) {
    const n = 2 + Math.floor(rand() * 2);
    words.add(Array.from({ length: n }, () => syllables[Math.floor(rand() * syllables.length)]).join(''));
  }
  return [...words];
})();

const TITLES = [
  'Weekly planning',
  'Standup',
  '1:1',
  'Customer call',
  'Review',
  'Sync',
  'Kickoff',
  'Retro',
  'Workshop',
  'Interview',
  'All hands',
  'Deep dive',
];

/** Draws index k of n with probability ∝ 1/(k+1) (Zipf, s = 1). */
function zipf(n: number, rand: () => number): () => number {
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 0; k < n; k++) cdf.push((sum += 1 / (k + 1)));
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

interface SeedUser {
  id: string;
  email: string;
  name: string;
}

const PRIVACIES: [string, number][] = [
  ['teammatesandparticipants', 0.7],
  ['owner', 0.1],
  ['participants', 0.1],
  ['teammates', 0.05],
  ['link', 0.05],
];

function pick<T>(items: [T, number][], rand: () => number): T {
  let x = rand();
  for (const [v, w] of items) if ((x -= w) < 0) return v;
  return items[items.length - 1][0];
}

const BENCH_END = Date.parse('2026-11-20T18:00:00Z');
const BENCH_SPAN_MS = 2 * 365 * 24 * 3600 * 1000;

// ---- database ---------------------------------------------------------------------------------

export async function provisionDatabase(
  o: Pick<Options, 'databaseUrl' | 'keepPostgres'>,
): Promise<{ adminUrl: string; stop(): void }> {
  if (o.databaseUrl) return { adminUrl: o.databaseUrl, stop: () => {} };
  // A cluster of our own in a fixed folder, so a seeded database survives between runs.
  const pg = startLocalPostgres({ dataDir: join(tmpdir(), 'mi-bench-pg'), port: await freePort(), durable: false });
  warnWithoutMallocSettings(pg.dataDir);
  return { adminUrl: pg.url, stop: () => (o.keepPostgres ? undefined : pg.stop()) };
}

/**
 * A cluster kept from an older run (--keep-postgres) may have started without the malloc settings
 * the project's clusters get now; its backends can then fault on every list statement (docs/operations.md, PostgreSQL).
 */
function warnWithoutMallocSettings(dataDir: string): void {
  try {
    const pid = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const missing = Object.entries(POSTGRES_MALLOC_ENV).filter(([k, v]) => !environ.includes(`${k}=${v}`));
    if (missing.length)
      console.warn(
        `  warning: PostgreSQL in ${dataDir} runs without ${missing.map(([k, v]) => `${k}=${v}`).join(' ')}; stop it (pg_ctl -D ${dataDir} stop) so the bench restarts it with them`,
      );
  } catch {
    /* not Linux, or not readable: nothing to check */
  }
}

export const dbName = (o: Pick<Options, 'meetings' | 'sentences' | 'users'>) =>
  `mi_bench_${o.meetings}x${o.sentences}x${o.users}`;

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function isSeeded(adminUrl: string, url: string, name: string): Promise<boolean> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  const exists = (await admin.raw('select 1 from pg_database where datname = ?', [name])).rows.length > 0;
  await admin.destroy();
  if (!exists) return false;
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const r = await db.raw("select to_regclass('bench_info') is not null as ok");
    if (!r.rows[0].ok) return false;
    const info = await db('bench_info').first();
    return Boolean(info?.done);
  } catch {
    return false;
  } finally {
    await db.destroy();
  }
}

export async function createDatabase(adminUrl: string, name: string, drop: boolean): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    if (drop) await admin.raw(`drop database if exists ${name} with (force)`);
    const exists = await admin.raw('select 1 from pg_database where datname = ?', [name]);
    if (!exists.rows.length) await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
}

/** Load the data set. Runs in a child process (--seed-only) so its memory never counts in the server's RSS. */
async function seed(url: string, o: Options): Promise<void> {
  const started = Date.now();
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db);
  await db.raw(
    'create table if not exists bench_info (meetings int, sentences int, users int, done boolean, seeded_at timestamptz default now())',
  );
  await db('bench_info').del();

  const rand = prng(20261121);
  const idRand = prng(7);
  const general = zipf(GENERAL.length, rand);
  const topic = zipf(TOPICS.length, rand);
  const tail = zipf(TAIL.length, rand);

  const teamId = ulid(BENCH_END - BENCH_SPAN_MS - 1000, idRand);
  await db('teams').insert({ id: teamId, name: 'Acme', tier: 'enterprise', feature_flags: ['search', 'fetch'] });
  const users: SeedUser[] = [];
  for (let i = 0; i < o.users; i++) {
    const n = String(i + 1).padStart(2, '0');
    users.push({
      id: ulid(BENCH_END - BENCH_SPAN_MS - 900 + i, idRand),
      email: `user${n}@acme.example`,
      name: `User ${n}`,
    });
  }
  await db('users').insert(users.map((u, i) => ({ ...u, team_id: teamId, role: i === 0 ? 'admin' : 'member' })));
  const channels = Array.from({ length: 5 }, (_, i) => ({
    id: ulid(BENCH_END - BENCH_SPAN_MS - 500 + i, idRand),
    team_id: teamId,
    title: `Channel ${i + 1}`,
  }));
  await db('channels').insert(channels);
  await db('channel_members').insert(
    channels.flatMap((c, ci) =>
      users.filter((_, ui) => (ui + ci) % 5 === 0).map((u) => ({ channel_id: c.id, user_id: u.id })),
    ),
  );

  // The GIN index is built once after the load: far faster than maintaining it row by row.
  const ginDef = (await db.raw("select indexdef from pg_indexes where indexname = 'sentences_tsv_idx'")).rows[0]
    ?.indexdef as string | undefined;
  await db.raw('drop index if exists sentences_tsv_idx');

  const BATCH = Math.max(1, Math.floor(20_000 / o.sentences));
  const inflight = new Set<Promise<void>>();
  let sentencesLoaded = 0;
  for (let first = 0; first < o.meetings; first += BATCH) {
    const meetings: Record<string, unknown>[] = [];
    const participants: Record<string, unknown>[] = [];
    const summaries: Record<string, unknown>[] = [];
    const analytics: Record<string, unknown>[] = [];
    const speakerRows: Record<string, unknown>[] = [];
    const s = {
      meeting_id: [] as string[],
      idx: [] as number[],
      speaker_name: [] as string[],
      speaker_id: [] as number[],
      text: [] as string[],
      start: [] as number[],
      end: [] as number[],
    };

    for (let i = first; i < Math.min(first + BATCH, o.meetings); i++) {
      const date = BENCH_END - BENCH_SPAN_MS + Math.floor(((i + rand()) / o.meetings) * BENCH_SPAN_MS);
      const id = ulid(date, idRand);
      const organizer = users[Math.floor(rand() * users.length)];
      const attendees = new Map<string, SeedUser>([[organizer.email, organizer]]);
      const size = 1 + Math.floor(rand() * 5);
      while (attendees.size < Math.min(size + 1, users.length)) {
        const u = users[Math.floor(rand() * users.length)];
        attendees.set(u.email, u);
      }
      if (rand() < 0.3) {
        const guest = `guest${Math.floor(rand() * 500)}@partner.example`;
        attendees.set(guest, { id: '', email: guest, name: 'Guest' });
      }
      const speakers = [...attendees.values()];
      const topics = [TOPICS[topic()], TOPICS[topic()], TOPICS[topic()]];
      let t = 0;
      for (let k = 0; k < o.sentences; k++) {
        const words: string[] = [];
        const len = 6 + Math.floor(rand() * 15);
        for (let w = 0; w < len; w++) {
          const r = rand();
          words.push(r < 0.1 ? topics[Math.floor(rand() * 3)] : r < 0.2 ? TAIL[tail()] : GENERAL[general()]);
        }
        const sp = Math.floor(rand() * speakers.length);
        const dur = len * 0.4 + rand() * 2;
        s.meeting_id.push(id);
        s.idx.push(k);
        s.speaker_name.push(speakers[sp].name);
        s.speaker_id.push(sp);
        s.text.push(
          `${words[0][0].toUpperCase()}${words[0].slice(1)} ${words.slice(1).join(' ')}${rand() < 0.2 ? '?' : '.'}`,
        );
        s.start.push(Math.round(t * 100) / 100);
        s.end.push(Math.round((t + dur) * 100) / 100);
        t += dur + rand();
      }
      const duration = Math.round(t * 100) / 100;
      meetings.push({
        id,
        team_id: teamId,
        organizer_id: organizer.id,
        organizer_email: organizer.email,
        uploader_id: organizer.id,
        title: `${TITLES[Math.floor(rand() * TITLES.length)]}: ${topics[0]} and ${topics[1]}`,
        date: new Date(date),
        duration_seconds: duration,
        privacy: pick(PRIVACIES, rand),
        channel_id: rand() < 0.3 ? channels[Math.floor(rand() * channels.length)].id : null,
        status: 'completed',
      });
      for (const a of speakers)
        participants.push({ meeting_id: id, email: a.email, name: a.name, user_id: a.id || null });
      summaries.push({
        meeting_id: id,
        keywords: JSON.stringify(topics),
        action_items: JSON.stringify([`${organizer.name} to follow up on ${topics[0]}`, `Share the ${topics[1]} plan`]),
        overview: `The team discussed ${topics.join(', ')} and agreed on next steps.`,
        short_summary: `Discussion of ${topics[0]}, ${topics[1]} and ${topics[2]}.`,
        topics_discussed: JSON.stringify(topics),
        meeting_type: 'planning',
        outline: JSON.stringify(topics.map((x, n) => ({ title: x, start_time: n * 60 }))),
      });
      analytics.push({
        meeting_id: id,
        duration_seconds: duration,
        silence_seconds: 0,
        talk_listen_ratio: 1,
        positive_pct: 20,
        neutral_pct: 70,
        negative_pct: 10,
      });
      speakers.forEach((a, n) =>
        speakerRows.push({
          meeting_id: id,
          speaker_id: n,
          name: a.name,
          email: a.email,
          duration: duration / speakers.length,
          word_count: 100,
          words_per_minute: 140,
          duration_pct: 100 / speakers.length,
        }),
      );
    }

    const load = async () => {
      await db.transaction(async (tx) => {
        await tx('meetings').insert(meetings);
        await tx('meeting_participants').insert(participants);
        await tx('summaries').insert(summaries);
        await tx('meeting_analytics').insert(analytics);
        await tx('speaker_analytics').insert(speakerRows);
        await tx.raw(
          `insert into sentences (meeting_id, idx, speaker_name, speaker_id, text, raw_text, start_time, end_time)
           select m, i, sn, si, t, t, st, en from unnest(?::text[], ?::int[], ?::text[], ?::int[], ?::text[], ?::float8[], ?::float8[]) as u(m, i, sn, si, t, st, en)`,
          [s.meeting_id, s.idx, s.speaker_name, s.speaker_id, s.text, s.start, s.end],
        );
      });
      sentencesLoaded += s.text.length;
    };
    // Two loads in flight: PostgreSQL computes the tsvectors on both cores while the next batch is generated.
    const p = load().finally(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= 2) await Promise.race(inflight);
    if ((first / BATCH) % 50 === 0)
      process.stdout.write(
        `\r  seeding: ${first} / ${o.meetings} meetings, ${sentencesLoaded} sentences, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
  }
  await Promise.all(inflight);
  process.stdout.write(
    `\r  seeding: ${o.meetings} meetings, ${sentencesLoaded} sentences loaded in ${((Date.now() - started) / 1000).toFixed(0)} s; indexing…\n`,
  );
  await db.raw("set maintenance_work_mem = '512MB'");
  await db.raw(ginDef ?? 'create index sentences_tsv_idx on sentences using gin (tsv)');
  await db.raw('vacuum analyze');
  await db('bench_info').insert({ meetings: o.meetings, sentences: o.sentences, users: o.users, done: true });
  await db.destroy();
  console.log(`  seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export function seedInChild(url: string, o: Pick<Options, 'meetings' | 'sentences' | 'users'>): Promise<void> {
  const args = [
    ...process.execArgv,
    __filename,
    '--seed-only',
    '--database-url',
    url,
    '--meetings',
    String(o.meetings),
    '--sentences',
    String(o.sentences),
    '--users',
    String(o.users),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seeding failed with exit code ${code}`))));
  });
}

// ---- load driver --------------------------------------------------------------------------------

export interface Stats {
  /** Highest RSS of the serving process while the phase ran (NaN where no server process is involved). */
  rssMb: number;
  /** CPU milliseconds per measured call: the serving process, and PostgreSQL's processes. */
  serverCpu?: number;
  pgCpu?: number;
  /** CPU milliseconds per call of the load driver's process. */
  driverCpu?: number;
  calls: number;
  errors: number;
  perSecond: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  firstError?: string;
}

const percentile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;

/** Run `call` from `concurrency` loops for `seconds` (after a short warm-up) and time each call. */
async function drive(
  concurrency: number,
  seconds: number,
  call: (i: number) => Promise<string | null>,
  onStart = () => {},
): Promise<Stats> {
  // Warm caches (the first reads after seeding come from disk) and the JIT before timing.
  const warmUntil = Date.now() + Math.min(2000, seconds * 200);
  let i = 0;
  while (Date.now() < warmUntil) await Promise.all(Array.from({ length: concurrency }, () => call(i++)));
  const latencies: number[] = [];
  onStart();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
  let errors = 0;
  let firstError: string | undefined;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const t0 = process.hrtime.bigint();
        let err: string | null;
        try {
          err = await call(i++);
        } catch (e) {
          err = String(e);
        }
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (err) {
          errors++;
          firstError ??= err;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  return {
    rssMb: peakRss / 1024 / 1024,
    calls: latencies.length,
    errors,
    perSecond: latencies.length / elapsed,
    mean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    firstError,
  };
}

let rpcId = 0;

/** One tools/call over plain HTTP; resolves to the result text, or throws with the error. */
async function toolsCall(
  url: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json()) as {
    result?: { isError?: boolean; content: { text: string }[] };
    error?: { message: string };
  };
  if (!body.result) throw new Error(`HTTP ${res.status}: ${body.error?.message ?? 'no result'}`);
  return { isError: Boolean(body.result.isError), text: body.result.content.map((c) => c.text).join('\n') };
}

const driverAgent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * The load driver's call: the same POST over a kept-alive node:http connection, with the answer
 * checked without parsing it. fetch and a JSON.parse of a 40 KB transcript cost the driver about as
 * much CPU as the server spends answering, on the same two cores. Inside the result text every quote
 * is escaped, so `"isError":true` can only be the result's own flag.
 */
function driverCall(url: URL, key: string, body: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: driverAgent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200 || !text.includes('"result"'))
            resolve(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
          else resolve(text.includes('"isError":true') ? text.slice(0, 300) : null);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// ---- processes --------------------------------------------------------------------------------

const ROOT = join(__dirname, '..', '..');

/** A server of the benchmark in a process of its own: where it answers, and its pid for /proc. */
interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Start `node <script>` and resolve once `ready(url)` says so (polled every 100 ms, 30 s at most). */
async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: (child: ChildProcess, out: () => string) => Promise<string | null>,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill());
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}: ${out.slice(-500)}`);
    const url = await ready(child, () => out).catch(() => null);
    if (url) {
      const stop = () =>
        new Promise<void>((resolve) =>
          child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')),
        );
      return { url, pid: child.pid!, stop };
    }
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not become ready: ${out.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Build dist/ from the sources, as the image does, so the role measured is the code checked out. */
export function buildRole(): void {
  // `npm run build` compiles and copies the files the compiled code reads beside it (scripts/dist-assets.ts).
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');
}

/**
 * The mcp role from dist/ as the image starts it (`meeting-intel serve mcp`), with logs off and the rate
 * limit lifted; `checkout`: another checkout's dist/ (a baseline build measured in the same run).
 */
export async function startMcpRole(databaseUrl: string, checkout = ''): Promise<ServerProcess> {
  const port = await freePort();
  const image = imageContract().env;
  const env = {
    ...process.env,
    // The image's NODE_OPTIONS and malloc arenas: its RSS is the pod's.
    NODE_OPTIONS: image.NODE_OPTIONS,
    MALLOC_ARENA_MAX: image.MALLOC_ARENA_MAX,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    SECRETS_KEY: '0'.repeat(64),
    MCP_ALLOWED_HOSTS: '*',
    MCP_PORT: String(port),
    HOST: '127.0.0.1',
  };
  const base = `http://127.0.0.1:${port}`;
  // BENCH_SERVER_PROF=<dir>: V8 CPU profiles of the mcp role and the bare server over the whole run (mcp.cpuprofile, bare.cpuprofile), written when they stop.
  const prof = process.env.BENCH_SERVER_PROF
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${process.env.BENCH_SERVER_PROF}`,
        `--cpu-prof-name=mcp${checkout ? '-baseline' : ''}.cpuprofile`,
      ]
    : [];
  // What the image runs for an mcp pod: the CLI's `serve mcp`, from the build.
  return startProcess([...prof, join(checkout, 'dist', 'services', 'cli', 'main.js'), 'serve', 'mcp'], env, async () =>
    (await fetch(`${base}/healthz`)).ok ? `${base}/mcp` : null,
  );
}

/** The bare SDK baseline (test/bench/bare-sdk-server.cjs): McpServer + stateless transport per request, one no-op tool. */
function startBareSdk(): Promise<ServerProcess> {
  const prof = process.env.BENCH_SERVER_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROF}`, '--cpu-prof-name=bare.cpuprofile']
    : [];
  return startProcess(
    [...prof, join('test', 'bench', 'bare-sdk-server.cjs'), '0'],
    process.env,
    async (_c, out) => /^ready (\S+)/m.exec(out())?.[1] ?? null,
  );
}

/**
 * The question embedder's own resident size in MB: the peak RSS of a process holding only it after 200
 * questions, less the same process loading nothing (embeddings-alone.ts, as embeddings.bench.ts
 * measures it), with the image's malloc arenas as the role has them. 0 when the mcp role runs without it (no model, or EMBEDDING_MODEL_DIR=off).
 */
function embedderResidentMb(): number {
  const dir = process.env.EMBEDDING_MODEL_DIR ?? join('.models', 'all-minilm-l6-v2');
  if (dir === 'off' || !existsSync(join(ROOT, dir, 'model.json'))) return 0;
  const peakKb = (mode: string[]) => {
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const env = { ...process.env, MALLOC_ARENA_MAX: imageContract().env.MALLOC_ARENA_MAX };
    const r = spawnSync(tsx, [join(__dirname, 'embeddings-alone.ts'), ...mode], { cwd: ROOT, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`embeddings-alone.ts ${mode.join(' ')} failed: ${r.stderr.slice(-500)}`);
    return (JSON.parse(r.stdout.trim().split('\n').pop()!) as { peakKb: number }).peakKb;
  };
  return (peakKb(['questions', '200']) - peakKb(['bare'])) / 1024;
}

/** RSS of a process in MB. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** One phase for a driver process: the calls to rotate through, how many at once, for how long. */
export interface DriverSpec {
  /** The replicas' URLs; call i goes to urls[i % urls.length]. */
  urls: string[];
  calls: { key: string; name: string; args: Record<string, unknown> }[];
  concurrency: number;
  seconds: number;
}

/** --driver: run one phase of MCP calls and print its stats as JSON. */
async function driverMain(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const spec = JSON.parse(Buffer.concat(chunks).toString('utf8')) as DriverSpec;
  const urls = spec.urls.map((u) => new URL(u));
  const bodies = spec.calls.map((c, i) =>
    JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: c.name, arguments: c.args } }),
  );
  let cpu0 = process.cpuUsage();
  const stats = await drive(
    spec.concurrency,
    spec.seconds,
    (i) => driverCall(urls[i % urls.length], spec.calls[i % spec.calls.length].key, bodies[i % bodies.length]),
    () => {
      cpu0 = process.cpuUsage();
      process.stdout.write('measuring\n');
    },
  );
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`\n${JSON.stringify({ ...stats, driverCpu: (cpu.user + cpu.system) / 1000 / stats.calls })}\n`);
}

/**
 * Drive a phase from a child process against `servers`, each in a process of its own: the highest RSS
 * of any of them is sampled from /proc while the phase runs, and their CPU (added up) and PostgreSQL's
 * are counted over the measured part (after the driver's warm-up) and divided by the calls.
 */
export function driveRemote(spec: DriverSpec, servers: ServerProcess[]): Promise<Stats> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--driver'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const peak = () => Math.max(...servers.map((x) => rssMb(x.pid)));
    let peakRss = peak();
    let cpu0: [number, Map<number, number>] | null = null;
    let cpu1: [number, number] | null = null;
    const serverCpu = () => servers.reduce((sum, x) => sum + cpuMs(x.pid), 0);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, peak())), 25);
    child.stdout.on('data', (d) => {
      out += d;
      if (!cpu0 && out.includes('measuring\n')) cpu0 = [serverCpu(), postgresCpuByPid()];
      if (cpu0 && !cpu1 && /\n\{.*\}\n/.test(out)) cpu1 = [serverCpu(), postgresCpuSince(cpu0[1])];
    });
    child.on('exit', (code) => {
      clearInterval(sampler);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{') || !cpu0)
        return reject(new Error(`driver failed (exit ${code}): ${out.slice(-500)}`));
      const stats = JSON.parse(last) as Stats;
      const c0 = cpu0;
      const c1 = cpu1 ?? [serverCpu(), postgresCpuSince(c0[1])];
      resolve({ ...stats, rssMb: peakRss, serverCpu: (c1[0] - c0[0]) / stats.calls, pgCpu: c1[1] / stats.calls });
    });
    child.stdin.end(JSON.stringify(spec));
  });
}

// ---- report -------------------------------------------------------------------------------------

/** Every scalar of a JSON value, in order, as text. */
function leaves(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(leaves);
  return [String(v)];
}

// Issue #44's targets, each a ratio to a baseline measured in the same run.
/** One call at a time: (ours − its SQL) ÷ the bare SDK no-op, at most. */
const OVERHEAD_BOUND = 1.5;
/** Keyword calls, 16 concurrent: calls/s ÷ their SQL's through pg alone, at least; with moments, and without. */
const KEYWORD_SHARE = 0.6;
const KEYWORD_SHARE_NO_MOMENTS = 0.9;
/** svc_get_transcript calls/s ÷ the bare SDK no-op's, at least. */
const TRANSCRIPT_SHARE = 0.5;
/** The mcp role's peak RSS while serving, less the question embedder's own resident size, at most. */
const RSS_BOUND_MB = 250;

const ms = (v: number, digits = 1) => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : '-');
const verdict = (ok: boolean) => (ok ? 'met' : 'not met');

export function row(name: string, s: Stats, target = ''): string {
  return [
    name.padEnd(44),
    `${s.perSecond.toFixed(0).padStart(6)}/s`,
    ms(s.p50).padStart(10),
    ms(s.p95).padStart(10),
    ms(s.p99).padStart(10),
    `${String(s.errors).padStart(5)} err`,
    Number.isFinite(s.rssMb) ? `${s.rssMb.toFixed(0).padStart(5)} MB` : '     - ',
    s.serverCpu === undefined && s.pgCpu === undefined
      ? '                   -'
      : `${s.serverCpu === undefined ? '     -' : s.serverCpu.toFixed(2).padStart(6)} / ${Number.isFinite(s.pgCpu) ? s.pgCpu!.toFixed(2).padStart(4) : '   -'} / ${s.driverCpu === undefined ? '   -' : s.driverCpu.toFixed(2).padStart(4)}`,
    target,
  ].join('  ');
}

// ---- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.driver) {
    await driverMain();
    return;
  }
  if (o.seedOnly) {
    await seed(o.databaseUrl!, o);
    return;
  }
  console.log(
    `MCP benchmark: ${o.meetings} meetings × ${o.sentences} sentences, ${o.users} users, ${o.concurrency} concurrent calls over ${o.replicas} mcp process(es), ${o.seconds} s per tool`,
  );
  const pg = await provisionDatabase(o);
  const name = dbName(o);
  const url = withDatabase(pg.adminUrl, name);
  try {
    if (o.reseed || !(await isSeeded(pg.adminUrl, url, name))) {
      await createDatabase(pg.adminUrl, name, true);
      await seedInChild(url, o);
    } else {
      console.log(`  reusing seeded database ${name} (--reseed to rebuild)`);
    }
    await run(url, o);
  } finally {
    pg.stop();
  }
}

async function run(url: string, o: Options): Promise<void> {
  const poolMax = 10; // DATABASE_POOL_MAX's default, which the mcp role runs with here
  const db = createDb({ url, poolMax });
  await migrateLatest(db); // a data set seeded before a newer migration gets it now
  const team = await db('teams').first();
  await db('api_keys').del(); // keys of earlier runs
  const members = await db('users')
    .where({ team_id: team.id, role: 'member' })
    .orderBy('email')
    .limit(Math.max(1, o.concurrency));
  const keys = await Promise.all(members.map(async (u) => (await createApiKey(db, { email: u.email })).key));
  const principals = await Promise.all(keys.map((k) => authenticateApiKey(db, k)));
  const openIds: string[] = (
    await db('meetings')
      .whereIn('privacy', ['teammatesandparticipants', 'teammates', 'link'])
      .orderByRaw('md5(id)')
      .limit(500)
      .select('id')
  ).map((r) => r.id);

  // Keywords from the head, middle and tail of the vocabulary, and a phrase: real searches vary.
  const keywords = [
    TOPICS[0],
    TOPICS[8],
    TOPICS[40],
    TOPICS[TOPICS.length - 3],
    GENERAL[60],
    TAIL[2000],
    `${TOPICS[0]} ${TOPICS[8]}`,
    `"${GENERAL[30]} ${GENERAL[31]}"`,
  ];
  console.log('\nKeyword selectivity (matching sentences / meetings):');
  for (const k of keywords) {
    const r = await db.raw(
      "select count(*)::int as n, count(distinct meeting_id)::int as m from sentences where tsv @@ websearch_to_tsquery('english', ?)",
      [k],
    );
    console.log(
      `  ${k.padEnd(24)} ${String(r.rows[0].n).padStart(9)} sentences in ${String(r.rows[0].m).padStart(6)} meetings`,
    );
  }

  buildRole();
  // Measured before the servers start, so nothing else of the bench's runs beside it.
  const embedderMb = o.overheadOnly || o.keywordOnly ? 0 : embedderResidentMb();
  const servers = await Promise.all(Array.from({ length: o.replicas }, () => startMcpRole(url)));
  const mcpUrl = servers[0].url;
  const bares = await Promise.all(Array.from({ length: o.replicas }, () => startBareSdk()));
  const pool = new Pool({ connectionString: url, max: poolMax });
  // Named statements run their generic plans, as runSql runs them (platform/sql); the statements here are named.
  pool.on('connect', (client) => void client.query('set plan_cache_mode = force_generic_plan'));

  // A phase's calls, rotating through the callers' keys and the given arguments.
  const ROTATION = 512;
  const phase = (
    name: string,
    args: (i: number) => Record<string, unknown>,
    concurrency = o.concurrency,
    seconds = o.seconds,
    targets = servers,
  ): DriverSpec => ({
    urls: targets.map((x) => x.url),
    concurrency,
    seconds,
    calls: Array.from({ length: ROTATION }, (_, i) => ({ key: keys[i % keys.length], name, args: args(i) })),
  });
  const kw = (i: number) => keywords[i % keywords.length];
  // Call i of the rotation is the same caller and keyword as the MCP phases' call i, so the baseline
  // runs the very mix of statements the server runs (visibility work differs from user to user).
  const listSql = await Promise.all(
    Array.from({ length: ROTATION }, async (_, i) => {
      const kq = await keywordQuery(db, kw(i));
      return {
        list: await listStatement(db, principals[i % keys.length], resolveFilters({ keyword: kw(i) }), kq),
        moments: momentTsquery(kq),
        word: momentWord(kq),
      };
    }),
  );
  // The database's whole share of a keyword call: the API-key lookup every call makes, the list, then
  // the moments of the page's meetings (3 a meeting, the default), as the mcp role runs them.
  const prefixes = keys.map((k) => k.split('_')[1]);
  const pgList = async (i: number, withMoments = true) => {
    await pool.query({ name: 'mi_api_key_lookup', text: API_KEY_LOOKUP_SQL, values: [prefixes[i % keys.length]] });
    const { list, moments, word } = listSql[i % listSql.length];
    const { rows } = await (list.name
      ? pool.query({ name: list.name, text: list.text, values: list.values })
      : pool.query(list.text, list.values));
    if (withMoments && moments && rows.length) {
      const m = momentsStatement(
        rows.slice(0, 10).map((r: { id: string }) => r.id),
        moments,
        3,
        word,
      );
      await pool.query({ name: m.name, text: m.text, values: m.values });
    }
    return null;
  };

  const results: [string, Stats, string][] = [];
  const measure = async (label: string, run: () => Promise<Stats>) => {
    process.stdout.write(`  running ${label}…\r`);
    const s = await run();
    results.push([label, s, '']);
    return s;
  };
  const remote =
    (spec: DriverSpec, targets = servers) =>
    () =>
      driveRemote(spec, targets);
  // In-process phases: PostgreSQL's CPU is counted over the measured part, as for the remote ones.
  const local = (concurrency: number, seconds: number, call: (i: number) => Promise<string | null>) => async () => {
    let pg0 = new Map<number, number>();
    let own0 = process.cpuUsage();
    const s = await drive(concurrency, seconds, call, () => ((pg0 = postgresCpuByPid()), (own0 = process.cpuUsage())));
    const pg = postgresCpuSince(pg0);
    const own = process.cpuUsage(own0);
    // The bench process is the client here: its CPU is what pg's client side costs a call.
    return { ...s, rssMb: NaN, pgCpu: pg / s.calls, driverCpu: (own.user + own.system) / 1000 / s.calls };
  };

  // One call at a time: latency without queueing, for the per-call overhead ratio. The three run in
  // short alternating blocks (50 of ours, 50 of its SQL, 50 bare, again…), because this machine's
  // speed drifts by 10-50% from one second to the next: series run one after the other measure the
  // drift as much as the code. Blocks, not single calls in turn: a process that has just slept
  // through the other two's calls runs its next call from cold caches (a bare no-op then takes twice
  // its time), and that is not what either server costs under a steady stream of calls. Medians,
  // robust to a block's first call and to the stray slow call of a shared machine. The calls are made
  // from this process, over the same kept-alive HTTP agent for ours and bare.
  const overhead = async () => {
    const BLOCK = 50;
    const ourUrl = new URL(mcpUrl);
    const bareUrl = new URL(bares[0].url);
    const ourCalls = phase('svc_get_transcripts', (i) => ({ keyword: kw(i) })).calls;
    const rpc = (name: string, args: Record<string, unknown>, id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const ourBodies = ourCalls.map((c, i) => rpc(c.name, c.args, i + 1));
    const bareBody = rpc('noop', {}, 1);
    type Cycle = { ours: number[]; sql: number[]; bare: number[]; error?: string };
    const timed = async (into: number[], call: () => Promise<string | null>) => {
      const t0 = performance.now();
      const err = await call();
      into.push(performance.now() - t0);
      return err;
    };
    // One block of each, call i of the rotation onwards: the SQL block runs the same callers and keywords as ours.
    const cycle = async (i: number): Promise<Cycle> => {
      const c: Cycle = { ours: [], sql: [], bare: [] };
      for (let j = i; j < i + BLOCK; j++)
        c.error ??=
          (await timed(c.ours, () =>
            driverCall(ourUrl, ourCalls[j % ourCalls.length].key, ourBodies[j % ourBodies.length]),
          )) ?? undefined;
      for (let j = i; j < i + BLOCK; j++) await timed(c.sql, () => pgList(j));
      for (let j = i; j < i + BLOCK; j++)
        c.error ??= (await timed(c.bare, () => driverCall(bareUrl, keys[0], bareBody))) ?? undefined;
      return c;
    };
    process.stdout.write('  running one call at a time (ours, its SQL, bare, in alternating blocks)…\r');
    let i = 0;
    for (const warmUntil = Date.now() + 1000; Date.now() < warmUntil; i += BLOCK) await cycle(i);
    const cpu0 = { ours: cpuMs(servers[0].pid), bare: cpuMs(bares[0].pid) };
    const cycles: Cycle[] = [];
    for (const deadline = Date.now() + o.serialSeconds * 1000; Date.now() < deadline; i += BLOCK)
      cycles.push(await cycle(i));
    const n = cycles.length * BLOCK;
    const cpu = { ours: (cpuMs(servers[0].pid) - cpu0.ours) / n, bare: (cpuMs(bares[0].pid) - cpu0.bare) / n };
    const p50 = (xs: Cycle[], k: 'ours' | 'sql' | 'bare') =>
      percentile(
        xs.flatMap((c) => c[k]).sort((a, b) => a - b),
        0.5,
      );
    const summarize = (xs: Cycle[]) => {
      const [ours, sql, bare] = [p50(xs, 'ours'), p50(xs, 'sql'), p50(xs, 'bare')];
      return { ours, sql, bare, ratio: (ours - sql) / bare };
    };
    const all = summarize(cycles);
    // The same figures over consecutive slices of the run: how much they move while the code does not.
    const per = Math.ceil(cycles.length / o.serialRounds);
    const slices = Array.from({ length: o.serialRounds }, (_, r) =>
      summarize(cycles.slice(r * per, (r + 1) * per)),
    ).filter((x) => Number.isFinite(x.ratio));
    const ratios = slices.map((x) => x.ratio).sort((a, b) => a - b);
    const line = (label: string, x: ReturnType<typeof summarize>) =>
      `  ${label.padStart(5)}  ${ms(x.ours, 2).padStart(9)} ${ms(x.sql, 2).padStart(9)} ${ms(x.ours - x.sql, 2).padStart(10)} ${ms(x.bare, 2).padStart(10)}  ${x.ratio.toFixed(2).padStart(5)}×`;
    const firstError = cycles.find((c) => c.error)?.error;
    const table = [
      `\nOne call at a time (${n} calls each of ours, its SQL and bare, in alternating blocks of ${BLOCK}, over ${o.serialSeconds} s; p50 per slice of the run, then of all)`,
      '  slice   ours p50   SQL p50   overhead   bare p50   ratio',
      ...slices.map((x, r) => line(String(r + 1), x)),
      line('all', all),
      `  CPU ms/call: ours ${cpu.ours.toFixed(2)}, bare ${cpu.bare.toFixed(2)}`,
      ...(firstError ? [`  first error: ${firstError}`] : []),
    ].join('\n');
    return {
      ratio: all.ratio,
      table,
      line: `  per-call overhead ≤ ${OVERHEAD_BOUND}× bare SDK no-op      ours ${ms(all.ours - all.sql, 2)} (p50 ${ms(all.ours, 2)} call − ${ms(all.sql, 2)} SQL) vs bare ${ms(all.bare, 2)}: ${all.ratio.toFixed(2)}× (slices ${ratios[0].toFixed(2)}–${ratios[ratios.length - 1].toFixed(2)}×)   ${verdict(all.ratio <= OVERHEAD_BOUND && !firstError)}`,
    };
  };
  const stop = async () => {
    await Promise.all([...servers, ...bares].map((x) => x.stop()));
    await pool.end();
    await db.destroy();
  };
  if (o.overheadOnly) {
    // The full run measures the overhead after a minute of load: warm both servers' JITs alike first.
    process.stdout.write('  warming up…\r');
    await driveRemote(
      phase('svc_get_transcripts', (i) => ({ keyword: kw(i) }), o.concurrency, 8),
      servers,
    );
    await driveRemote(
      phase('svc_get_transcript', (i) => ({ transcriptId: openIds[i % openIds.length] }), o.concurrency, 4),
      servers,
    );
    await driveRemote(
      phase('svc_get_summary', (i) => ({ transcriptId: openIds[i % openIds.length] }), o.concurrency, 4),
      servers,
    );
    await driveRemote(
      phase('svc_get_transcripts', () => ({}), o.concurrency, 4),
      servers,
    );
    await driveRemote(
      phase('noop', () => ({}), o.concurrency, 8, bares),
      bares,
    );
    const { line, table } = await overhead();
    console.log(`${table}\n\nTarget\n${line}`);
    return stop();
  }
  if (o.keywordOnly) {
    // The keyword target's phases alone, each run serialRounds times in turn with the bare no-op, so a
    // change can be tried in two minutes and the machine's drift shows beside it.
    process.stdout.write('  warming up…\r');
    await driveRemote(
      phase('svc_get_transcripts', (i) => ({ keyword: kw(i) }), o.concurrency, 8),
      servers,
    );
    for (let r = 1; r <= o.serialRounds; r++) {
      await measure(
        `round ${r}: svc_get_transcripts keyword`,
        remote(phase('svc_get_transcripts', (i) => ({ keyword: kw(i) }))),
      );
      await measure(
        `round ${r}: svc_search keyword`,
        remote(phase('svc_search', (i) => ({ query: `keyword:${kw(i)} limit:10` }))),
      );
      await measure(
        `round ${r}: bare SDK no-op`,
        remote(
          phase('noop', () => ({}), o.concurrency, o.seconds / 2, bares),
          bares,
        ),
      );
    }
    console.log(
      '\nResults'.padEnd(46) +
        '   calls/s         p50         p95         p99   errors  peak RSS  CPU ms/call (server / pg / driver)',
    );
    for (const [label, s] of results) console.log(row(label, s));
    const p95s = results
      .filter(([label]) => !label.includes('no-op'))
      .map(([, s]) => s.p95)
      .sort((a, b) => a - b);
    console.log(
      `\n  keyword with moments p95: median of the rounds ${ms(percentile(p95s, 0.5))}, range ${ms(p95s[0])}–${ms(p95s[p95s.length - 1])}`,
    );
    return stop();
  }

  const idleRss = Math.max(...servers.map((x) => rssMb(x.pid)));
  console.log(
    `\nMeasuring (${o.concurrency} concurrent over ${o.replicas} mcp process(es), ${o.seconds} s each; mcp role RSS before load ${idleRss.toFixed(0)} MB)…`,
  );
  // A process that has served for a while, as a pod has: the keyword calls warm the JIT, the prepared
  // statements of every pooled connection and PostgreSQL's caches first. Without it the first phase
  // measured a cold process (2.27 ms of server CPU a call against 1.64 ms for the same statements in
  // the phase after it, 2 M sentences; at 10 M its p95 was 104 ms against 89 ms).
  process.stdout.write('  warming up…\r');
  await driveRemote(
    phase('svc_get_transcripts', (i) => ({ keyword: kw(i) }), o.concurrency, 8),
    servers,
  );
  // Keyword calls answer moments (3 a meeting) by default; the same calls with moments 0 beside them.
  const getTranscripts = await measure(
    'svc_get_transcripts keyword',
    remote(phase('svc_get_transcripts', (i) => ({ keyword: kw(i) }))),
  );
  const search = await measure(
    'svc_search keyword',
    remote(phase('svc_search', (i) => ({ query: `keyword:${kw(i)} limit:10` }))),
  );
  const getTranscriptsBare = await measure(
    'svc_get_transcripts keyword, moments 0',
    remote(phase('svc_get_transcripts', (i) => ({ keyword: kw(i), moments: 0 }))),
  );
  const searchBare = await measure(
    'svc_search keyword, moments:0',
    remote(phase('svc_search', (i) => ({ query: `keyword:${kw(i)} limit:10 moments:0` }))),
  );
  const relevance = await measure(
    'svc_get_transcripts keyword, relevance',
    remote(phase('svc_get_transcripts', (i) => ({ keyword: kw(i), sort: 'relevance' }))),
  );
  const matches = await measure(
    'svc_get_transcript keyword (matches)',
    remote(phase('svc_get_transcript', (i) => ({ transcriptId: openIds[i % openIds.length], keyword: kw(i) }))),
  );
  const transcript = await measure(
    'svc_get_transcript',
    remote(phase('svc_get_transcript', (i) => ({ transcriptId: openIds[i % openIds.length] }))),
  );
  await measure(
    'svc_get_summary',
    remote(phase('svc_get_summary', (i) => ({ transcriptId: openIds[i % openIds.length] }))),
  );
  await measure('svc_get_transcripts (no filter)', remote(phase('svc_get_transcripts', () => ({}))));
  const mcpRss = Math.max(...results.map(([, r]) => r.rssMb)); // the MCP phases so far
  const pgOnly = await measure('baseline: its SQL through pg alone', local(o.concurrency, o.seconds, pgList));
  const pgOnlyBare = await measure(
    'baseline: its SQL without moments, pg alone',
    local(o.concurrency, o.seconds, (i) => pgList(i, false)),
  );
  const bareSdk = await measure(
    'baseline: bare SDK no-op tool',
    remote(
      phase('noop', () => ({}), o.concurrency, o.seconds, bares),
      bares,
    ),
  );

  const overheadResult = await overhead();

  // Per keyword, so a slow term is not hidden in the mix.
  const perKeyword: [string, Stats][] = [];
  for (const k of keywords) {
    process.stdout.write(`  running keyword ${k}…\r`);
    perKeyword.push([
      k,
      await driveRemote(
        phase('svc_get_transcripts', () => ({ keyword: k }), o.concurrency, Math.max(1, o.seconds / 4)),
        servers,
      ),
    ]);
  }

  // Tokens per result, TOON against JSON.
  const listToon = await toolsCall(mcpUrl, keys[0], 'svc_get_transcripts', { keyword: keywords[0], limit: 10 });
  const listJson = await toolsCall(mcpUrl, keys[0], 'svc_get_transcripts', {
    keyword: keywords[0],
    limit: 10,
    format: 'json',
  });
  const trToon = await toolsCall(mcpUrl, keys[0], 'svc_get_transcript', { transcriptId: openIds[0] });
  const trJson = trToon.isError ? '' : JSON.stringify(decode(trToon.text));
  const pretty = (json: string) => (json ? JSON.stringify(JSON.parse(json), null, 2) : '');

  console.log(
    '\nResults'.padEnd(46) +
      '   calls/s         p50         p95         p99   errors  peak RSS  CPU ms/call (server / pg / driver)',
  );
  for (const [label, s, target] of results) console.log(row(label, s, target));
  for (const [, s] of results.filter(([, s]) => s.firstError)) console.log(`  first error: ${s.firstError}`);
  console.log('\nsvc_get_transcripts by keyword:');
  for (const [k, s] of perKeyword) console.log(row(`  ${k}`, s));
  console.log(overheadResult.table);

  const tok = (s: string) => tokens(s).length;
  const listRatio = tok(listToon.text) / tok(listJson.text);
  const trRatio = trJson ? tok(trToon.text) / tok(trJson) : NaN;

  console.log('\nTargets');
  const keywordP95 = Math.max(getTranscripts.p95, search.p95);
  console.log(
    `  keyword search p95 ≤ 50 ms                 ${ms(getTranscripts.p95)} (svc_get_transcripts), ${ms(search.p95)} (svc_search)   ${verdict(keywordP95 <= 50)}`,
  );
  // Issue: keyword calls with moments p95 ≤ 50 ms on 2 M sentences, ≤ 100 ms on 10 M (50,000 meetings).
  const momentsTarget = o.meetings * o.sentences > 2_000_000 ? 100 : 50;
  console.log(
    `  keyword with moments p95 ≤ ${momentsTarget} ms            ${ms(getTranscripts.p95)}, ${ms(search.p95)} (without moments ${ms(getTranscriptsBare.p95)}, ${ms(searchBare.p95)}; ` +
      `relevance ${ms(relevance.p95)}; svc_get_transcript keyword ${ms(matches.p95)})   ${verdict(keywordP95 <= momentsTarget)}`,
  );
  const share = (a: Stats, b: Stats) => a.perSecond / b.perSecond;
  const [kwShare, searchShare] = [share(getTranscripts, pgOnly), share(search, pgOnly)];
  const [kwBareShare, searchBareShare] = [share(getTranscriptsBare, pgOnlyBare), share(searchBare, pgOnlyBare)];
  console.log(
    `  keyword with moments ≥ ${KEYWORD_SHARE}× its SQL (pg alone)  ${getTranscripts.perSecond.toFixed(0)}/s, ${search.perSecond.toFixed(0)}/s (svc_search) vs ${pgOnly.perSecond.toFixed(0)}/s: ` +
      `${kwShare.toFixed(2)}×, ${searchShare.toFixed(2)}×   ${verdict(Math.min(kwShare, searchShare) >= KEYWORD_SHARE)}`,
  );
  console.log(
    `  keyword, moments 0 ≥ ${KEYWORD_SHARE_NO_MOMENTS}× its SQL (pg alone)  ${getTranscriptsBare.perSecond.toFixed(0)}/s, ${searchBare.perSecond.toFixed(0)}/s (svc_search) vs ${pgOnlyBare.perSecond.toFixed(0)}/s: ` +
      `${kwBareShare.toFixed(2)}×, ${searchBareShare.toFixed(2)}×   ${verdict(Math.min(kwBareShare, searchBareShare) >= KEYWORD_SHARE_NO_MOMENTS)}`,
  );
  const trShare = share(transcript, bareSdk);
  console.log(
    `  svc_get_transcript ≥ ${TRANSCRIPT_SHARE}× bare no-op calls/s  ${transcript.perSecond.toFixed(0)}/s vs ${bareSdk.perSecond.toFixed(0)}/s: ${trShare.toFixed(2)}×${transcript.errors ? ` (${transcript.errors} errors)` : ''}   ${verdict(trShare >= TRANSCRIPT_SHARE && transcript.errors === 0)}`,
  );
  console.log(overheadResult.line);
  const ownRss = mcpRss - embedderMb;
  console.log(
    `  peak RSS − embedder ≤ ${RSS_BOUND_MB} MB             ${ownRss.toFixed(0)} MB: ${mcpRss.toFixed(0)} MB while serving (the largest mcp role process; ${idleRss.toFixed(0)} MB idle) − ${embedderMb.toFixed(0)} MB of the question embedder alone   ${verdict(ownRss <= RSS_BOUND_MB)}`,
  );
  // Issue #3 names four targets and, for tokens, an aim: printed as such, not as a pass or a fail.
  console.log(
    `  aim: TOON ≤ 0.6 × JSON tokens              list ${tok(listToon.text)} vs ${tok(listJson.text)} (${listRatio.toFixed(2)}), transcript ${trJson ? `${tok(trToon.text)} vs ${tok(trJson)} (${trRatio.toFixed(2)})` : 'n/a (svc_get_transcript failed)'}   ${listRatio <= 0.6 && trRatio <= 0.6 ? 'reached' : 'not reached'}`,
  );
  console.log(
    `  (against pretty-printed JSON, the reference TOON's own figures use: list ${(tok(listToon.text) / tok(pretty(listJson.text))).toFixed(2)}, transcript ${trJson ? (tok(trToon.text) / tok(pretty(trJson))).toFixed(2) : 'n/a'})`,
  );
  // The floor: the values alone, one tab between each, no names and no structure. No encoding that
  // carries every value can spend fewer tokens, so this is how low the TOON ratio could ever go.
  const floor = (json: string) => (json ? tok(leaves(JSON.parse(json)).join('\t')) : NaN);
  console.log(
    `  (the values alone, the least any format of these fields could spend: list ${(floor(listJson.text) / tok(listJson.text)).toFixed(2)}, transcript ${trJson ? (floor(trJson) / tok(trJson)).toFixed(2) : 'n/a'} of JSON)`,
  );
  console.log(
    `  (database share at ${o.concurrency} concurrent: pg alone ${pgOnly.perSecond.toFixed(0)}/s, p95 ${ms(pgOnly.p95)}; bare SDK ${bareSdk.perSecond.toFixed(0)}/s)`,
  );

  await stop();
}

// Run when started (also as its own seeding and driver child); other benches import its helpers.
if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
