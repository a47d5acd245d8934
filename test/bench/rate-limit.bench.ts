/**
 * The shared rate limit's cost: svc_get_user throughput with the limit on against off.
 *
 *   npx tsx test/bench/rate-limit.bench.ts                 # 16 concurrent, 7 keys, 24 pairs of 1 s slices
 *   npx tsx test/bench/rate-limit.bench.ts --keys 1        # every call on one key: its count's row is the hot spot
 *   npx tsx test/bench/rate-limit.bench.ts --aa            # both roles with the limit off: the bench's own noise
 *
 * Target (issue 43, "Integrations that keep up"): throughput with the limit on ≥ 0.9 × off. Two mcp
 * roles on one database, RATE_LIMIT_PER_MINUTE=1000000000 (on: every call counted in
 * rate_limit_counts, never refused) and 0 (off: the key looked up as before, nothing counted),
 * measured in `--pairs` pairs of `--slice`-second slices alternating between them, the order swapped
 * every pair, spread over `--blocks` fresh pairs of role processes (the one started first
 * alternating), as governance.bench.ts does: the baseline (off) is from the same run, slice by slice.
 * Data: one team, `--keys` members with a key each and 20 meetings each (svc_get_user counts them).
 * PostgreSQL: DATABASE_URL, else a throwaway local cluster.
 */
import http from 'node:http';
import type { Knex } from 'knex';
import { createApiKey } from '../../services/core/people';
import { newId } from '../../services/core/input';
import { migrationSource } from '../../services/platform/migrations';
import {
  benchDatabase,
  forSeconds,
  localPostmaster,
  load,
  option,
  pct,
  post,
  type Role,
  type Series,
  startRole,
  stopRole,
} from './mcp-roles';

const KEYS = option('keys', 7);
const CONCURRENCY = option('concurrency', 16);
const PAIRS = option('pairs', 24);
const SLICE = option('slice', 1);
const BLOCKS = option('blocks', 4);
const AA = process.argv.includes('--aa');

async function seed(db: Knex): Promise<string[]> {
  await db.migrate.latest({ migrationSource });
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise', feature_flags: [] });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const id = newId();
    const email = `user${i}@bench.example`;
    await db('users').insert({ id, team_id: teamId, email, name: `User ${i}`, role: 'member' });
    keys.push((await createApiKey(db, { email })).key);
    const meetings = Array.from({ length: 20 }, (_, j) => ({
      id: newId(),
      team_id: teamId,
      organizer_id: id,
      organizer_email: email,
      uploader_id: id,
      title: `Sync ${j}`,
      date: new Date(Date.now() - j * 86_400_000),
      duration_seconds: 600,
      privacy: 'teammatesandparticipants',
      status: 'completed',
    }));
    await db('meetings').insert(meetings);
    await db('meeting_participants').insert(meetings.map((m) => ({ meeting_id: m.id, email, name: null })));
  }
  await db.raw('vacuum analyze');
  return keys;
}

async function main(): Promise<void> {
  const { pg, db, url } = await benchDatabase('rate_limit', 2);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const roles: Role[] = [];
  try {
    const keys = await seed(db);
    const postmaster = await localPostmaster(db);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'svc_get_user', arguments: {} },
    });
    const getUser = (port: number) => (i: number) => post(agent, port, keys[i % keys.length], body);
    const env = { on: AA ? '0' : '1000000000', off: '0' };

    const results: { on: Series[]; off: Series[] } = { on: [], off: [] };
    const perBlock = Math.ceil(PAIRS / BLOCKS);
    for (let block = 0; block < BLOCKS; block++) {
      const started: Partial<Record<'on' | 'off', Role>> = {};
      for (const which of block % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        started[which] = await startRole(url, { RATE_LIMIT_PER_MINUTE: env[which], READ_AUDIT: 'false' });
        roles.push(started[which]!);
      }
      const roleOf = { on: started.on!, off: started.off! };
      // The on role answers with the headers, the off one without: each runs what it says.
      const probe = await getUser(roleOf.on.port)(0);
      if (!AA && probe.headers['ratelimit-limit'] !== env.on) throw new Error('the on role sent no RateLimit headers');
      if ((await getUser(roleOf.off.port)(0)).headers['ratelimit-limit'] !== undefined)
        throw new Error('the off role counted');
      for (const role of [roleOf.on, roleOf.off]) await load(CONCURRENCY, getUser(role.port), forSeconds(2));
      for (let pair = 0; pair < perBlock; pair++) {
        const order: ('on' | 'off')[] = pair % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
        for (const which of order)
          results[which].push(
            await load(
              CONCURRENCY,
              getUser(roleOf[which].port),
              forSeconds(SLICE),
              roleOf[which].child.pid,
              postmaster,
            ),
          );
      }
      await stopRole(roleOf.on);
      await stopRole(roleOf.off);
    }

    const counted = await db('rate_limit_counts').count({ n: '*' });
    const total = (xs: Series[]) => xs.reduce((a, x) => a + x.n, 0);
    const sum = (xs: Series[], f: (x: Series) => number) => xs.reduce((a, x) => a + f(x), 0);
    const ratio = total(results.on) / total(results.off);
    const pairs = results.on.map((x, i) => x.perSecond / results.off[i].perSecond).sort((a, b) => a - b);
    const blocks = Array.from({ length: BLOCKS }, (_, b) => {
      const slice = (xs: Series[]) => xs.slice(b * perBlock, (b + 1) * perBlock);
      return (total(slice(results.on)) / total(slice(results.off))).toFixed(3);
    });
    const rate = (xs: Series[]) => (total(xs) / (xs.length * SLICE)).toFixed(0);
    const cpu = (xs: Series[]) =>
      `${(sum(xs, (x) => x.roleCpu) / total(xs)).toFixed(3)}; ${(sum(xs, (x) => x.pgCpu) / total(xs)).toFixed(3)}`;
    const p95 = (xs: Series[]) => (sum(xs, (x) => x.p95) / xs.length).toFixed(1);
    console.log(
      `\nsvc_get_user, ${CONCURRENCY} concurrent over ${KEYS} key(s), ${perBlock * BLOCKS} pairs of ${SLICE} s slices over ${BLOCKS} fresh pairs of roles` +
        `${AA ? ' (A/A check: the limit off in both roles)' : ''}; ${counted[0].n} credentials counted`,
    );
    console.log(
      `limit on req/s | limit off req/s (baseline) | on ÷ off (all slices) | median pair | min / max pair | per block | mean p95 ms on / off | CPU ms a call on / off (role; PostgreSQL${postmaster ? ', this cluster' : ', every cluster on the machine'})`,
    );
    console.log(
      `${rate(results.on).padStart(14)} | ${rate(results.off).padStart(26)} | ${ratio.toFixed(3).padStart(21)} | ${pairs[Math.floor(pairs.length / 2)].toFixed(3).padStart(11)} | ` +
        `${pairs[0].toFixed(3)} / ${pairs[pairs.length - 1].toFixed(3)} | ${blocks.join(', ')} | ${p95(results.on)} / ${p95(results.off)} | ${cpu(results.on)} / ${cpu(results.off)}: ` +
        `${AA ? 'A/A, no target' : ratio >= 0.9 ? 'PASS (≥ 0.9×)' : 'FAIL (≥ 0.9×)'} (cost ${pct(1 - ratio)})`,
    );
  } finally {
    for (const r of roles) r.child.kill('SIGTERM');
    agent.destroy();
    await db.destroy();
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
