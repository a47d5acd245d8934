/**
 * Changes benchmark: a page of 100 of svc_get_changes at 16 concurrent calls over 10,000 meetings
 * with 100,000 changes in the log, beside svc_get_transcripts without a keyword (an unfiltered list
 * page) in the same run, on the same mcp role (from its build, in a process of its own) and the same
 * database. The list is the bar: the changes page's p95 must be at most the list's (1x). The phases
 * alternate (list, changes, list, changes) so a machine that gets busier weighs on both alike.
 *
 *   npx tsx test/bench/changes.bench.ts                  # 10,000 meetings x 20 sentences, 100,000 changes
 *   npx tsx test/bench/changes.bench.ts --meetings 1000 --seconds 5
 *   npx tsx test/bench/changes.bench.ts --list-limit 50  # the list's largest page beside it (not the target's bar)
 *   npx tsx test/bench/changes.bench.ts --baseline ../base   # another checkout's built role: before and after in one run
 *   BENCH_SERVER_PROF=<dir> npx tsx test/bench/changes.bench.ts   # V8 CPU profiles of the roles (mcp.cpuprofile, mcp-baseline.cpuprofile)
 *
 * The meetings are mcp.bench.ts's data set (its seeding, its database). The callers are members, whose
 * visibility rule is the dearer one; each call starts at one of many cursors spread over the log, so
 * pages are read from everywhere in it, not from one cached place. See test/bench/README.md.
 */
import { encodeCursor } from '../../services/core/changes/cursor';
import { createApiKey } from '../../services/core/people';
import { createDb, migrateLatest } from '../../services/platform/db';
import {
  buildRole,
  createDatabase,
  dbName,
  driveRemote,
  isSeeded,
  provisionDatabase,
  row,
  seedInChild,
  startMcpRole,
  withDatabase,
  type DriverSpec,
  type Stats,
} from './mcp.bench';

interface Options {
  meetings: number;
  sentences: number;
  users: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  databaseUrl?: string;
  reseed: boolean;
  keepPostgres: boolean;
  /** Changes a page (the target is set at 100). */
  limit: number;
  /** The list's page (the target's is its default page); a larger one compares records at a like size. */
  listLimit?: number;
  /** Another checkout whose built mcp role answers the changes a third phase of each round (before and after in one run). */
  baseline?: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    meetings: 10_000,
    sentences: 20,
    users: 50,
    concurrency: 16,
    seconds: 10,
    rounds: 2,
    databaseUrl: process.env.DATABASE_URL,
    reseed: false,
    keepPostgres: false,
    limit: 100,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return Math.floor(v);
    };
    switch (a) {
      case '--meetings':
        o.meetings = num();
        break;
      case '--sentences':
        o.sentences = num();
        break;
      case '--users':
        o.users = Math.max(2, num());
        break;
      case '--concurrency':
        o.concurrency = num();
        break;
      case '--seconds':
        o.seconds = num();
        break;
      case '--rounds':
        o.rounds = num();
        break;
      case '--database-url':
        o.databaseUrl = argv[++i];
        break;
      case '--reseed':
        o.reseed = true;
        break;
      case '--limit':
        o.limit = num();
        break;
      case '--list-limit':
        o.listLimit = num();
        break;
      case '--baseline':
        o.baseline = argv[++i];
        break;
      case '--keep-postgres':
        o.keepPostgres = true;
        break;
      default:
        throw new Error(
          `unknown option ${a}; options: --meetings N --sentences M --users U --concurrency C --seconds S --rounds R --database-url URL --reseed --keep-postgres --limit L --list-limit L --baseline CHECKOUT`,
        );
    }
  }
  return o;
}

/** Changes a meeting in the log, beside those its seeding wrote. */
const CHANGES_PER_MEETING = 10;
const KINDS = ['title', 'transcript', 'speakers', 'summary', 'action_items', 'sharing', 'channel', 'status'];

/**
 * The log as months of edits leave it: CHANGES_PER_MEETING rows a meeting, each of a transaction of
 * its own, transactions interleaved across meetings (xids below the current one, so every row is
 * below the horizon, as in a log whose writers have finished). One statement, made once per data set.
 */
