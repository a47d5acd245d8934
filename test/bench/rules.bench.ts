/**
 * Automation-rule benchmark: a team with R enabled rules (a realistic mix of title, participant,
 * keyword, meeting-type and duration conditions; share, move and privacy actions) run against M
 * one-hour synthetic meetings (~770 sentences each) in real PostgreSQL, first as a plain loop over
 * the core functions the activities call, then through RuleExecutionWorkflow on a real Temporal dev
 * server with an in-process worker.
 *
 *   npx tsx test/bench/rules.bench.ts                          # 200 meetings, 50 rules
 *   npx tsx test/bench/rules.bench.ts --meetings 40 --rules 20 # a quick run
 *
 * Options: --meetings M (default 200) · --rules R (default 50, at most 100: the per-team cap)
 *          --sentences S (per meeting, default 770) · --concurrency C (workflows in flight, default 16)
 *
 * Reports:
 *   - planRuleRun (every enabled rule evaluated against one meeting): p50/p95 ms, and ms per rule;
 *   - a keyword condition alone (one full-text query on a one-hour meeting): p50/p95 ms;
 *   - plan + execute the matching rules in a plain loop: ms per meeting (actions included);
 *   - RuleExecutionWorkflow one at a time, and C in flight: p50/p95 start→result, meetings per second;
 *   - orchestration overhead: serial workflow median ÷ plain-loop median.
 * The first half of the meetings is used by the plain loop, the second half by the workflows, so
 * every figure is of a first run (actions change something). PostgreSQL and Temporal come from the
 * environment (DATABASE_URL, TEMPORAL_ADDRESS) or are started locally as for the tests.
 */
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { newId } from '../../services/core/input';
import type { Principal } from '../../services/core/access';
import { keywordSaid } from '../../services/core/rules/conditions';
import { createRule, executeRule, planRuleRun } from '../../services/core/rules';
import { RULE_EXECUTION_WORKFLOW, ruleExecutionWorkflowId } from '../../workflows/contracts';
import type { RuleInput } from '../../services/core/rules';
import { syntheticMeetings } from '../support/synthetic';
import { loadConfig } from '../../services/platform/config';
import { createDb, migrateLatest, type Db } from '../../services/platform/db';
import { createTemporalClient } from '../../services/platform/temporal';
import { bundleWorkflows, connectWorker, createWorker } from '../../services/worker/worker';
import { provisionPostgres, provisionTemporal } from '../support/stack';
import { option } from './options';

const MEETINGS = option('meetings', 200);
const RULES = Math.min(option('rules', 50), 100);
const SENTENCES = option('sentences', 770);
const CONCURRENCY = option('concurrency', 16);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const now = () => Number(process.hrtime.bigint()) / 1e6;

const USERS = Array.from({ length: 12 }, (_, i) => ({ name: `Person ${i}`, email: `person${i}@bench.example` }));
const KEYWORDS = [
  'invoice export',
  '"pricing page"',
  'procurement',
  'credentials',
  'Postgres',
  'promotion packet',
  'kubernetes',
  'incident',
];
const TITLE_WORDS = ['planning', 'Interview', 'stand-up', 'Northwind', 'retro', 'Demo'];
const TYPES = ['standup', 'planning', 'sales', 'interview', 'one_on_one', 'retrospective', 'demo'];

/** Rule i of the mix: one or two conditions, one to three actions. */
function ruleFor(i: number, channels: string[]): RuleInput {
  const conditions: RuleInput['conditions'] = [];
  switch (i % 5) {
    case 0:
      conditions.push({ type: 'title_contains', text: TITLE_WORDS[i % TITLE_WORDS.length] });
      break;
    case 1:
      conditions.push({ type: 'keyword', text: KEYWORDS[i % KEYWORDS.length] });
      break;
    case 2:
      conditions.push(
        { type: 'meeting_type', meeting_type: TYPES[i % TYPES.length] },
        { type: 'min_duration', minutes: 30 },
      );
      break;
    case 3:
      conditions.push(
        { type: 'participant', email: USERS[i % USERS.length].email },
        { type: 'keyword', text: KEYWORDS[(i + 3) % KEYWORDS.length] },
      );
      break;
    default:
      conditions.push(
        { type: 'organizer', domain: 'bench.example' },
        { type: 'title_contains', text: TITLE_WORDS[(i + 2) % TITLE_WORDS.length] },
      );
  }
  const actions: RuleInput['actions'] = [{ type: 'share', emails: [`reviewer${i}@partner.example`], expiry_days: 14 }];
  if (i % 2 === 0) actions.push({ type: 'move', channel_id: channels[i % channels.length] });
  if (i % 3 === 0) actions.push({ type: 'privacy', privacy: 'teammates' });
  return { name: `Bench rule ${i}`, conditions, actions };
}

