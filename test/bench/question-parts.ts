/**
 * The question bench's parts that stand beside its main measure (questions.bench.ts): a question's
 * model run and statements timed alone, and the backfill's throughput through the worker's activity.
 */
import { join } from 'node:path';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { resolveFilters } from '../../services/core/meetings/filters';
import { listedAndVisible } from '../../services/core/meetings/list-sql';
import {
  nearestPassagesSql,
  questionWordsSql,
  rankByMeaningSql,
  wordSentencesSql,
} from '../../services/core/meetings/question-sql';
import { vectorLiteral } from '../../services/core/passages';
import { authenticateApiKey } from '../../services/core/people';
import { loadEmbedder } from '../../services/intelligence/embeddings';
import { loadConfig } from '../../services/platform/config';
import { createDb, migrateLatest } from '../../services/platform/db';
import type { SqlFragment } from '../../services/platform/sql';
import { createEmbeddingActivities } from '../../workflows/activities/embeddings';
import { demoManifest, demoSentences } from '../support/questions';
import { createDatabase, withDatabase } from './mcp.bench';

export const MODEL_DIR = join(__dirname, '..', '..', '.models', 'all-minilm-l6-v2');
const ms = (v: number) => `${v.toFixed(1)} ms`;

/** The team, its users (user01 an admin, the rest members), as the MCP bench's seed makes them. */
export async function seedTeam(db: Knex, users: number) {
  const teamId = ulid();
  await db('teams').insert({ id: teamId, name: 'Acme', tier: 'enterprise', feature_flags: ['search', 'fetch'] });
  const rows = Array.from({ length: users }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    return {
      id: ulid(),
      team_id: teamId,
      email: `user${n}@acme.example`,
      name: `User ${n}`,
      role: i ? 'member' : 'admin',
    };
  });
  await db('users').insert(rows);
  return { teamId, users: rows };
}

/**
 * The question's own model run, in this process on one thread as the role runs it, over the same
 * questions: the part of a question's latency no SQL plan can save.
 */
export async function questionEmbedding(questions: string[]) {
  const embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  const times: number[] = [];
  for (let round = 0; round < 3; round++)
    for (const q of questions) {
      const t0 = performance.now();
      await embedder.embedQuery(q);
      if (round) times.push(performance.now() - t0); // the first round warms the session
    }
  await embedder.close();
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], p95: times[Math.ceil(times.length * 0.95) - 1] };
}

/** The words' arm across every meeting the caller may see (what a question without meaning runs): its tsquery made first. */
async function wordsEverywhere(db: Knex, visible: SqlFragment, question: string) {
  const w = questionWordsSql(question);
  const tsq = (await db.raw(w.sql, w.bindings)).rows[0].q as string;
  if (!tsq) return [];
  const q = wordSentencesSql(visible, tsq, 500, 40);
  return (await db.raw(q.sql, q.bindings)).rows;
}

/**
 * A question's statements through knex alone, as a question runs them (question-rank.ts), one
 * question at a time for the same callers: the database's share of a question, the nearest passages
 * alone beside the whole ranking statement that holds them, and the plan of the first question's.
 */
export async function questionStatements(
  db: Knex,
  keys: string[],
  questions: string[],
  model: { name: string; dims: number },
) {
  const embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  const principals = await Promise.all(keys.map((k) => authenticateApiKey(db, k)));
  // `words everywhere`: across every meeting the caller may see, as a question without meaning runs it
  // (and as the first design did for every question).
  const times = { nearest: [] as number[], ranking: [] as number[], 'words everywhere': [] as number[] };
  const timed = async <T>(into: number[], run: () => Promise<T>) => {
    const t0 = performance.now();
    const r = await run();
    into.push(performance.now() - t0);
    return r;
  };
  const ranking = { passages: 40, efSearch: 100, wordSpan: 10, words: 40, wordWeight: 0.07, wordHalf: 0.3, pool: 100 };
  // Each statement makes its own HNSW settings (nearestPassagesSql), so it runs alone, as a question runs it.
  const alone = async (sql: string, bindings: SqlFragment['bindings']) => (await db.raw(sql, bindings)).rows;
  const plans: string[] = [];
  for (const [i, q] of questions.entries()) {
    const visible = listedAndVisible(principals[i % principals.length], resolveFilters({ question: q }));
    const vector = vectorLiteral(await embedder.embedQuery(q));
    const near = nearestPassagesSql(visible, model.name, model.dims, vector, 40, ranking.efSearch);
    await timed(times.nearest, () => alone(near.sql, near.bindings));
    const ranked = rankByMeaningSql(visible, model.name, model.dims, vector, q, ranking);
    await timed(times.ranking, () => alone(ranked.sql, ranked.bindings));
    await timed(times['words everywhere'], () => wordsEverywhere(db, visible, q));
    if (i === 0) {
      const plan = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => `      ${r['QUERY PLAN']}`).join('\n');
      const explained = await alone(`explain (analyze, buffers) ${ranked.sql}`, ranked.bindings);
      plans.push(`    the ranking statement, "${q}":\n${plan(explained)}`);
    }
  }
  await embedder.close();
  const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * q) - 1];
  return {
    stats: Object.entries(times).map(([k, xs]) => `${k} p50 ${ms(pct(xs, 0.5))}, p95 ${ms(pct(xs, 0.95))}`),
    plans,
  };
}

