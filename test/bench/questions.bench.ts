/**
 * Question benchmark (issue 40, "Ask in your own words"): a question answered by meaning through the
 * real mcp role, beside a keyword call with moments in the same run, on N meetings × M sentences of
 * real demo speech with a vector for every passage; the role's peak RSS with the question embedder
 * loaded; the HNSW index's build time; and the backfill's throughput through the worker's activity.
 *
 *   npx tsx test/bench/questions.bench.ts                          # 2,000 meetings × 200 sentences (400,000)
 *   npx tsx test/bench/questions.bench.ts --meetings 200 --sentences 50 --seconds 3   # a quick run
 *   npx tsx test/bench/questions.bench.ts --meetings 10000         # 2 M sentences, as the issue asks (and 50000: 10 M)
 *
 * Text: each meeting's sentences are runs of consecutive demo sentences (test/support/questions.ts),
 * so keywords and the question's words match real speech. Vectors are made for latency, not recall:
 * every distinct demo sentence is embedded once with the real model, and a passage's vector is the
 * normalised sum of its sentences' vectors plus a little gaussian noise. The model's HNSW index is
 * built once after the load, as vectorIndexDdl makes it. See test/bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { createApiKey } from '../../services/core/people';
import { PASSAGE_SENTENCES, vectorIndexDdl, vectorLiteral } from '../../services/core/passages';
import { startLocalPostgres } from '../../services/devstack/postgres';
import { freePort } from '../../services/devstack/ports';
import { loadEmbedder, readEmbeddingModelInfo } from '../../services/intelligence/embeddings';
import { createDb, migrateLatest } from '../../services/platform/db';
import { demoManifest, demoSentences, loadDemoQuestions } from '../support/questions';
import {
  backfill,
  MODEL_DIR,
  nearestAgainstExact,
  questionEmbedding,
  questionStatements,
  seedTeam,
} from './question-parts';
import { buildRole, createDatabase, driveRemote, row, startMcpRole, withDatabase, type Stats } from './mcp.bench';

const RATIO_BOUND = 1.5;
const RSS_BOUND_MB = 350;
/** Noise vectors a passage's vector draws one of, so passages of the same sentences are not one point. */
const NOISE_POOL = 4096;

function options() {
  const o = { meetings: 2000, sentences: 200, users: 20, seconds: 10, rounds: 3, backfill: 50, noise: 0.01 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '') as keyof typeof o;
    const v = Number(argv[++i]);
    if (!(name in o) || !Number.isFinite(v) || v < 0)
      throw new Error(
        `usage: --meetings N --sentences M --users U --seconds S --rounds R --backfill B --noise X (got ${argv[i - 1]})`,
      );
    o[name] = v;
  }
  return o;
}
type Options = ReturnType<typeof options>;

/** mulberry32: the same data on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const vmKb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const load = () => `load ${loadavg()[0].toFixed(2)}${loadavg()[0] > 2 ? ' (busy)' : ''}`;

/** Every demo sentence in file order, meeting after meeting: the text the synthetic meetings are cut from. */
function demoCorpus() {
  return [...demoManifest().keys()].flatMap((file) => demoSentences(file));
}

const PRIVACIES = [
  'teammatesandparticipants',
  'teammatesandparticipants',
  'teammatesandparticipants',
  'owner',
  'participants',
  'teammates',
  'link',
];

/** One meeting's rows: its record, participants and sentences (runs of 5–30 consecutive demo sentences). */
function meetingRows(
  i: number,
  o: Options,
  team: Awaited<ReturnType<typeof seedTeam>>,
  corpus: ReturnType<typeof demoCorpus>,
  rand: () => number,
) {
  const id = ulid(Date.parse('2025-01-01') + i * 3_600_000);
  const organizer = team.users[Math.floor(rand() * team.users.length)];
  const others = new Set([
    organizer,
    ...Array.from({ length: 3 }, () => team.users[Math.floor(rand() * team.users.length)]),
  ]);
  const picked: number[] = [];
  while (picked.length < o.sentences) {
    const start = Math.floor(rand() * corpus.length);
    const run = 5 + Math.floor(rand() * 26);
    for (let k = 0; k < run && picked.length < o.sentences; k++) picked.push((start + k) % corpus.length);
  }
  const sentences = picked.map((c, idx) => ({ ...corpus[c], idx, corpusIndex: c, start: idx * 5 }));
  return {
    meeting: {
      id,
      team_id: team.teamId,
      organizer_id: organizer.id,
      organizer_email: organizer.email,
      uploader_id: organizer.id,
      title: `Meeting ${i + 1}`,
      date: new Date(Date.parse('2025-01-01') + i * 3_600_000),
      duration_seconds: o.sentences * 5,
      privacy: PRIVACIES[Math.floor(rand() * PRIVACIES.length)],
      status: 'completed',
    },
    participants: [...others].map((u) => ({ meeting_id: id, email: u.email, name: u.name, user_id: u.id })),
    sentences,
  };
}

