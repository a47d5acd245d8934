/**
 * Search an assistant can cite: matching moments in svc_get_transcripts and svc_search, the matches of
 * one meeting through svc_get_transcript with keyword, relevance order, the channel filter and totals,
 * through the SDK's MCP client over HTTP on a real PostgreSQL.
 */
import { countTokens } from 'gpt-tokenizer';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { newId } from '../../../services/core/input';
import { TOTAL_BOUND } from '../../../services/core/meetings';

let t: TestDatabase;
let mcp: McpHarness;

beforeAll(async () => {
  t = await createTestDatabase();
  mcp = await startMcp(t.db);
});
afterAll(async () => {
  await mcp.close();
  await t.drop();
});

async function team() {
  const tm = await makeTeam(t.db, { flags: ['search', 'fetch'] });
  return { tm, admin: await makeUser(t.db, tm, { role: 'admin' }), member: () => makeUser(t.db, tm) };
}

const lines = (...texts: string[]) =>
  texts.map((text, i) => ({ speaker: i % 2 ? 'Bo' : 'Ana', text, start: i * 10 + 0.5, end: i * 10 + 9 }));

interface Moment {
  meeting_id: string;
  index: number;
  speaker_name: string;
  start_time: number;
  text: string;
  link: string;
}

/** svc_get_transcripts (json) and svc_search with the same filters must answer the same. */
async function both(key: string, args: Record<string, unknown>, query: string) {
  const structured = await mcp.call(key, 'svc_get_transcripts', { ...args, format: 'json' });
  const grammar = await mcp.call(key, 'svc_search', { query, format: 'json' });
  expect(structured.isError).toBe(false);
  expect(grammar.data).toEqual(structured.data);
  return structured.data as {
    meetings: { id: string; title: string }[];
    moments?: Moment[];
    moments_omitted?: number;
    total: number;
    total_is_lower_bound: boolean;
  };
}

const momentsOf = (r: { moments?: Moment[] }, id: string) =>
  (r.moments ?? []).filter((m) => m.meeting_id === id).map((m) => [m.index, m.text]);

