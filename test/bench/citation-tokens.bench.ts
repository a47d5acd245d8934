/**
 * Tokens an assistant spends to answer a question with a citation, with and without matching moments.
 *
 * A scripted client follows the tool descriptions for five fixed questions ("what was said about
 * <word>?") on the MCP benchmark's data set (mcp.bench.ts seeds it; this script reuses the seeded
 * database and seeds nothing):
 *   - with moments: one svc_get_transcripts call with the keyword; the citation is the first moment
 *     of the first meeting ([title, mm:ss](link)).
 *   - without: the same svc_get_transcripts call with moments 0, then svc_get_transcript of the first
 *     meeting page by page from the start until a page holds a matching sentence (the earliest one:
 *     the least any reader without moments could read).
 * Both run twice: with limit 3 (what the descriptions suggest for answering a question) and with
 * the default limit 10; the target is judged on the first, the second is printed beside it.
 * Tokens (gpt-tokenizer, cl100k-style `encode`) are counted on what the model is shown: the JSON of
 * each answer's structuredContent (what Claude Code shows), and the TOON text beside it, plus each
 * call's arguments. The questions' words are chosen from the data set itself: the first five
 * lexemes (alphabetically) said in 20 to 60 of the first 200 meetings' sentences.
 *
 *   npx tsx test/bench/citation-tokens.bench.ts                 # the bench's 10,000 × 200 data set
 *   npx tsx test/bench/citation-tokens.bench.ts --meetings 50000
 *   npx tsx test/bench/citation-tokens.bench.ts --database-url postgres://…/postgres
 *
 * Target (the issue): at least 10 times fewer tokens with moments.
 */
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encode as tokens } from 'gpt-tokenizer';
import knexFactory from 'knex';
import { createApiKey } from '../../services/core/people';
import { startLocalPostgres } from '../../services/devstack/postgres';
import { freePort } from '../../services/devstack/ports';
import { createMcpApp } from '../../services/mcp/app';
import { createDb, migrateLatest } from '../../services/platform/db';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import { testConfig } from '../support/config';

interface Options {
  meetings: number;
  sentences: number;
  users: number;
  databaseUrl: string | undefined;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { meetings: 10_000, sentences: 200, users: 50, databaseUrl: process.env.DATABASE_URL };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--meetings') o.meetings = Number(argv[++i]);
    else if (a === '--sentences') o.sentences = Number(argv[++i]);
    else if (a === '--users') o.users = Number(argv[++i]);
    else if (a === '--database-url') o.databaseUrl = argv[++i];
    else throw new Error(`unknown option ${a}: --meetings N --sentences M --users U --database-url URL`);
  }
  return o;
}

interface Answer {
  structured: unknown;
  text: string;
}

