/**
 * A question never answers with what the caller may not read: the sentences that answer it best sit
 * in another team's meeting, a private meeting, a meeting whose share was revoked or has expired, and
 * a deleted meeting; none of their moments, titles or counts reach the caller, through MCP or GraphQL.
 * Without pgvector (or without a model) a question is answered by its words, and the answer says so.
 */
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { testEmbedder } from '../../support/embedder';
import { embedMeeting, ensureModelIndex, vectorLiteral } from '../../../services/core/passages';
import { deleteMeeting } from '../../../services/core/meetings';
import { resolveFilters } from '../../../services/core/meetings/filters';
import { listedAndVisible } from '../../../services/core/meetings/list-sql';
import { nearestPassagesSql } from '../../../services/core/meetings/question-sql';
import { createDb } from '../../../services/platform/db';
import type { Embedder } from '../../../services/intelligence/embeddings';

let t: TestDatabase;
let mcp: McpHarness;
let gql: GraphqlHarness;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let embedder: Embedder;
const ids: Record<string, string> = {};

const QUESTION = 'When is the new office supposed to open its doors?';
const said = (text: string) => [
  { speaker: 'Ana', text: 'Good morning everyone.', start: 0, end: 2 },
  { speaker: 'Bo', text, start: 2.5, end: 6 },
  { speaker: 'Ana', text: 'Thanks, that is all for today.', start: 6.5, end: 8 },
];

beforeAll(async () => {
  t = await createTestDatabase();
  embedder = await testEmbedder();
  const team = await makeTeam(t.db);
  const other = await makeTeam(t.db);
  owner = await makeUser(t.db, team, { role: 'member' });
  member = await makeUser(t.db, team);
  outsider = await makeUser(t.db, other, { role: 'admin' });
  const meeting = async (name: string, by: TestUser, text: string, privacy?: string) => {
    ids[name] = (
      await makeMeeting(t.db, { organizer: by, title: `${name} meeting`, privacy, sentences: said(text) })
    ).id;
    expect(await embedMeeting(t.db, embedder, ids[name])).toBe('embedded');
  };
  await meeting('visible', owner, 'The Lisbon branch should be ready for staff sometime in spring.');
  await meeting('private', owner, 'The new office opens its doors on the first of March.', 'owner');
  await meeting('otherteam', outsider, 'Our new office will open its doors on the second of March.');
  await meeting('revoked', outsider, 'The new office is supposed to open its doors in March.');
  await meeting('expired', outsider, 'We expect the new office to open its doors on March third.');
  await meeting('deleted', owner, 'The new office will finally open its doors in early March.');
  await shareMeeting(t.db, ids.revoked, member.email, { revoked: true });
  await shareMeeting(t.db, ids.expired, member.email, { expiresAt: new Date(Date.now() - 60_000) });
  await deleteMeeting(t.db, owner.principal, ids.deleted);
  // Deleting a meeting forgets its vectors with it.
  expect(await t.db('passage_vectors').where('meeting_id', ids.deleted).count()).toEqual([{ count: '0' }]);
  expect(await t.db('meeting_embeddings').where('meeting_id', ids.deleted).count()).toEqual([{ count: '0' }]);
  mcp = await startMcp(t.db, {}, { embedder });
  gql = await startGraphql(t.db, {}, { embedder });
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await gql?.close();
  await t?.drop();
});

const hidden = () => [ids.private, ids.otherteam, ids.revoked, ids.expired, ids.deleted];

