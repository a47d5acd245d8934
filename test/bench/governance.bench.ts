/**
 * Access governance: what the read audit costs reads, and what a retention run costs while reads go on.
 *
 *   npx tsx test/bench/governance.bench.ts                       # 10,000 expired meetings × 200 sentences
 *   npx tsx test/bench/governance.bench.ts --meetings 1000 --sentences 50 --pairs 6   # a quick run
 *
 * Targets (issue "Access governance"):
 *   - the read audit costs at most 5 % of svc_get_transcript throughput and of keyword-list
 *     (svc_get_transcripts with a keyword, moments on) throughput: two mcp roles on one database, one
 *     with READ_AUDIT=true and one with READ_AUDIT=false, measured in `--pairs` pairs of `--slice`-second
 *     slices alternating between them (the order swapped every pair) in the same run. The pairs are
 *     spread over `--blocks` pairs of role processes, each pair started afresh with the start order
 *     swapped: two processes of the same code differ by a few per cent on their own (`--aa` runs the
 *     comparison with the audit off in both roles and shows how much), so one pair of processes
 *     cannot resolve 5 %;
 *   - retention deletes the expired meetings (N × M sentences) in at most 60 s without blocking reads:
 *     keyword-list p95 during the deletion beside p95 just before it, same load.
 *
 * Data: one enterprise team, 8 members, `--kept` recent meetings (the ones read) and `--meetings`
 * meetings 60-700 days old (the ones retention deletes, team retention 30 days), `--sentences` each,
 * drawn from a small vocabulary so keywords match many meetings. The roles run from source
 * (`bin/meeting-intel serve mcp`, logs off, rate limit lifted) in child processes; the driver keeps
 * `--concurrency` calls in flight over kept-alive connections. The deletion runs the retention
 * activity's own batches (services/core/retention deleteExpiredMeetings, 100 meetings a transaction)
 * in this process, as the worker would. PostgreSQL: DATABASE_URL, else a throwaway local cluster.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { Knex } from 'knex';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import { deleteExpiredMeetings } from '../../services/core/retention';
import { migrationSource } from '../../services/platform/migrations';
import {
  benchDatabase,
  forSeconds,
  load as loadWith,
  pct,
  post as postWith,
  option,
  Role,
  rpc,
  Series,
  startRole,
  stopRole,
} from './mcp-roles';

const EXPIRED = option('meetings', 10_000);
const SENTENCES = option('sentences', 200);
const KEPT = option('kept', 500);
const CONCURRENCY = option('concurrency', 16);
const SECONDS = option('seconds', 8);
/** Read-audit comparison: this many on/off pairs of SLICE seconds each, per call (short slices, so drift hits both sides alike). */
const PAIRS = option('pairs', 32);
const SLICE = option('slice', 1);
/** Fresh pairs of role processes the pairs are spread over (a process's own speed is part of what one pair measures). */
const BLOCKS = option('blocks', 4);
/** The A/A check: both roles with the audit off, so the "cost" printed is what the bench cannot tell from zero. */
const AA = process.argv.includes('--aa');
const BATCH = option('batch', 100);
const DAY = 86_400_000;

const WORDS = (
  'we should ship the budget review next week because the launch plan depends on hiring two engineers and the customer ' +
  'feedback was mostly positive about pricing roadmap security audit migration onboarding churn renewal forecast quarter ' +
  'design contract legal compliance vendor support escalation incident postmortem metrics dashboard'
).split(' ');
const KEYWORDS = ['budget', 'pricing', 'roadmap', 'incident', 'renewal', 'vendor'];