describe('matching moments', () => {
  let u: TestUser;
  let plan: string;
  let travel: string;
  let other: string;

  beforeAll(async () => {
    u = (await team()).admin;
    plan = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Quarter planning',
        date: '2026-05-01T10:00:00Z',
        sentences: lines(
          'Welcome, everyone.', // 0
          'The budgets for next year are due Friday.', // 1
          'Hiring stays frozen.', // 2
          'We agreed to cut the marketing budget by ten percent.', // 3
          'Budget budget budget, that is all I hear.', // 4
          'Marketing wants a new budget line.', // 5
        ),
      })
    ).id;
    travel = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Offsite',
        date: '2026-05-02T10:00:00Z',
        sentences: lines('The travel budget is gone.', 'No more flights.'),
      })
    ).id;
    other = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Budget in the title only',
        date: '2026-05-03T10:00:00Z',
        sentences: lines('Nothing said here.'),
      })
    ).id;
  });

  it("carries each meeting's best matching sentences, stemmed, marked, with speaker, time and a link to the moment", async () => {
    const r = await both(u.key, { keyword: 'budgeting' }, 'budgeting');
    expect(r.meetings.map((m) => m.id)).toEqual([other, travel, plan]);
    // Best first (ts_rank): three mentions, then ties by index; at most 3 (the default) a meeting.
    expect(momentsOf(r, plan)).toEqual([
      [4, '**Budget** **budget** **budget**, that is all I hear.'],
      [1, 'The **budgets** for next year are due Friday.'],
      [3, 'We agreed to cut the marketing **budget** by ten percent.'],
    ]);
    expect(momentsOf(r, travel)).toEqual([[0, 'The travel **budget** is gone.']]);
    expect(momentsOf(r, other)).toEqual([]); // matched by its title: no moment
    const m = r.moments!.find((x) => x.meeting_id === plan && x.index === 1)!;
    expect(m).toEqual({
      meeting_id: plan,
      index: 1,
      speaker_name: 'Bo',
      start_time: 10.5,
      text: expect.any(String),
      link: `${mcp.config.publicBaseUrl}/meetings/${plan}#t=10`,
    });
    expect(r.moments_omitted).toBe(0);
  });

  it('takes moments 0 to 10: none, or more per meeting', async () => {
    expect((await both(u.key, { keyword: 'budget', moments: 0 }, 'budget moments:0')).moments).toBeUndefined();
    expect(
      momentsOf(await both(u.key, { keyword: 'budget', moments: 10 }, 'budget moments:10'), plan).map(([i]) => i),
    ).toEqual([4, 1, 3, 5]);
    const bad = await mcp.call(u.key, 'svc_search', { query: 'budget moments:11' });
    expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'moments' });
    const bad2 = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'budget', moments: 11 });
    expect(bad2.isError).toBe(true);
  });

  it('phrases match within one sentence; a negated word never makes a moment; every word of a query makes one', async () => {
    expect(momentsOf(await both(u.key, { keyword: '"marketing budget"' }, '"marketing budget"'), plan)).toEqual([
      [3, 'We agreed to cut the **marketing** **budget** by ten percent.'],
    ]);
    const neg = await both(u.key, { keyword: 'budget -travel', scope: 'sentences' }, 'budget -travel scope:sentences');
    expect(neg.meetings.map((m) => m.id)).toEqual([plan]);
    expect((neg.moments ?? []).every((m) => !/travel/i.test(m.text))).toBe(true);
    // The words of a query need not share a sentence (the meeting is the document): each makes moments,
    // and a sentence holding more of them ranks first.
    const two = await both(u.key, { keyword: 'marketing hiring', moments: 10 }, 'marketing hiring moments:10');
    expect(
      momentsOf(two, plan)
        .map(([i]) => i)
        .sort(),
    ).toEqual([2, 3, 5]);
  });

  it('scope title gives no moments', async () => {
    const r = await both(u.key, { keyword: 'budget', scope: 'title' }, 'budget scope:title');
    expect(r.meetings.map((m) => m.id)).toEqual([other]);
    expect(r.moments).toBeUndefined();
  });

  it('renders moments as a TOON table of their own and as citations in text', async () => {
    const toon = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'budget' });
    expect(toon.text).toMatch(/^moments\[\d+\]\{meeting_id,index,speaker_name,start_time,text,link\}:/m);
    expect(toon.text).toMatch(/^meetings\[3\]\{id,title,/m);
    const text = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'budget', format: 'text' });
    expect(text.text).toContain(
      `  - [Offsite, 00:00](${mcp.config.publicBaseUrl}/meetings/${travel}#t=0) Ana: The travel **budget** is gone.`,
    );
    expect(text.text).toContain('3 meetings match. No more meetings match.');
  });
});

describe('visibility of moments', () => {
  it('never shows a moment of a meeting the member may not read', async () => {
    const g = await team();
    const member = await g.member();
    const secret = (
      await makeMeeting(t.db, {
        organizer: g.admin,
        title: 'Board',
        privacy: 'owner',
        sentences: lines('The zircon merger is secret.'),
      })
    ).id;
    const open = (
      await makeMeeting(t.db, {
        organizer: g.admin,
        title: 'All hands',
        privacy: 'teammates',
        sentences: lines('Zircon is a rock.'),
      })
    ).id;
    const r = await both(member.key, { keyword: 'zircon', moments: 10 }, 'zircon moments:10');
    expect(r.meetings.map((m) => m.id)).toEqual([open]);
    expect(r.moments!.map((m) => m.meeting_id)).toEqual([open]);
    expect(JSON.stringify(r)).not.toMatch(/merger/);
    expect(r.total).toBe(1);
    const read = await mcp.call(member.key, 'svc_get_transcript', { transcriptId: secret, keyword: 'zircon' });
    expect(read.data.error).toMatchObject({ code: 'object_not_found' });
    const admin = await both(g.admin.key, { keyword: 'zircon' }, 'zircon');
    expect(admin.moments!.map((m) => m.meeting_id).sort()).toEqual([open, secret].sort());
  });
});