/** A gaussian draw (Box–Muller). */
const gauss = (rand: () => number) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** Seed the data set: meetings of demo text, their sentences, and a vector for every passage; then the indexes. */
async function seed(db: Knex, o: Options, model: { name: string; dims: number }): Promise<void> {
  const started = Date.now();
  await migrateLatest(db);
  const team = await seedTeam(db, o.users);
  const corpus = demoCorpus();
  // Every distinct demo sentence embedded once with the real model; passages are sums of these.
  const embedder = await loadEmbedder(MODEL_DIR, { threads: cpus().length });
  const distinct = [...new Set(corpus.map((s) => s.text))];
  const byText = new Map((await embedder.embedPassages(distinct)).map((v, k) => [distinct[k], v]));
  await embedder.close();
  console.log(
    `  embedded ${distinct.length} distinct demo sentences in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  // The corpus and its vectors in the database, and a pool of noise vectors: PostgreSQL makes each
  // meeting's sentences and passage vectors from them, so a batch sends only corpus indexes.
  await db.raw(
    `create unlogged table bench_corpus (ci int primary key, speaker_name text, speaker_id int, text text, v vector(${model.dims}))`,
  );
  await db.raw('insert into bench_corpus select * from unnest(?::int[], ?::text[], ?::int[], ?::text[], ?::vector[])', [
    corpus.map((_, k) => k),
    corpus.map((c) => c.speaker_name),
    corpus.map((c) => c.speaker_id),
    corpus.map((c) => c.text),
    corpus.map((c) => vectorLiteral(byText.get(c.text)!)),
  ]);
  const rand = prng(20261128);
  await db.raw(`create unlogged table bench_noise (id int primary key, v vector(${model.dims}))`);
  await db.raw('insert into bench_noise select * from unnest(?::int[], ?::vector[])', [
    Array.from({ length: NOISE_POOL }, (_, k) => k),
    Array.from({ length: NOISE_POOL }, () =>
      vectorLiteral(Float32Array.from({ length: model.dims }, () => o.noise * gauss(rand))),
    ),
  ]);
  const gin = (await db.raw("select indexdef from pg_indexes where indexname = 'sentences_tsv_idx'")).rows[0]?.indexdef;
  await db.raw('drop index if exists sentences_tsv_idx');
  const BATCH = Math.max(1, Math.floor(20_000 / o.sentences));
  const inflight = new Set<Promise<void>>();
  let loaded = 0;
  for (let first = 0; first < o.meetings; first += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, o.meetings - first) }, (_, k) =>
      meetingRows(first + k, o, team, corpus, rand),
    );
    const u = { m: [] as string[], i: [] as number[], c: [] as number[] };
    for (const { meeting, sentences } of batch)
      for (const x of sentences) {
        u.m.push(meeting.id);
        u.i.push(x.idx);
        u.c.push(x.corpusIndex);
      }
    const picked = 'unnest(?::text[], ?::int[], ?::int[]) as u(m, i, ci) join bench_corpus c on c.ci = u.ci';
    const write = db.transaction(async (tx) => {
      await tx('meetings').insert(batch.map((x) => x.meeting));
      await tx('meeting_participants').insert(batch.flatMap((x) => x.participants));
      await tx.raw(
        'insert into sentences (meeting_id, idx, speaker_name, speaker_id, text, raw_text, start_time, end_time)' +
          ` select u.m, u.i, c.speaker_name, c.speaker_id, c.text, c.text, u.i * 5, u.i * 5 + 4 from ${picked}`,
        [u.m, u.i, u.c],
      );
      // meeting_embeddings first: passage_vectors references it.
      await tx('meeting_embeddings').insert(
        batch.map((x) => ({ meeting_id: x.meeting.id, model: model.name, sentences: o.sentences })),
      );
      // passagesOf's windows (the PASSAGE_CHARS cut aside): from each sentence, it and the next
      // PASSAGE_SENTENCES - 1; and from the meeting's start, the first one and two.
      const n = PASSAGE_SENTENCES - 1;
      await tx.raw(
        'insert into passage_vectors (meeting_id, model, first_idx, last_idx, embedding)' +
          ' select w.m, ?, w.f, w.l, l2_normalize(w.v + z.v)::halfvec from (' +
          ` select m, i as f, max(i) over fw as l, sum(v) over fw as v, sum(v) over bw as back from (select u.m, u.i, c.v from ${picked}) x` +
          ` window fw as (partition by m order by i rows between current row and ${n} following),` +
          ` bw as (partition by m order by i rows between ${n} preceding and current row)` +
          ` ) y cross join lateral (values (y.m, y.f, y.l, y.v), (y.m, 0, y.f, case when y.f < ${n} then y.back end)) as w(m, f, l, v)` +
          ` join bench_noise z on z.id = (abs(hashtext(w.m)) + w.f * 31 + w.l) % ${NOISE_POOL} where w.v is not null`,
        [model.name, u.m, u.i, u.c],
      );
    });
    const done = write.then(() => void (loaded += u.m.length)).finally(() => inflight.delete(done));
    inflight.add(done);
    if (inflight.size >= 2) await Promise.race(inflight);
    process.stdout.write(
      `\r  seeding: ${first + batch.length} / ${o.meetings} meetings, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  await Promise.all(inflight);
  await db.raw('drop table bench_corpus, bench_noise');
  console.log(
    `\r  loaded ${o.meetings} meetings, ${loaded} sentences with their passages in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  // The HNSW graph built in memory (past maintenance_work_mem pgvector builds on disk, many times slower):
  // about 1.2 kB a passage of 384 dimensions, so 2 GB at least and 1 GB more for every 830,000 passages.
  const graphGb = Math.max(2, Math.ceil((o.meetings * (o.sentences + 2) * 1.2e3) / 2 ** 30));
  await db.raw(`set maintenance_work_mem = '${graphGb}GB'`);
  let t = Date.now();
  await db.raw(gin ?? 'create index sentences_tsv_idx on sentences using gin (tsv)');
  console.log(`  sentences' GIN index: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  await db.raw(vectorIndexDdl(model.name, model.dims));
  const hnswSeconds = (Date.now() - t) / 1000;
  const size = (
    await db.raw('select pg_size_pretty(pg_relation_size(?)) as s', [
      `passage_vectors_hnsw_${model.name.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`,
    ])
  ).rows[0]?.s;
  console.log(
    `  the model's HNSW index (maintenance_work_mem ${(await db.raw('show maintenance_work_mem')).rows[0].maintenance_work_mem}): ${hnswSeconds.toFixed(1)} s, ${size} (${load()})`,
  );
  await db.raw('vacuum analyze');
  const sizes = (
    await db.raw(
      "select pg_size_pretty(pg_database_size(current_database())) as db, pg_size_pretty(pg_total_relation_size('sentences')) as s," +
        " pg_size_pretty(pg_total_relation_size('passage_vectors')) as p",
    )
  ).rows[0];
  console.log(
    `  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s; on disk ${sizes.db} (sentences ${sizes.s}, passage_vectors with its indexes ${sizes.p})`,
  );
}

/** Whether `name` holds a data set seeded to the end (QBENCH_PGDATA). */
async function seededBefore(adminUrl: string, name: string): Promise<boolean> {
  const admin = createDb({ url: adminUrl, poolMax: 1 });
  try {
    if (!(await admin.raw('select 1 from pg_database where datname = ?', [name])).rows.length) return false;
  } finally {
    await admin.destroy();
  }
  const db = createDb({ url: withDatabase(adminUrl, name), poolMax: 1 });
  try {
    return (await db.raw("select to_regclass('bench_seeded') is not null as ok")).rows[0].ok;
  } finally {
    await db.destroy();
  }
}

/** The most frequent word of five letters or more in the demo sentences: "a common demo word". */
function commonWord(): string {
  const counts = new Map<string, number>();
  for (const s of demoCorpus())
    for (const w of new Set(s.text.toLowerCase().match(/[a-z]{5,}/g) ?? [])) counts.set(w, (counts.get(w) ?? 0) + 1);
  const skip = new Set([
    'there',
    'about',
    'think',
    'would',
    'which',
    'going',
    'their',
    "that's",
    'these',
    'could',
    'right',
    'really',
  ]);
  return [...counts].filter(([w]) => !skip.has(w)).sort((a, b) => b[1] - a[1])[0][0];
}

async function main(): Promise<void> {
  const o = options();
  const model = readEmbeddingModelInfo(MODEL_DIR);
  console.log(
    `Question benchmark: ${o.meetings} meetings × ${o.sentences} sentences (${o.meetings * o.sentences} sentences), model ${model.name}; ${load()}`,
  );
  // A cluster of its own, shared_buffers large enough to hold the vectors and their index, as a server for this size would be.
  // QBENCH_PGDATA=<dir>: the cluster is kept there, and a data set seeded to the end is reused.
  const kept = process.env.QBENCH_PGDATA;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'mi-qbench-pg-'));
  let pg = startLocalPostgres({ dataDir: dir, port: await freePort(), durable: false });
  const admin = createDb({ url: pg.url, poolMax: 1 });
  await admin.raw("alter system set shared_buffers = '2GB'");
  await admin.destroy();
  pg.stop();
  pg = startLocalPostgres({ dataDir: dir, port: pg.port, durable: false });
  const stopAll: (() => Promise<void> | void)[] = [
    () => pg.stop(),
    () => (kept ? undefined : rmSync(dir, { recursive: true, force: true })),
  ];
  try {
    const name = `mi_qbench_${o.meetings}x${o.sentences}`;
    const reuse = kept !== undefined && (await seededBefore(pg.url, name));
    if (!reuse) await createDatabase(pg.url, name, true);
    const url = withDatabase(pg.url, name);
    const db = createDb({ url, poolMax: 4 });
    stopAll.unshift(() => db.destroy());
    if (reuse) {
      // A data set seeded by older code: brought to this code's schema (expand-only, so it stays seeded).
      await migrateLatest(db);
      console.log(`  reusing the data set seeded in ${dir}`);
    } else {
      await seed(db, o, model);
      await db.raw('create table bench_seeded (at timestamptz default now())');
      await db.raw('insert into bench_seeded default values');
    }

    const word = commonWord();
    const sel = (
      await db.raw("select count(*)::int as n from sentences where tsv @@ websearch_to_tsquery('english', ?)", [word])
    ).rows[0].n;
    console.log(`  keyword "${word}": ${sel} matching sentences`);
    const members = await db('users').where({ role: 'member' }).orderBy('email');
    const keys = await Promise.all(members.map(async (u) => (await createApiKey(db, { email: u.email })).key));
    const questions = loadDemoQuestions().map((q) => q.question);

    buildRole();
    const role = await startMcpRole(url);
    stopAll.unshift(() => role.stop());
    const idleKb = vmKb(role.pid, 'VmRSS');
    // One answer checked by hand: a question must be answered by meaning, not by its words.
    const probe = await fetch(role.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${keys[0]}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'svc_get_transcripts', arguments: { question: questions[0] } },
      }),
    }).then((r) => r.text());
    if (!/answered_by\W+meaning/.test(probe))
      throw new Error(`a question was not answered by meaning: ${probe.slice(0, 400)}`);

    const ROTATION = 512;
    const spec = (name: string, args: (i: number) => Record<string, unknown>, seconds: number, url = role.url) => ({
      urls: [url],
      concurrency: 1,
      seconds,
      calls: Array.from({ length: ROTATION }, (_, i) => ({ key: keys[i % keys.length], name, args: args(i) })),
    });
    const keyword = (s: number) => spec('svc_get_transcripts', () => ({ keyword: word, limit: 10 }), s);
    const question = (s: number, url = role.url) =>
      spec('svc_get_transcripts', (i) => ({ question: questions[i % questions.length] }), s, url);
    // QBENCH_BASELINE=<checkout>: that checkout's built mcp role answers the same questions in the same
    // rounds (a change measured against the code before it, on the same data and machine moment).
    const baseline = process.env.QBENCH_BASELINE ? await startMcpRole(url, process.env.QBENCH_BASELINE) : null;
    if (baseline) stopAll.unshift(() => baseline.stop());
    process.stdout.write('  warming up…\r');
    await driveRemote(keyword(5), [role]);
    const beforeQuestionsKb = vmKb(role.pid, 'VmRSS');
    await driveRemote(question(5), [role]);
    if (baseline) await driveRemote(question(5, baseline.url), [baseline]);
    const results: [string, Stats][] = [];
    for (let r = 1; r <= o.rounds; r++) {
      results.push([`round ${r}: keyword with moments`, await driveRemote(keyword(o.seconds), [role])]);
      // The two roles ask the same questions, so the second finds the pages the first read in memory:
      // they take turns going first.
      const ours = async () =>
        void results.push([`round ${r}: question`, await driveRemote(question(o.seconds), [role])]);
      const theirs = async () =>
        void results.push([
          `round ${r}: question, baseline`,
          await driveRemote(question(o.seconds, baseline!.url), [baseline!]),
        ]);
      if (!baseline) await ours();
      else for (const turn of r % 2 ? [ours, theirs] : [theirs, ours]) await turn();
    }
    const hwmKb = vmKb(role.pid, 'VmHWM');
    const loadAfter = load();

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const of = (kind: string, k: 'p50' | 'p95') =>
      median(results.filter(([l]) => l.endsWith(kind)).map(([, s]) => s[k]));
    const ratio50 = of('question', 'p50') / of('keyword with moments', 'p50');
    const ratio95 = of('question', 'p95') / of('keyword with moments', 'p95');

    const baselineRatio = baseline
      ? `; baseline (${process.env.QBENCH_BASELINE}): p95 ${ms(of('question, baseline', 'p95'))} = ${(of('question, baseline', 'p95') / of('keyword with moments', 'p95')).toFixed(2)}×, p50 ${ms(of('question, baseline', 'p50'))} = ${(of('question, baseline', 'p50') / of('keyword with moments', 'p50')).toFixed(2)}×`
      : '';
    const embedAlone = await questionEmbedding(questions);
    const statements = await questionStatements(db, keys, questions, model);
    const nearness = await nearestAgainstExact(db, keys, questions.slice(0, 40), model, [40, 100]);
    let bf: Awaited<ReturnType<typeof backfill>>[] = [];
    if (o.backfill > 0) bf = [await backfill(pg.url, o.backfill, 1), await backfill(pg.url, o.backfill, 2)];

    console.log(
      `\nOne call at a time, ${o.rounds} alternating rounds of ${o.seconds} s (${questions.length} questions in turn; keyword "${word}", limit 10)`,
    );
    console.log(
      `${'Results'.padEnd(44)}   calls/s         p50         p95         p99   errors  peak RSS  CPU ms/call (mcp / pg / driver)`,
    );
    for (const [label, s] of results) console.log(row(label, s));
    for (const [label, s] of results.filter(([, s]) => s.firstError))
      console.log(`  ${label} first error: ${s.firstError}`);
    console.log('\nTargets');
    console.log(
      `  question ÷ keyword with moments, p95 ≤ ${RATIO_BOUND}×   ${ms(of('question', 'p95'))} ÷ ${ms(of('keyword with moments', 'p95'))} = ${ratio95.toFixed(2)}× (p50 ${ms(of('question', 'p50'))} ÷ ${ms(of('keyword with moments', 'p50'))} = ${ratio50.toFixed(2)}×; medians of the rounds${baselineRatio})   ${ratio95 <= RATIO_BOUND ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  mcp role peak RSS (VmHWM) ≤ ${RSS_BOUND_MB} MB      ${mb(hwmKb)} after the questions (RSS at start ${mb(idleKb)}, after keyword calls, before any question ${mb(beforeQuestionsKb)})   ${hwmKb / 1024 <= RSS_BOUND_MB ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  (a question's embedding alone, this process, one thread: p50 ${ms(embedAlone.p50)}, p95 ${ms(embedAlone.p95)})`,
    );
    console.log(`  (a question's statements through knex alone: ${statements.stats.join('; ')})`);
    console.log(`  (the index against an exact scan, 40 questions: ${nearness.join('; ')})`);
    console.log(statements.plans.join('\n'));
    for (const [k, b] of bf.entries())
      console.log(
        `  backfill, embedBackfillStep, ${k + 1} thread(s): ${b.meetings} meetings, ${b.sentences} sentences in ${b.seconds.toFixed(1)} s: ${(b.sentences / b.seconds).toFixed(0)} sentences/s (${b.cpuSeconds.toFixed(1)} CPU-s, ${(b.sentences / b.cpuSeconds).toFixed(0)} per CPU-s)`,
      );
    console.log(
      `  machine: ${loadAfter} after the calls, ${load()} at the end; ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`,
    );
  } finally {
    for (const stop of stopAll) await stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