describe('a question answers only from meetings the caller may read', () => {
  it('through svc_get_transcripts and svc_search', async () => {
    for (const r of [
      await mcp.call(member.key, 'svc_get_transcripts', { question: QUESTION, limit: 20, format: 'json' }),
      await mcp.call(member.key, 'svc_search', { query: `question:"${QUESTION}" limit:20`, format: 'json' }),
    ]) {
      expect(r.isError).toBe(false);
      expect(r.data.answered_by).toBe('meaning');
      expect(r.data.moments.map((m: { meeting_id: string }) => m.meeting_id)).toEqual(
        expect.arrayContaining([ids.visible]),
      );
      expect(r.text).not.toMatch(/doors|private meeting|otherteam|revoked|expired|deleted meeting/);
      expect(r.data.meetings.map((m: { id: string }) => m.id)).toEqual([ids.visible]);
      expect(r.data.total).toBe(r.data.moments.length);
    }
  });

  it('through GraphQL transcripts(question:)', async () => {
    const r = await gql.request(
      member.key,
      `query($q: String) { transcripts(question: $q, limit: 20) { answered_by total meetings { id } moments { meeting_id title text } } }`,
      { q: QUESTION },
    );
    expect(r.body.errors).toBeUndefined();
    const list = r.body.data.transcripts;
    expect(list.answered_by).toBe('meaning');
    expect(list.meetings.map((m: { id: string }) => m.id)).toEqual([ids.visible]);
    for (const m of list.moments) expect(hidden()).not.toContain(m.meeting_id);
  });

  it('the owner of the private meeting gets its moment first', async () => {
    const r = await mcp.call(owner.key, 'svc_get_transcripts', { question: QUESTION, limit: 3, format: 'json' });
    expect(r.data.moments[0]).toMatchObject({ meeting_id: ids.private, index: 1 });
  });

  it('another team sees its own meeting, never this team’s', async () => {
    const r = await mcp.call(outsider.key, 'svc_get_transcripts', { question: QUESTION, limit: 20, format: 'json' });
    const seen = new Set(r.data.moments.map((m: { meeting_id: string }) => m.meeting_id));
    expect([...seen].sort()).toEqual([ids.otherteam, ids.revoked, ids.expired].sort());
  });
});

describe('the nearest passages through the HNSW index', () => {
  it('are read on past hidden ones with the settings the statement makes, and leave the connection as it was', async () => {
    const one = createDb({ url: t.url, poolMax: 1 });
    try {
      await ensureModelIndex(one, embedder.info);
      // The index, not a scan of these few rows; one candidate a search: without the iterative scan
      // the statement makes, a hidden passage first would leave nothing to answer with.
      await one.raw('set enable_seqscan = off');
      const vector = vectorLiteral(await embedder.embedQuery(QUESTION));
      const near = nearestPassagesSql(
        listedAndVisible(member.principal, resolveFilters({ question: QUESTION })),
        embedder.info.name,
        embedder.info.dims,
        vector,
        2,
        1,
      );
      const plan = (await one.raw(`explain ${near.sql}`, near.bindings)).rows.map(
        (r: Record<string, string>) => r['QUERY PLAN'],
      );
      expect(plan.join('\n')).toContain('passage_vectors_hnsw_');
      const rows = (await one.raw(near.sql, near.bindings)).rows as { meeting_id: string }[];
      expect(rows.map((r) => r.meeting_id)).toEqual([ids.visible, ids.visible]);
      const setting = async (name: string) => (await one.raw(`show ${name}`)).rows[0][name];
      expect([await setting('hnsw.ef_search'), await setting('hnsw.iterative_scan')]).toEqual(['40', 'off']);
    } finally {
      await one.destroy();
    }
  });
});

describe('filters narrow a question before it ranks', () => {
  const momentsFor = async (args: Record<string, unknown>) => {
    const r = await mcp.call(owner.key, 'svc_get_transcripts', {
      question: QUESTION,
      limit: 20,
      format: 'json',
      ...args,
    });
    expect(r.isError).toBe(false);
    return new Set(r.data.moments.map((m: { meeting_id: string }) => m.meeting_id));
  };

  it('dates: none from a day with no meeting; the meetings of the day', async () => {
    expect((await momentsFor({ fromDate: '2026-11-03' })).size).toBe(0);
    expect([...(await momentsFor({ fromDate: '2026-11-02', toDate: '2026-11-02' }))].sort()).toEqual(
      [ids.visible, ids.private].sort(),
    );
  });

  it('people and mine: only meetings they took part in', async () => {
    expect((await momentsFor({ participants: ['nobody@example.test'] })).size).toBe(0);
    expect([...(await momentsFor({ participants: [owner.email] }))].sort()).toEqual([ids.visible, ids.private].sort());
    expect((await momentsFor({ mine: true })).size).toBe(2);
  });
});