async function seed(db: Knex) {
  await db.migrate.latest({ migrationSource });
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise', feature_flags: ['search', 'fetch'] });
  const users: { id: string; email: string; key: string }[] = [];
  for (let i = 0; i < 8; i++) {
    const id = newId();
    const email = `user${i}@bench.example`;
    await db('users').insert({ id, team_id: teamId, email, name: `User ${i}`, role: i === 0 ? 'admin' : 'member' });
    users.push({ id, email, key: (await createApiKey(db, { email })).key });
  }
  const now = Date.now();
  const kept: string[] = [];
  const expired: string[] = [];
  const all = [
    ...Array.from({ length: KEPT }, (_, i) => ({ kept: true, i })),
    ...Array.from({ length: EXPIRED }, (_, i) => ({ kept: false, i })),
  ];
  const started = Date.now();
  for (let from = 0; from < all.length; from += 100) {
    const chunk = all.slice(from, from + 100).map((x) => {
      const id = newId();
      (x.kept ? kept : expired).push(id);
      const owner = users[1 + ((from + x.i) % 7)];
      return {
        id,
        team_id: teamId,
        organizer_id: owner.id,
        organizer_email: owner.email,
        uploader_id: owner.id,
        title: `${x.kept ? 'Weekly sync' : 'Old review'} ${x.i}`,
        date: new Date(x.kept ? now - (x.i % 10) * DAY - x.i * 1000 : now - (60 + (x.i % 640)) * DAY - x.i * 1000),
        duration_seconds: SENTENCES * 5,
        privacy: 'teammatesandparticipants',
        status: 'completed',
      };
    });
    await db('meetings').insert(chunk);
    await db('meeting_participants').insert(
      chunk.map((m) => ({ meeting_id: m.id, email: m.organizer_email, name: null })),
    );
    // Sentences made in PostgreSQL: 8-16 words each, picked by a hash of (meeting, index, position).
    await db.raw(
      `insert into sentences (meeting_id, idx, speaker_name, speaker_id, text, raw_text, start_time, end_time)
       select m.id, g.i, 'Speaker ' || (g.i % 4), g.i % 4, t.txt, t.txt, g.i * 5, g.i * 5 + 4
         from unnest(?::text[]) as m(id), generate_series(0, ? - 1) as g(i),
         lateral (select array_to_string(array(
                    select (?::text[])[1 + ((hashtext(m.id || ':' || g.i || ':' || k) & 2147483647) % ?)]
                      from generate_series(1, 8 + g.i % 9) as k), ' ') || '.' as txt) as t`,
      [chunk.map((m) => m.id), SENTENCES, WORDS, WORDS.length],
    );
    await db('summaries').insert(
      chunk.map((m) => ({
        meeting_id: m.id,
        keywords: JSON.stringify(['budget']),
        action_items: '[]',
        overview: 'A meeting.',
        short_summary: 'A meeting.',
      })),
    );
    if ((from / 100) % 20 === 0)
      process.stdout.write(
        `\rseeding ${from + chunk.length}/${all.length} meetings (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
  }
  // Vacuumed as well as analyzed: otherwise autovacuum takes up the 2 M fresh sentences during the measurement.
  await db.raw('vacuum analyze');
  process.stdout.write(
    `\rseeded ${all.length} meetings × ${SENTENCES} sentences in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  return { teamId, users, kept, expired };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
const post = (port: number, key: string, body: string) => postWith(agent, port, key, body);
const load = (call: Parameters<typeof loadWith>[1], until: () => boolean, rolePid?: number) =>
  loadWith(CONCURRENCY, call, until, rolePid);

async function main(): Promise<void> {
  const { pg, db, url } = await benchDatabase('governance', 4);
  const roles: ChildProcess[] = [];
  try {
    const { teamId, users, kept, expired } = await seed(db);
    const callers = users.slice(1);
    const transcript = (port: number) => (i: number) =>
      post(
        port,
        callers[i % callers.length].key,
        rpc('svc_get_transcript', { transcriptId: kept[(i * 7919) % kept.length], maxTokens: 4000 }),
      );
    const keyword = (port: number) => (i: number) =>
      post(
        port,
        callers[i % callers.length].key,
        rpc('svc_get_transcripts', { keyword: KEYWORDS[i % KEYWORDS.length], limit: 10 }),
      );

    // The read audit's cost: short on/off slices in pairs, the order swapped every pair, so a drift of
    // this (shared) machine's speed hits both sides alike; the pairs spread over BLOCKS pairs of fresh
    // role processes, the one started first alternating, so no one process's own speed decides.
    const results: Record<string, { on: Series[]; off: Series[] }> = {
      svc_get_transcript: { on: [], off: [] },
      keyword_list: { on: [], off: [] },
    };
    const perBlock = Math.ceil(PAIRS / BLOCKS);
    let on!: Role;
    for (let block = 0; block < BLOCKS; block++) {
      const started: Partial<Record<'on' | 'off', Role>> = {};
      for (const which of block % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        started[which] = await startRole(url, {
          RATE_LIMIT_PER_MINUTE: '0',
          READ_AUDIT: String(which === 'on' && !AA),
        });
        roles.push(started[which]!.child);
      }
      const roleOf = { on: started.on!, off: started.off! };
      // Warm-up: both roles, both calls.
      for (const role of [roleOf.on, roleOf.off]) {
        await load(transcript(role.port), forSeconds(2));
        await load(keyword(role.port), forSeconds(2));
      }
      for (const [name, make] of [
        ['svc_get_transcript', transcript],
        ['keyword_list', keyword],
      ] as const) {
        for (let pair = 0; pair < perBlock; pair++) {
          const order: ('on' | 'off')[] = pair % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
          for (const which of order)
            results[name][which].push(await load(make(roleOf[which].port), forSeconds(SLICE), roleOf[which].child.pid));
        }
      }
      // The last block's audited role serves the retention phase; the others stop (the audited one writes what it buffered).
      if (block === BLOCKS - 1) {
        on = roleOf.on;
        await stopRole(roleOf.off);
      } else {
        await stopRole(roleOf.on);
        await stopRole(roleOf.off);
      }
    }
    const audited = Number((await db('read_audit').count({ n: '*' }))[0].n);
    console.log(
      `\nread audit${AA ? ' (A/A check: the audit off in both roles)' : ''}: ${CONCURRENCY} concurrent, ${perBlock * BLOCKS} pairs of ${SLICE} s slices per call over ${BLOCKS} fresh pairs of roles,` +
        ` READ_AUDIT=${AA ? 'false' : 'true'} vs false (one database); ${audited} audit rows written`,
    );
    console.log(
      'call               | audit on req/s | audit off req/s | cost (all slices) | median pair cost | pair costs min / max | per block | CPU ms a call, on / off (role; PostgreSQL)',
    );
    for (const [name, r] of Object.entries(results)) {
      const total = (xs: Series[]) => xs.reduce((a, x) => a + x.n, 0);
      const sum = (xs: Series[], f: (x: Series) => number) => xs.reduce((a, x) => a + f(x), 0);
      const cost = 1 - total(r.on) / total(r.off);
      const pairs = r.on.map((x, i) => 1 - x.perSecond / r.off[i].perSecond).sort((a, b) => a - b);
      const median = pairs[Math.floor(pairs.length / 2)];
      const blocks = Array.from({ length: BLOCKS }, (_, b) =>
        pct(
          1 -
            total(r.on.slice(b * perBlock, (b + 1) * perBlock)) / total(r.off.slice(b * perBlock, (b + 1) * perBlock)),
        ),
      );
      const rate = (xs: Series[]) => (total(xs) / (xs.length * SLICE)).toFixed(0);
      const cpu = (xs: Series[]) =>
        `${(sum(xs, (x) => x.roleCpu) / total(xs)).toFixed(2)}; ${(sum(xs, (x) => x.pgCpu) / total(xs)).toFixed(2)}`;
      console.log(
        `${name.padEnd(18)} | ${rate(r.on).padStart(14)} | ${rate(r.off).padStart(15)} | ${pct(cost).padStart(17)} | ${pct(median).padStart(16)} | ${pct(pairs[0])} / ${pct(pairs[pairs.length - 1])}` +
          ` | ${blocks.join(', ')} | ${cpu(r.on)} / ${cpu(r.off)}: ${AA ? 'A/A, no target' : cost <= 0.05 ? 'PASS (≤ 5 %)' : 'FAIL (≤ 5 %)'}`,
      );
    }

    // Retention: keyword-list p95 without a deletion, then during one.
    const before = await load(keyword(on.port), forSeconds(SECONDS));
    await db('teams').where({ id: teamId }).update({ retention_days: 30 });
    let deleted = 0;
    let deleting = true;
    const started = Date.now();
    const deletion = (async () => {
      const now = new Date();
      for (;;) {
        const n = await deleteExpiredMeetings(db, now, BATCH);
        deleted += n;
        if (n < BATCH) break;
      }
      deleting = false;
    })();
    const during = await load(keyword(on.port), () => !deleting);
    await deletion;
    const seconds = (Date.now() - started) / 1000;
    const leftExpired = Number((await db('meetings').whereIn('id', expired.slice(0, 1000)).count({ n: '*' }))[0].n);
    const sentencesLeft = Number((await db('sentences').count({ n: '*' }))[0].n);
    console.log(
      `\nretention: ${deleted} meetings × ${SENTENCES} sentences deleted in ${seconds.toFixed(1)} s (batches of ${BATCH}): ${seconds <= 60 && deleted === EXPIRED && leftExpired === 0 ? 'PASS' : 'FAIL'} (all ${EXPIRED}, ≤ 60 s); ${sentencesLeft} sentences left (the ${KEPT} kept meetings')`,
    );
    console.log(
      `keyword list during the deletion: p50 ${during.p50.toFixed(1)} ms, p95 ${during.p95.toFixed(1)} ms, ${during.perSecond.toFixed(0)} req/s (${during.n} calls)`,
    );
    console.log(
      `keyword list just before it:     p50 ${before.p50.toFixed(1)} ms, p95 ${before.p95.toFixed(1)} ms, ${before.perSecond.toFixed(0)} req/s (${before.n} calls)`,
    );
  } finally {
    for (const r of roles) r.kill('SIGTERM');
    agent.destroy();
    await db.destroy();
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
