/**
 * Action items benchmark: svc_get_action_items at 16 concurrent calls over 10,000 meetings with their
 * items, beside svc_get_transcripts without a keyword in the same run, on the same mcp role (from its
 * build, in a process of its own) and the same database. The list of meetings is the bar: the items'
 * p95 must be at most the list's, and their throughput at least the list's. The phases alternate
 * (list, items, list, items) so a machine that gets busier during the run weighs on both alike.
 *
 *   npx tsx test/bench/action-items.bench.ts                  # 10,000 meetings × 20 sentences, 3 items each
 *   npx tsx test/bench/action-items.bench.ts --meetings 1000 --seconds 5
 *
 * The meetings are mcp.bench.ts's data set (its seeding, its database); a no-keyword list never
 * reads sentences, so fewer sentences a meeting than mcp.bench.ts's default keep the seeding short
 * without changing what either tool reads. See test/bench/README.md.
 */
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
      case '--keep-postgres':
        o.keepPostgres = true;
        break;
      default:
        throw new Error(
          `unknown option ${a}; options: --meetings N --sentences M --users U --concurrency C --seconds S --rounds R --database-url URL --reseed --keep-postgres`,
        );
    }
  }
  return o;
}

/**
 * Three items a meeting, owned by its participants in turn, a third of them done, due four days after
 * the meeting: the shape the summarizer leaves (one statement, made once per data set).
 */
const SEED_ITEMS = `
  insert into action_items (id, team_id, meeting_id, meeting_date, item_key, text, sentence_index, start_time, speaker_name, owner_name, owner_email, due_phrase, due_date, status)
  select m.id || '-' || g.n, m.team_id, m.id, m.date, 'item ' || g.n,
         p.name || ' will follow up on point ' || (g.n + 1) || ' of ' || m.title || ' by Friday.', g.n * 7, g.n * 30.5, p.name, p.name, p.email,
         'Friday', (m.date + interval '4 days')::date, case when (abs(hashtext(m.id)) + g.n) % 3 = 0 then 'done' else 'open' end
  from meetings m cross join generate_series(0, 2) g(n)
  cross join lateral (select mp.email, mp.name from meeting_participants mp where mp.meeting_id = m.id order by mp.email offset g.n % 2 limit 1) p
  on conflict do nothing`;

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `Action items benchmark: ${o.meetings} meetings × ${o.sentences} sentences, ${o.users} users, ${o.concurrency} concurrent calls, ${o.seconds} s a phase, ${o.rounds} rounds`,
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
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db);
  if (!(await db('action_items').first('id'))) {
    const t0 = Date.now();
    await db.raw(SEED_ITEMS);
    await db.raw('analyze action_items');
    console.log(`  action items seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const [{ n: items }] = await db('action_items').count({ n: '*' });
  const [{ n: meetings }] = await db('meetings').count({ n: '*' });
  console.log(`  ${meetings} meetings, ${items} action items`);
  const team = await db('teams').first();
  await db('api_keys').del();
  const members = await db('users').where({ team_id: team.id, role: 'member' }).orderBy('email').limit(o.concurrency);
  const keys = await Promise.all(members.map(async (u) => (await createApiKey(db, { email: u.email })).key));
  await db.destroy();

  buildRole();
  const server = await startMcpRole(url);
  const calls = (name: string, argsOf: (i: number) => Record<string, unknown>): DriverSpec['calls'] =>
    Array.from({ length: keys.length * 3 }, (_, i) => ({ key: keys[i % keys.length], name, args: argsOf(i) }));
  // The list as an assistant opens it (no keyword); the items as it asks for them: everything, what is open, what is open for me.
  const ITEM_ARGS = [{}, { status: 'open' }, { mine: true, status: 'open' }];
  const phases: Record<'list' | 'items', DriverSpec> = {
    list: {
      urls: [server.url],
      calls: calls('svc_get_transcripts', () => ({})),
      concurrency: o.concurrency,
      seconds: o.seconds,
    },
    items: {
      urls: [server.url],
      calls: calls('svc_get_action_items', (i) => ITEM_ARGS[Math.floor(i / keys.length) % ITEM_ARGS.length]),
      concurrency: o.concurrency,
      seconds: o.seconds,
    },
  };
  const results: Record<'list' | 'items', Stats[]> = { list: [], items: [] };
  console.log(
    `\n${'phase'.padEnd(44)}  ${'calls/s'.padStart(8)}  ${'p50'.padStart(10)}  ${'p95'.padStart(10)}  ${'p99'.padStart(10)}  errors     RSS  CPU ms/call mcp / pg / driver`,
  );
  try {
    for (let r = 0; r < o.rounds; r++) {
      for (const k of ['list', 'items'] as const) {
        const s = await driveRemote(phases[k], [server]);
        results[k].push(s);
        console.log(
          row(`${k === 'list' ? 'svc_get_transcripts (no keyword)' : 'svc_get_action_items'} round ${r + 1}`, s),
        );
        if (s.errors) console.log(`    first error: ${s.firstError}`);
      }
    }
  } finally {
    await server.stop();
  }
  const p95 = { list: avg(results.list.map((s) => s.p95)), items: avg(results.items.map((s) => s.p95)) };
  const rate = { list: avg(results.list.map((s) => s.perSecond)), items: avg(results.items.map((s) => s.perSecond)) };
  const errors = [...results.list, ...results.items].reduce((a, s) => a + s.errors, 0);
  console.log(
    `\nsvc_get_action_items p95 ${p95.items.toFixed(1)} ms ≤ list's ${p95.list.toFixed(1)} ms: ${p95.items <= p95.list ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `svc_get_action_items ${rate.items.toFixed(0)}/s ≥ list's ${rate.list.toFixed(0)}/s: ${rate.items >= rate.list ? 'PASS' : 'FAIL'}`,
  );
  console.log(`errors: ${errors}`);
  if (errors || p95.items > p95.list || rate.items < rate.list) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