describe('the meetings page asks too', () => {
  it('answers in the Ask box with the moment, its link and the sentences around it, nothing hidden', async () => {
    const res = await mcp.page(member, `/meetings?ask=${encodeURIComponent(QUESTION)}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('The Lisbon branch should be ready for staff sometime in spring.');
    expect(page).toContain(`/meetings/${ids.visible}#t=2`);
    expect(page).toContain('Good morning everyone.');
    expect(page).not.toMatch(/opens its doors|open its doors (on|in)|March/);
    expect(page).toMatch(/<input id="ask" name="ask" type="search" value="When is the new office/);
  });

  it('says what is wrong with a question beside the box', async () => {
    const res = await mcp.page(member, `/meetings?ask=${'x'.repeat(501)}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('question must be at most 500 characters; got 501');
  });
});

describe('a question without meaning search', () => {
  it('without a model: answered by its words, and the answer says why', async () => {
    const plain = await startMcp(t.db);
    try {
      const r = await plain.call(owner.key, 'svc_get_transcripts', {
        question: 'when does the office open its doors',
        format: 'json',
      });
      expect(r.isError).toBe(false);
      expect(r.data.answered_by).toBe('words');
      expect(r.data.note).toMatch(/no embedding model.*EMBEDDING_MODEL_DIR/);
      expect(r.data.moments[0]).toMatchObject({ meeting_id: ids.private, index: 1 });
    } finally {
      await plain.close();
    }
  });

  it('without pgvector: answered by its words, saying the extension is missing', async () => {
    // A database of its own whose vector tables are gone, as on a server without the extension.
    const bare = await createTestDatabase();
    const plain = await startMcp(bare.db, {}, { embedder: await testEmbedder() });
    try {
      await bare.db.raw('drop table passage_vectors');
      const u = await makeUser(bare.db, await makeTeam(bare.db));
      await makeMeeting(bare.db, {
        organizer: u,
        sentences: said('The new office opens its doors on the first of March.'),
      });
      const r = await plain.call(u.key, 'svc_get_transcripts', {
        question: 'when does the office open its doors',
        format: 'json',
      });
      expect(r.isError).toBe(false);
      expect(r.data.answered_by).toBe('words');
      expect(r.data.note).toMatch(/lacks the pgvector extension/);
      expect(r.data.moments[0]).toMatchObject({ index: 1 });
    } finally {
      await plain.close();
      await bare.drop();
    }
  });

  it('a paraphrase shares no word: nothing answers by words', async () => {
    const plain = await startMcp(t.db);
    try {
      const r = await plain.call(member.key, 'svc_get_transcripts', {
        question: 'When will staff move into the Lisbon premises?',
        format: 'text',
      });
      expect(r.isError).toBe(false);
      expect(r.text).toMatch(/^Answered by the question's words only: this server has no embedding model/);
    } finally {
      await plain.close();
    }
  });
});

describe('bad questions are refused naming the field', () => {
  it.each([
    [{ question: 'x'.repeat(501) }, /question: at most 500 characters/],
    [{ question: '   ' }, /question must not be empty/],
    [{ question: 'budget?', keyword: 'budget' }, /keyword cannot be combined with question/],
    [{ question: 'budget?', sort: 'relevance' }, /sort cannot be combined with question/],
    [{ question: 'budget?', limit: 21 }, /limit must be a whole number from 1 to 20 with a question/],
    [
      { question: 'budget?', skip: 81, limit: 20 },
      /skip \+ limit at most 100 with a question|skip must be a whole number with skip \+ limit at most 100/,
    ],
  ])('%j', async (args, message) => {
    const r = await mcp.call(member.key, 'svc_get_transcripts', { ...args, format: 'json' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(message);
  });

  it('at the limits: 500 characters, limit 20, skip + limit 100', async () => {
    const q = `${'when does the office open? '.repeat(18)}${'x'.repeat(500 - 18 * 27)}`;
    expect(q).toHaveLength(500);
    for (const args of [
      { question: q },
      { question: 'office', limit: 20 },
      { question: 'office', skip: 80, limit: 20 },
    ]) {
      const r = await mcp.call(member.key, 'svc_get_transcripts', { ...args, format: 'json' });
      expect(r.isError).toBe(false);
    }
  });
});