describe('the token budget', () => {
  let u: TestUser;
  let big: string;
  const long = (i: number) =>
    `Sentence ${i}: about the budget, we walked through every line item of the proposal, the vendor quotes, the contingency reserve, ` +
    'the hiring plan for the second half, the travel policy and the timeline the finance team asked for before the board meeting.';

  beforeAll(async () => {
    u = (await team()).admin;
    big = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Budget marathon',
        date: '2026-06-01T10:00:00Z',
        sentences: lines(...Array.from({ length: 2000 }, (_, i) => long(i))),
      })
    ).id;
    for (let k = 0; k < 49; k++) {
      await makeMeeting(t.db, {
        organizer: u,
        title: `Budget sync ${k}`,
        date: `2026-05-${String(1 + (k % 28)).padStart(2, '0')}T10:00:00Z`,
        sentences: lines(...Array.from({ length: 12 }, (_, i) => long(i))),
      });
    }
  });

  it('a list of 50 meetings with 10 moments each stays within 20,000 tokens as JSON, every meeting keeping its best moment', async () => {
    const r = await mcp.call(u.key, 'svc_get_transcripts', {
      keyword: 'budget',
      limit: 50,
      moments: 10,
      format: 'json',
    });
    expect(r.isError).toBe(false);
    expect(countTokens(r.text)).toBeLessThanOrEqual(20_000);
    expect(r.data.meetings).toHaveLength(50);
    expect(r.data.moments_omitted).toBeGreaterThan(0);
    for (const m of r.data.meetings) expect(r.data.moments.some((x: Moment) => x.meeting_id === m.id)).toBe(true);
    // TOON and text are smaller than the JSON form.
    const toon = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'budget', limit: 50, moments: 10 });
    expect(countTokens(toon.text)).toBeLessThan(countTokens(r.text));
  });

  it('svc_get_transcript with keyword on 2,000 matching sentences answers pages within maxTokens (JSON form)', async () => {
    const r = await mcp.call(u.key, 'svc_get_transcript', { transcriptId: big, keyword: 'budget', format: 'json' });
    expect(r.isError).toBe(false);
    expect(r.data.match_count).toBe(2000);
    expect(r.data.has_more).toBe(true);
    expect(countTokens(r.text)).toBeLessThanOrEqual(20_000);
    expect(countTokens(r.text)).toBeGreaterThan(10_000); // the budget is used, not wasted
    const small = await mcp.call(u.key, 'svc_get_transcript', {
      transcriptId: big,
      keyword: 'budget',
      maxTokens: 2000,
      format: 'json',
    });
    expect(countTokens(small.text)).toBeLessThanOrEqual(2000);
    expect(small.data.matches.length).toBeGreaterThan(0);
  });
});

describe('svc_get_transcript with keyword', () => {
  it('pages through every match with its neighbours', async () => {
    const u = (await team()).admin;
    const texts = Array.from({ length: 30 }, (_, i) => `Filler line number ${i} about nothing in particular.`);
    const hits = [0, 3, 10, 11, 25, 29];
    for (const i of hits) texts[i] = `At ${i} the kestrel project came up again.`;
    const id = (await makeMeeting(t.db, { organizer: u, title: 'Kestrel', sentences: lines(...texts) })).id;
    const seenMatches: number[] = [];
    const seenSentences = new Set<number>();
    let fromIndex: number | undefined = 0;
    let pages = 0;
    while (fromIndex !== undefined) {
      const r = await mcp.call(u.key, 'svc_get_transcript', {
        transcriptId: id,
        keyword: 'kestrel',
        fromIndex,
        maxTokens: 600,
        format: 'json',
      });
      expect(r.isError).toBe(false);
      expect(r.data.match_count).toBe(hits.length);
      expect(countTokens(r.text)).toBeLessThanOrEqual(600);
      for (const m of r.data.matches) {
        seenMatches.push(m.index);
        expect(m.link).toBe(`${mcp.config.publicBaseUrl}/meetings/${id}#t=${Math.floor(m.index * 10 + 0.5)}`);
        const s = r.data.sentences.find((x: { index: number }) => x.index === m.index);
        expect(s.text).toBe(`At ${m.index} the **kestrel** project came up again.`);
      }
      for (const s of r.data.sentences) seenSentences.add(s.index);
      fromIndex = r.data.has_more ? r.data.next_index : undefined;
      pages++;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBeGreaterThan(1);
    expect(seenMatches).toEqual(hits);
    // Each match with one neighbour either side (the default context), nothing else.
    expect([...seenSentences].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 9, 10, 11, 12, 24, 25, 26, 28, 29]);
    const wide = await mcp.call(u.key, 'svc_get_transcript', {
      transcriptId: id,
      keyword: 'kestrel',
      context: 0,
      format: 'json',
    });
    expect(wide.data.sentences.map((s: { index: number }) => s.index)).toEqual(hits);
    expect(wide.data.has_more).toBe(false);
    const none = await mcp.call(u.key, 'svc_get_transcript', { transcriptId: id, keyword: 'osprey', format: 'json' });
    expect(none.data).toMatchObject({ match_count: 0, matches: [], sentences: [], has_more: false });
    const text = await mcp.call(u.key, 'svc_get_transcript', {
      transcriptId: id,
      keyword: 'kestrel',
      context: 0,
      format: 'text',
    });
    expect(text.text).toContain(
      `> [01:40] Ana: At 10 the **kestrel** project came up again. (${mcp.config.publicBaseUrl}/meetings/${id}#t=100)`,
    );
  });
});