const tok = (s: string) => tokens(s).length;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const pg = o.databaseUrl
    ? { url: o.databaseUrl, stop: () => {} }
    : startLocalPostgres({ dataDir: join(tmpdir(), 'mi-bench-pg'), port: await freePort(), durable: false });
  const name = `mi_bench_${o.meetings}x${o.sentences}x${o.users}`;
  const u = new URL(pg.url);
  u.pathname = `/${name}`;
  const probe = knexFactory({ client: 'pg', connection: u.toString(), pool: { min: 0, max: 1 } });
  const seeded = await probe
    .raw("select to_regclass('bench_info') is not null as ok")
    .then(async (r) => r.rows[0].ok && Boolean((await probe('bench_info').first())?.done))
    .catch(() => false);
  await probe.destroy();
  if (!seeded) {
    console.log(
      `citation tokens: no seeded ${name}; run npx tsx test/bench/mcp.bench.ts${o.meetings !== 10_000 ? ` --meetings ${o.meetings}` : ''} first (it seeds the data set). Skipped.`,
    );
    pg.stop();
    return;
  }

  const db = createDb({ url: u.toString(), poolMax: 4 });
  await migrateLatest(db);
  const member = await db('users').where({ role: 'member' }).orderBy('email').first();
  const { key } = await createApiKey(db, { email: member.email });
  const config = testConfig({ DATABASE_URL: u.toString(), RATE_LIMIT_PER_MINUTE: '100000000' }, 'mcp');
  const app = createMcpApp({ db, config }, []);
  const server: Server = await listen(app, 0, '127.0.0.1');
  const client = new Client({ name: 'citation-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl(server)}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );

  /** A call as the model pays for it: its arguments, and the answer's JSON (structuredContent) or its TOON text. */
  let spent = { json: 0, toon: 0, calls: 0 };
  const call = async (tool: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = (await client.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { text: string }[];
    };
    if (r.isError) throw new Error(`${tool}: ${r.content[0]?.text}`);
    const text = r.content.map((c) => c.text).join('\n');
    const argTokens = tok(JSON.stringify({ name: tool, arguments: args }));
    spent = {
      json: spent.json + argTokens + tok(JSON.stringify(r.structuredContent)),
      toon: spent.toon + argTokens + tok(text),
      calls: spent.calls + 1,
    };
    return { structured: r.structuredContent, text };
  };

  // Five words said in some meetings but not most: a question an assistant would search for.
  const words: string[] = (
    await db.raw(
      'select word from ts_stat($$select s.tsv from sentences s where s.meeting_id in (select id from meetings order by id limit 200)$$) where ndoc between 20 and 60 and length(word) > 4 order by word limit 5',
    )
  ).rows.map((r: { word: string }) => r.word);

  console.log(`Citation tokens on ${name} (${o.meetings} meetings × ${o.sentences} sentences), as ${member.email}`);
  let verdictRatio = NaN;
  for (const limit of [3, 10]) {
    console.log(
      `\nlimit ${limit}\n${'question'.padEnd(20)}with moments (calls, JSON / TOON tokens)   without (calls, JSON / TOON tokens)       ratio (JSON)`,
    );
    const totals = { with: { json: 0, toon: 0 }, without: { json: 0, toon: 0 } };
    for (const word of words) {
      spent = { json: 0, toon: 0, calls: 0 };
      const list = (await call('svc_get_transcripts', { keyword: word, limit })).structured as {
        meetings: { id: string; title: string }[];
        moments: { meeting_id: string; index: number; start_time: number; link: string }[];
      };
      const first = list.meetings[0];
      if (!list.moments.some((m) => m.meeting_id === first.id)) throw new Error(`no moment for ${word} in ${first.id}`);
      const withMoments = spent;

      spent = { json: 0, toon: 0, calls: 0 };
      const bare = (await call('svc_get_transcripts', { keyword: word, limit, moments: 0 })).structured as {
        meetings: { id: string }[];
      };
      const target = bare.meetings[0].id;
      const earliest = (
        await db.raw(
          "select min(idx)::int as i from sentences where meeting_id = ? and tsv @@ websearch_to_tsquery('english', ?)",
          [target, word],
        )
      ).rows[0].i as number;
      let fromIndex = 0;
      for (;;) {
        const page = (await call('svc_get_transcript', { transcriptId: target, fromIndex })).structured as {
          sentences: { index: number }[];
          has_more: boolean;
          next_index: number | null;
        };
        if (page.sentences.some((s) => s.index === earliest) || !page.has_more) break;
        fromIndex = page.next_index!;
      }
      const without = spent;
      totals.with.json += withMoments.json;
      totals.with.toon += withMoments.toon;
      totals.without.json += without.json;
      totals.without.toon += without.toon;
      console.log(
        `"${word}"`.padEnd(20) +
          `${withMoments.calls}, ${withMoments.json} / ${withMoments.toon}`.padEnd(43) +
          `${without.calls}, ${without.json} / ${without.toon} (sentence ${earliest})`.padEnd(42) +
          `${(without.json / withMoments.json).toFixed(1)}×`,
      );
    }
    const ratio = totals.without.json / totals.with.json;
    if (limit === 3) verdictRatio = ratio;
    console.log(
      `total: with moments ${totals.with.json} JSON / ${totals.with.toon} TOON tokens; without ${totals.without.json} / ${totals.without.toon}; ` +
        `${ratio.toFixed(1)}× fewer (JSON), ${(totals.without.toon / totals.with.toon).toFixed(1)}× (TOON)`,
    );
  }
  console.log(
    `\nTarget: at least 10× fewer tokens with moments (limit 3)   ${verdictRatio.toFixed(1)}×   ${verdictRatio >= 10 ? 'PASS' : 'FAIL'}`,
  );

  // The service's own read audit writes in the background: let it flush before the pool closes.
  await new Promise((r) => setTimeout(r, 1500));
  await client.close();
  await closeServers([server], 1000);
  await db.destroy();
  pg.stop();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