async function seed(db: Db): Promise<{ principal: Principal; meetings: string[] }> {
  const teamId = newId();
  await db('teams').insert({ id: teamId, name: 'Bench', tier: 'enterprise' });
  const adminId = newId();
  await db('users').insert({
    id: adminId,
    team_id: teamId,
    email: 'admin@bench.example',
    name: 'Bench Admin',
    role: 'admin',
  });
  const userIds = new Map<string, string>();
  for (const u of USERS) {
    const id = newId();
    userIds.set(u.email, id);
    await db('users').insert({ id, team_id: teamId, email: u.email, name: u.name, role: 'member' });
  }
  const principal: Principal = {
    userId: adminId,
    teamId,
    email: 'admin@bench.example',
    name: 'Bench Admin',
    role: 'admin',
    tier: 'enterprise',
    flags: [],
  };
  const channels: string[] = [];
  for (let i = 0; i < 5; i++) {
    const id = newId();
    await db('channels').insert({ id, team_id: teamId, title: `Channel ${i}` });
    channels.push(id);
  }
  for (let i = 0; i < RULES; i++) await createRule(db, principal, ruleFor(i, channels));

  const meetings: string[] = [];
  const started = Date.now();
  for (const m of syntheticMeetings({ count: MEETINGS, sentencesPerMeeting: SENTENCES, seed: 7, users: USERS })) {
    const id = newId();
    await db.transaction(async (trx) => {
      await trx('meetings').insert({
        id,
        team_id: teamId,
        organizer_id: userIds.get(m.organizer_email) ?? null,
        organizer_email: m.organizer_email,
        title: m.title,
        date: new Date(m.date),
        duration_seconds: m.duration_seconds,
        status: 'completed',
        meeting_type: m.meeting_type,
      });
      await trx('meeting_participants')
        .insert(m.participants.map((p) => ({ meeting_id: id, email: p.email.toLowerCase(), name: p.name })))
        .onConflict(['meeting_id', 'email'])
        .ignore();
      await trx('summaries').insert({ meeting_id: id, meeting_type: m.meeting_type });
      for (let k = 0; k < m.sentences.length; k += 2000) {
        await trx('sentences').insert(
          m.sentences.slice(k, k + 2000).map((s) => ({
            meeting_id: id,
            idx: s.index,
            speaker_name: s.speaker_name,
            speaker_id: s.speaker_id,
            text: s.text,
            raw_text: s.raw_text,
            start_time: s.start_time,
            end_time: s.end_time,
          })),
        );
      }
    });
    meetings.push(id);
  }
  await db.raw('vacuum analyze');
  log(
    `seeded ${MEETINGS} meetings × ${SENTENCES} sentences and ${RULES} rules in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { principal, meetings };
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const [pg, temporalServer] = await Promise.all([provisionPostgres(), provisionTemporal()]);
  const dbName = `mi_bench_rules_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  await admin.destroy();
  const u = new URL(pg.url);
  u.pathname = `/${dbName}`;
  const taskQueue = `bench-rules-${randomBytes(3).toString('hex')}`;
  const config = loadConfig(
    {
      DATABASE_URL: u.toString(),
      DATABASE_POOL_MAX: '20',
      TEMPORAL_ADDRESS: temporalServer.url,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
    'worker',
  );
  const db = createDb({ url: u.toString(), poolMax: 20 });
  try {
    await migrateLatest(db);
    const { meetings } = await seed(db);
    const loopSet = meetings.slice(0, Math.ceil(meetings.length / 2));
    const flowSet = meetings.slice(loopSet.length);

    // 1. Evaluation alone, and one keyword query alone.
    const plan: number[] = [];
    let matched = 0;
    for (const id of meetings) {
      const t0 = now();
      const p = await planRuleRun(db, id);
      plan.push(now() - t0);
      matched += p.matched.length;
    }
    const keyword: number[] = [];
    for (const id of meetings.slice(0, 100)) {
      const t0 = now();
      await keywordSaid(db, id, KEYWORDS[keyword.length % KEYWORDS.length]);
      keyword.push(now() - t0);
    }

    // 2. Plan and execute in a plain loop (what the activities do, without Temporal).
    const loop: number[] = [];
    let executions = 0;
    for (const id of loopSet) {
      const t0 = now();
      const p = await planRuleRun(db, id);
      for (const ruleId of p.matched) {
        await executeRule(db, { meetingId: id, ruleId, runKey: p.runKey });
        executions++;
      }
      loop.push(now() - t0);
    }

    // 3. Through RuleExecutionWorkflow: one at a time, then C in flight.
    const connection = await connectWorker(config);
    const worker = await createWorker(
      { db, config, connection },
      { taskQueue, workflowBundle: await bundleWorkflows(), tuning: { maxConcurrentActivityTaskExecutions: 32 } },
    );
    const running = worker.run();
    const { client, connection: clientConnection } = createTemporalClient(config);
    const runOne = async (id: string) => {
      const t0 = now();
      await client.workflow.execute(RULE_EXECUTION_WORKFLOW, {
        taskQueue,
        workflowId: ruleExecutionWorkflowId(id),
        args: [{ meetingId: id }],
      });
      return now() - t0;
    };
    const serialCount = Math.min(20, Math.floor(flowSet.length / 4));
    await runOne(flowSet[0]); // warm-up: the first workflow task loads the bundle
    const serial: number[] = [];
    for (const id of flowSet.slice(1, 1 + serialCount)) serial.push(await runOne(id));
    const concurrentSet = flowSet.slice(1 + serialCount);
    const concurrent: number[] = [];
    const t0 = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < concurrentSet.length) concurrent.push(await runOne(concurrentSet[next++]));
      }),
    );
    const span = (now() - t0) / 1000;
    worker.shutdown();
    await running;
    await connection.close();
    await clientConnection.close();
    const logged = Number((await db('rule_executions').count({ n: '*' }))[0].n);

    const median = (xs: number[]) => pct(xs, 50);
    console.log(
      `\nAutomation rules: ${MEETINGS} meetings × ${SENTENCES} sentences, ${RULES} enabled rules; ${(matched / meetings.length).toFixed(1)} rules match a meeting on average\n`,
    );
    console.log('| measure | p50 | p95 | other |');
    console.log('|---|---|---|---|');
    console.log(
      `| planRuleRun (${RULES} rules evaluated) | ${ms(median(plan))} | ${ms(pct(plan, 95))} | ${(median(plan) / RULES).toFixed(2)} ms per rule |`,
    );
    console.log(
      `| one keyword condition (full-text, one meeting) | ${ms(median(keyword))} | ${ms(pct(keyword, 95))} | ${keyword.length} samples |`,
    );
    console.log(
      `| plain loop: plan + execute matches | ${ms(median(loop))} | ${ms(pct(loop, 95))} | ${executions} executions over ${loopSet.length} meetings |`,
    );
    console.log(
      `| RuleExecutionWorkflow, one at a time | ${ms(median(serial))} | ${ms(pct(serial, 95))} | overhead ×${(median(serial) / median(loop)).toFixed(2)} of the plain loop |`,
    );
    console.log(
      `| RuleExecutionWorkflow, ${CONCURRENCY} in flight | ${ms(median(concurrent))} | ${ms(pct(concurrent, 95))} | ${(concurrent.length / span).toFixed(1)} meetings/s |`,
    );
    console.log(`\nrule_executions rows: ${logged}\n`);
  } finally {
    await db.destroy();
    const a = knexFactory({ client: 'pg', connection: pg.url, pool: { min: 0, max: 1 } });
    await a.raw(`drop database if exists ${dbName} with (force)`);
    await a.destroy();
    await Promise.all([pg.stop(), temporalServer.stop()]);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