describe('sort relevance', () => {
  it('ranks a hand-ranked set by how well each meeting matches, newer first on ties; date order unchanged', async () => {
    const u = (await team()).admin;
    const said = (n: number) =>
      lines(...Array.from({ length: n }, () => 'The tundra plan is tight.'), 'Unrelated words.');
    const a = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Tundra review',
        date: '2026-01-01T10:00:00Z',
        sentences: said(3),
      })
    ).id;
    const b = (
      await makeMeeting(t.db, { organizer: u, title: 'Weekly', date: '2026-01-02T10:00:00Z', sentences: said(3) })
    ).id;
    const d = (
      await makeMeeting(t.db, { organizer: u, title: 'Daily', date: '2026-01-03T10:00:00Z', sentences: said(1) })
    ).id;
    const c = (
      await makeMeeting(t.db, { organizer: u, title: 'Standup', date: '2026-01-04T10:00:00Z', sentences: said(1) })
    ).id;
    await makeMeeting(t.db, { organizer: u, title: 'Nothing', date: '2026-01-05T10:00:00Z', sentences: said(0) });
    const ids = (r: { meetings: { id: string }[] }) => r.meetings.map((m) => m.id);
    expect(ids(await both(u.key, { keyword: 'tundra', sort: 'relevance' }, 'tundra sort:relevance'))).toEqual([
      a,
      b,
      c,
      d,
    ]);
    expect(ids(await both(u.key, { keyword: 'tundra' }, 'tundra sort:date'))).toEqual([c, d, b, a]);
    expect(
      ids(
        await both(
          u.key,
          { keyword: 'tundra', scope: 'sentences', sort: 'relevance' },
          'tundra scope:sentences sort:RELEVANCE',
        ),
      ),
    ).toEqual([b, a, c, d]);
    // Pages of a relevance order continue it.
    const p1 = await both(u.key, { keyword: 'tundra', sort: 'relevance', limit: 2 }, 'tundra sort:relevance limit:2');
    const p2 = await both(
      u.key,
      { keyword: 'tundra', sort: 'relevance', limit: 2, skip: 2 },
      'tundra sort:relevance limit:2 skip:2',
    );
    expect([...ids(p1), ...ids(p2)]).toEqual([a, b, c, d]);
    // Without a keyword there is nothing to rank: newest first.
    expect(ids(await both(u.key, { sort: 'relevance', limit: 1 }, 'sort:relevance limit:1'))).toHaveLength(1);
    const bad = await mcp.call(u.key, 'svc_search', { query: 'tundra sort:best' });
    expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'sort' });
  });
});