/**
 * How near the index's passages are at each `hnsw.ef_search`: the share of the exact 40 nearest
 * passages (a scan of every visible passage) that the index returns, and its time, over the same
 * questions and callers. The figure that says what a smaller ef_search gives up, which the question
 * set's recall (a few demo meetings, where the index is all but exact) cannot show.
 */
export async function nearestAgainstExact(
  db: Knex,
  keys: string[],
  questions: string[],
  model: { name: string; dims: number },
  efs: number[],
) {
  const embedder = await loadEmbedder(MODEL_DIR, { threads: 1 });
  const principals = await Promise.all(keys.map((k) => authenticateApiKey(db, k)));
  const found = new Map(efs.map((ef) => [ef, { within: 0, gap: 0, times: [] as number[] }]));
  // Many passages are the same sentences in other meetings (a thousand distinct sentences make the
  // data set) a little apart by their noise, so the exact 40 are one choice among near equals: both
  // the share found at most as far as the exact 40th, and the mean distance found ÷ the exact mean.
  const farthest = (rows: { distance: number }[]) => Math.max(...rows.map((r) => Number(r.distance)));
  const meanOf = (rows: { distance: number }[]) => rows.reduce((a, r) => a + Number(r.distance), 0) / rows.length;
  for (const [i, q] of questions.entries()) {
    const visible = listedAndVisible(principals[i % principals.length], resolveFilters({ question: q }));
    const vector = vectorLiteral(await embedder.embedQuery(q));
    const exactRows = await db.transaction(async (trx) => {
      await trx.raw('set local enable_indexscan = off');
      const near = nearestPassagesSql(visible, model.name, model.dims, vector, 40, 40);
      return (await trx.raw(near.sql, near.bindings)).rows;
    });
    const exact = farthest(exactRows);
    for (const ef of i % 2 ? [...efs].reverse() : efs) {
      const t0 = performance.now();
      const near = nearestPassagesSql(visible, model.name, model.dims, vector, 40, ef);
      const rows = (await db.raw(near.sql, near.bindings)).rows;
      const f = found.get(ef)!;
      f.times.push(performance.now() - t0);
      f.gap += meanOf(rows) / meanOf(exactRows);
      f.within += rows.filter((r: { distance: number }) => Number(r.distance) <= exact * (1 + 1e-6)).length / 40;
    }
  }
  await embedder.close();
  const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * q) - 1];
  return efs.map((ef) => {
    const f = found.get(ef)!;
    return `ef_search ${ef}: ${((100 * f.within) / questions.length).toFixed(1)} % as near as the exact 40th, mean distance ${(f.gap / questions.length).toFixed(3)}× the exact, p50 ${ms(pct(f.times, 0.5))}, p95 ${ms(pct(f.times, 0.95))}`;
  });
}

/** A completed meeting holding a demo meeting's sentences, not embedded by any model. */
export async function insertDemoMeeting(
  db: Knex,
  meeting: Record<string, unknown> & { id: string },
  sentences: ReturnType<typeof demoSentences>,
): Promise<void> {
  await db('meetings').insert({ ...meeting, status: 'completed' });
  await db('sentences').insert(
    sentences.map((x) => ({
      meeting_id: meeting.id,
      idx: x.index,
      speaker_name: x.speaker_name,
      speaker_id: x.speaker_id,
      text: x.text,
      raw_text: x.raw_text,
      start_time: x.start_time,
      end_time: x.end_time,
    })),
  );
}

/** Sentences per second through embedBackfillStep in a plain loop, over `count` real demo meetings. */
export async function backfill(adminUrl: string, count: number, threads: number) {
  const name = 'mi_qbench_backfill';
  await createDatabase(adminUrl, name, true);
  const db = createDb({ url: withDatabase(adminUrl, name), poolMax: 4 });
  await migrateLatest(db);
  const team = await seedTeam(db, 5);
  const files = [...demoManifest().keys()];
  let sentences = 0;
  for (let i = 0; i < count; i++) {
    const id = ulid();
    const org = team.users[i % team.users.length];
    const ss = demoSentences(files[i % files.length]);
    sentences += ss.length;
    await insertDemoMeeting(
      db,
      {
        id,
        team_id: team.teamId,
        organizer_id: org.id,
        organizer_email: org.email,
        uploader_id: org.id,
        title: `Demo ${i}`,
        date: new Date(),
      },
      ss,
    );
  }
  const embedder = await loadEmbedder(MODEL_DIR, { threads });
  const act = createEmbeddingActivities({
    db,
    config: loadConfig(
      { ...process.env, DATABASE_URL: withDatabase(adminUrl, name), SECRETS_KEY: '0'.repeat(64) },
      'worker',
    ),
    embedder: async () => embedder,
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let afterId = '';
  let embedded = 0;
  for (;;) {
    const r = await act.embedBackfillStep({ afterId, batchSize: 20, budgetMs: 60_000 });
    embedded += r.embedded;
    afterId = r.lastId;
    if (r.done) break;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await embedder.close();
  await db.destroy();
  return { meetings: embedded, sentences, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}