const SEED_CHANGES = (perMeeting: number) => `
  with m as (select id, team_id, row_number() over (order by id) - 1 as i, count(*) over () as n from meetings),
       top as (select pg_snapshot_xmin(pg_current_snapshot())::text::numeric - 10 as x)
  insert into meeting_changes (team_id, xid, meeting_id, kinds, at)
  select m.team_id, (3 + floor((k * m.n + m.i) * (top.x - 3) / (m.n * ${perMeeting})))::text::xid8, m.id,
         array[(array[${KINDS.map((k) => `'${k}'`).join(',')}])[1 + (m.i + k) % ${KINDS.length}]], now()
  from m cross join top cross join generate_series(0, ${perMeeting - 1}) k
  on conflict do nothing`;

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `Changes benchmark: ${o.meetings} meetings × ${o.sentences} sentences, ${o.users} users, ${o.concurrency} concurrent calls, ${o.seconds} s a phase, ${o.rounds} rounds`,
  );
  const pg = await provisionDatabase(o);
  const name = `${dbName(o)}_changes`;
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
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db);
  const count = async () => Number((await db('meeting_changes').count({ n: '*' }))[0].n);
  if ((await count()) < o.meetings * CHANGES_PER_MEETING) {
    const t0 = Date.now();
    // xids must exist below the horizon: a fresh database may have used fewer than the rows need apart.
    await db.raw(SEED_CHANGES(CHANGES_PER_MEETING));
    await db.raw('analyze meeting_changes');
    console.log(`  changes seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const changes = await count();
  const [{ n: meetings }] = await db('meetings').count({ n: '*' });
  console.log(`  ${meetings} meetings, ${changes} changes in the log`);
  const team = await db('teams').first();
  await db('api_keys').del();
  const members = await db('users').where({ team_id: team.id, role: 'member' }).orderBy('email').limit(o.concurrency);
  const keys = await Promise.all(members.map(async (u) => (await createApiKey(db, { email: u.email })).key));
  // Cursors spread over the log: the position before every (changes / 200)th row.
  const { rows: starts } = await db.raw(
    `select xid::text as xid, meeting_id from (select xid, meeting_id, row_number() over (order by xid, meeting_id) as r
       from meeting_changes where team_id = ?) c where r % 200 = 1 order by r`,
    [team.id],
  );
  await db.destroy();
  const issued = Math.floor(Date.now() / 1000);
  const cursors: string[] = starts.map((s: { xid: string; meeting_id: string }) =>
    encodeCursor({ phase: 'changes', after: '', xid: s.xid, meeting: s.meeting_id, issued }),
  );

  buildRole();
  const server = await startMcpRole(url);
  // A checkout built beforehand (npm run build there): its role, on the same database, for the baseline phase.
  const base = o.baseline ? await startMcpRole(url, o.baseline) : null;
  const callsOf = (name: string, argsOf: (i: number) => Record<string, unknown>): DriverSpec['calls'] =>
    Array.from({ length: Math.max(keys.length * 3, cursors.length) }, (_, i) => ({
      key: keys[i % keys.length],
      name,
      args: argsOf(i),
    }));
  const changesCalls = callsOf('svc_get_changes', (i) => ({
    limit: o.limit,
    cursor: cursors[(i * 7) % cursors.length],
  }));
  type Phase = 'list' | 'changes' | 'baseline';
  const phases: Record<Phase, DriverSpec & { label: string; server: typeof server | null }> = {
    list: {
      label: `svc_get_transcripts (${o.listLimit ? `limit ${o.listLimit}` : 'no keyword'})`,
      server,
      urls: [server.url],
      calls: callsOf('svc_get_transcripts', () => (o.listLimit ? { limit: o.listLimit } : {})),
      concurrency: o.concurrency,
      seconds: o.seconds,
    },
    changes: {
      label: `svc_get_changes (limit ${o.limit})`,
      server,
      urls: [server.url],
      calls: changesCalls,
      concurrency: o.concurrency,
      seconds: o.seconds,
    },
    baseline: {
      label: `svc_get_changes (limit ${o.limit}), baseline`,
      server: base,
      urls: base ? [base.url] : [],
      calls: changesCalls,
      concurrency: o.concurrency,
      seconds: o.seconds,
    },
  };
  const order: Phase[] = base ? ['list', 'changes', 'baseline'] : ['list', 'changes'];
  const results: Record<Phase, Stats[]> = { list: [], changes: [], baseline: [] };
  console.log(
    `\n${'phase'.padEnd(44)}  ${'calls/s'.padStart(8)}  ${'p50'.padStart(10)}  ${'p95'.padStart(10)}  ${'p99'.padStart(10)}  errors     RSS  CPU ms/call mcp / pg / driver`,
  );
  try {
    // One unmeasured pass of each: the role's first calls of a tool pay for compiling its path.
    for (const k of order) await driveRemote({ ...phases[k], seconds: 3 }, [phases[k].server!]);
    for (let r = 0; r < o.rounds; r++) {
      for (const k of order) {
        const s = await driveRemote(phases[k], [phases[k].server!]);
        results[k].push(s);
        console.log(row(`${phases[k].label} round ${r + 1}`, s));
        if (s.errors) console.log(`    first error: ${s.firstError}`);
      }
    }
  } finally {
    await server.stop();
    await base?.stop();
  }
  const p95 = (k: Phase) => avg(results[k].map((s) => s.p95));
  // The role's CPU a call: steadier than the p95s on a shared machine (the PostgreSQL column counts every cluster's backends).
  const mcpCpu = (k: Phase) => avg(results[k].map((s) => s.serverCpu ?? NaN));
  const errors = order.reduce((a, k) => a + results[k].reduce((b, s) => b + s.errors, 0), 0);
  const ratio = p95('changes') / p95('list');
  console.log(
    `\nsvc_get_changes p95 ${p95('changes').toFixed(1)} ms against the list's ${p95('list').toFixed(1)} ms: ${ratio.toFixed(2)}x (target at most 1x): ${ratio <= 1 ? 'PASS' : 'FAIL'}`,
  );
  if (base)
    console.log(
      `baseline's svc_get_changes p95 ${p95('baseline').toFixed(1)} ms: ${(p95('baseline') / p95('list')).toFixed(2)}x the list's`,
    );
  console.log(
    `mcp CPU a call: svc_get_changes ${mcpCpu('changes').toFixed(2)} ms, the list's ${mcpCpu('list').toFixed(2)} ms (${(mcpCpu('changes') / mcpCpu('list')).toFixed(2)}x)${base ? `, the baseline's ${mcpCpu('baseline').toFixed(2)} ms` : ''}`,
  );
  console.log(`errors: ${errors}`);
  if (errors || ratio > 1) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