describe('channel filter', () => {
  it('lists the meetings of a channel the caller can see; a channel they cannot see is object_not_found', async () => {
    const g = await team();
    const member = await g.member();
    const outsider = await g.member();
    const pub = (await makeChannel(t.db, g.tm.id, 'Sales', [])).id;
    const priv = (await makeChannel(t.db, g.tm.id, 'Exec', [member], true)).id;
    const inPub = (
      await makeMeeting(t.db, { organizer: g.admin, title: 'Pipeline', channelId: pub, date: '2026-02-01T10:00:00Z' })
    ).id;
    const inPriv = (
      await makeMeeting(t.db, { organizer: g.admin, title: 'Exec sync', channelId: priv, date: '2026-02-02T10:00:00Z' })
    ).id;
    await makeMeeting(t.db, { organizer: g.admin, title: 'No channel', date: '2026-02-03T10:00:00Z' });
    const ids = (r: { meetings: { id: string }[] }) => r.meetings.map((m) => m.id);
    expect(ids(await both(member.key, { channelId: pub }, `channel:${pub}`))).toEqual([inPub]);
    expect(ids(await both(member.key, { channelId: priv }, `channel:${priv}`))).toEqual([inPriv]);
    expect(ids(await both(member.key, { channelId: priv, keyword: 'budget' }, `channel:${priv} budget`))).toEqual([
      inPriv,
    ]);
    for (const r of [
      await mcp.call(outsider.key, 'svc_get_transcripts', { channelId: priv }),
      await mcp.call(outsider.key, 'svc_search', { query: `channel:${priv}` }),
      await mcp.call(outsider.key, 'svc_get_transcripts', { channelId: 'no-such-channel' }),
    ]) {
      expect(r.isError).toBe(true);
      expect(r.data.error).toMatchObject({ code: 'object_not_found' });
    }
    // Another team's channel is not visible either.
    const other = await team();
    const r = await mcp.call(other.admin.key, 'svc_get_transcripts', { channelId: pub });
    expect(r.data.error).toMatchObject({ code: 'object_not_found' });
  });
});

describe('totals', () => {
  it('are exact up to the bound (100) and a lower bound past it, on both sides of the bound', async () => {
    const u = (await team()).admin;
    const insert = (n: number, from: number) =>
      t.db('meetings').insert(
        Array.from({ length: n }, (_, i) => ({
          id: newId(),
          team_id: u.teamId,
          organizer_id: u.id,
          organizer_email: u.email,
          title: `Quasar ${from + i}`,
          date: new Date(Date.UTC(2025, 0, 1) + (from + i) * 3_600_000),
          status: 'completed',
        })),
      );
    expect(TOTAL_BOUND).toBe(100);
    await insert(99, 0);
    const at = async () => {
      const r = await both(u.key, { keyword: 'quasar', scope: 'title' }, 'quasar scope:title');
      const deep = await both(u.key, { keyword: 'quasar', scope: 'title', skip: 95 }, 'quasar scope:title skip:95');
      expect(deep.total).toBe(r.total);
      expect(deep.total_is_lower_bound).toBe(r.total_is_lower_bound);
      // Ranked lists count the same way (their pool is counted in the same statement).
      const ranked = await both(
        u.key,
        { keyword: 'quasar', scope: 'title', sort: 'relevance' },
        'quasar scope:title sort:relevance',
      );
      expect([ranked.total, ranked.total_is_lower_bound]).toEqual([r.total, r.total_is_lower_bound]);
      return [r.total, r.total_is_lower_bound];
    };
    expect(await at()).toEqual([99, false]);
    await insert(1, 99);
    expect(await at()).toEqual([100, false]);
    await insert(1, 100);
    expect(await at()).toEqual([100, true]);
    const text = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'quasar', format: 'text' });
    expect(text.text).toContain('At least 100 meetings match. More on the next page');
    // A short list knows its total without counting; a page past the end still says it.
    expect((await both(u.key, { keyword: 'quasar 17', scope: 'title' }, 'quasar 17 scope:title')).total).toBe(1);
    expect((await both(u.key, { keyword: 'nothingmatches' }, 'nothingmatches')).total).toBe(0);
    const past = await both(u.key, { keyword: 'quasar', scope: 'title', skip: 5000 }, 'quasar scope:title skip:5000');
    expect([past.meetings.length, past.total, past.total_is_lower_bound]).toEqual([0, 100, true]);
  });
});
