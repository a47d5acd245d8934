/**
 * svc_get_transcripts and svc_search through the SDK's MCP client over HTTP: what matches, in what
 * order, who sees what, every limit on both sides of its boundary, and the three formats.
 * Each group builds its own team, so visibility isolates its meetings from the other groups'.
 */
import fc from 'fast-check';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeChannel, makeMeeting, makeTeam, makeUser, shareMeeting, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { parseTsquery, serialize } from '../../../services/core/meetings/tsquery';

let t: TestDatabase;
let mcp: McpHarness;

beforeAll(async () => {
  t = await createTestDatabase();
  mcp = await startMcp(t.db);
  // Meetings in German and French from the start: every group below searches a database of mixed
  // languages, where each keyword is parsed once per language in use, and must answer as for English.
  const elsewhere = await makeUser(t.db, await makeTeam(t.db));
  await makeMeeting(t.db, {
    organizer: elsewhere,
    language: 'de',
    sentences: said('Die Häuser der Stadt und das Budget.'),
  });
  await makeMeeting(t.db, {
    organizer: elsewhere,
    language: 'fr',
    sentences: said('Les maisons de la ville et le budget.'),
  });
});
afterAll(async () => {
  await mcp.close();
  await t.drop();
});

const ids = (r: { data: { meetings: { id: string }[] } }) => r.data.meetings.map((m) => m.id);
const noSentences: { speaker: string; text: string; start: number; end: number }[] = [];
const said = (text: string) => [{ speaker: 'Ana', text, start: 0, end: 90 }];

async function team(flags = ['search', 'fetch']) {
  const tm = await makeTeam(t.db, { flags });
  return {
    tm,
    admin: await makeUser(t.db, tm, { role: 'admin' }),
    user: (opts: { email?: string; name?: string } = {}) => makeUser(t.db, tm, opts),
  };
}

/** Both tools with the same filters: the structured call and its grammar spelling must agree. */
async function both(key: string, args: Record<string, unknown>, query: string) {
  const structured = await mcp.call(key, 'svc_get_transcripts', { ...args, format: 'json' });
  const grammar = await mcp.call(key, 'svc_search', { query, format: 'json' });
  expect(structured.isError).toBe(false);
  expect(grammar.data).toEqual(structured.data);
  return structured;
}

describe('keyword and scope', () => {
  let u: TestUser;
  let inTitle: string;
  let inSentences: string;
  let elsewhere: string;

  beforeAll(async () => {
    const g = await team();
    u = g.admin;
    inTitle = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Zephyr launches',
        date: '2026-03-01T10:00:00Z',
        sentences: said('We talked about hiring.'),
      })
    ).id;
    inSentences = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Weekly sync',
        date: '2026-03-02T10:00:00Z',
        sentences: said('The zephyr rollout slipped a week.'),
      })
    ).id;
    elsewhere = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Hiring plan',
        date: '2026-03-03T10:00:00Z',
        sentences: said('Nothing about that.'),
      })
    ).id;
  });

  it('matches titles, sentences, or either (default), newest first', async () => {
    expect(ids(await both(u.key, { keyword: 'zephyr', scope: 'title' }, 'keyword:zephyr scope:title'))).toEqual([
      inTitle,
    ]);
    expect(ids(await both(u.key, { keyword: 'zephyr', scope: 'sentences' }, 'zephyr scope:sentences'))).toEqual([
      inSentences,
    ]);
    expect(ids(await both(u.key, { keyword: 'zephyr', scope: 'all' }, 'keyword:"zephyr" scope:all'))).toEqual([
      inSentences,
      inTitle,
    ]);
    expect(ids(await both(u.key, { keyword: 'zephyr' }, 'zephyr'))).toEqual([inSentences, inTitle]);
  });

  it('stems words, requires every word, and keeps quoted phrases in order', async () => {
    expect(ids(await both(u.key, { keyword: 'launch' }, 'launch'))).toEqual([inTitle]);
    expect(ids(await both(u.key, { keyword: 'zephyr rollout' }, 'zephyr rollout'))).toEqual([inSentences]);
    expect(ids(await both(u.key, { keyword: '"zephyr rollout"' }, 'keyword:"zephyr rollout"'))).toEqual([inSentences]);
    expect(ids(await both(u.key, { keyword: '"rollout zephyr"' }, '"rollout zephyr"'))).toEqual([]);
    expect(
      ids(await both(u.key, { keyword: 'zephyr hiring', scope: 'sentences' }, 'zephyr hiring scope:sentences')),
    ).toEqual([]);
  });

  it('lists every listed meeting without a keyword, and takes any punctuation without an error', async () => {
    expect(ids(await both(u.key, {}, ' '))).toEqual([elsewhere, inSentences, inTitle]);
    const odd = await mcp.call(u.key, 'svc_get_transcripts', { keyword: `zephyr's (rollout) & | ! <-> :* \\ '"` });
    expect(odd.isError).toBe(false);
    expect(Array.isArray(odd.data.meetings)).toBe(true);
  });

  it('refuses control characters in the keyword as invalid_arguments, never an internal error', async () => {
    const r = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'zephyr\u0001' });
    expect(r.data.error).toMatchObject({ code: 'invalid_arguments', field: 'keyword', rule: 'no control characters' });
    // NUL is refused by the one rule for every string argument (test/integration/mcp/argument-text.test.ts).
    const nul = await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'zephyr\u0000' });
    expect(nul.data.error).toMatchObject({
      code: 'invalid_arguments',
      field: 'keyword',
      rule: 'text without NUL characters or lone surrogates',
    });
  });
});

describe('meetings in other languages', () => {
  let u: TestUser;
  const m: Record<string, string> = {};

  beforeAll(async () => {
    const g = await team();
    u = g.admin;
    const meeting = async (key: string, language: string | undefined, title: string, text: string, day: number) => {
      m[key] = (
        await makeMeeting(t.db, {
          organizer: u,
          language,
          title,
          date: `2026-04-0${day}T10:00:00Z`,
          sentences: said(text),
        })
      ).id;
    };
    await meeting('german', 'de', 'Wochenplanung', 'Wir haben gestern das Haus am See gekauft.', 1);
    await meeting('french', 'fr', 'Réunion client', 'Nous avons visité la maison du client.', 2);
    await meeting('english', undefined, 'Weekly planning', 'We bought the house by the lake.', 3);
    await meeting('germanTitle', 'de', 'Die Häuser am Fluss', 'Nichts weiter.', 4);
  });

  const found = async (keyword: string, extra: Record<string, unknown> = {}, grammar = keyword) =>
    both(u.key, { keyword, limit: 50, ...extra }, `${grammar} limit:50`);

  it('finds each meeting by an inflected form in its own language, with its moment marked', async () => {
    const r = await found('Häuser', { moments: 1, scope: 'sentences' }, 'Häuser moments:1 scope:sentences');
    expect(ids(r)).toEqual([m.german]);
    expect(r.data.moments.map((x: { text: string }) => x.text)).toEqual([
      'Wir haben gestern das **Haus** am See gekauft.',
    ]);
    expect(ids(await found('maisons'))).toEqual([m.french]);
    // English stemming as before: houses finds house, and not the German Haus nor the French maison.
    expect(ids(await found('houses'))).toEqual([m.english]);
  });

  it('parses titles in their language too', async () => {
    expect(ids(await found('Haus', { scope: 'title' }, 'Haus scope:title'))).toEqual([m.germanTitle]);
  });

  it("drops a language's stop words from the query for its meetings", async () => {
    // "das" is a German stop word: not indexed in German meetings, so not found there.
    expect(ids(await found('das'))).not.toContain(m.german);
  });
});

describe('what was said: the meeting is the document', () => {
  const lines = (...texts: string[]) =>
    texts.map((text, i) => ({ speaker: 'Ana', text, start: i * 10, end: i * 10 + 9 }));
  let u: TestUser;
  let a: string;
  let b: string;
  let c: string;

  beforeAll(async () => {
    u = (await team()).admin;
    a = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Doc one',
        date: '2026-08-01T10:00:00Z',
        sentences: lines('The zephyr rollout slipped.', 'Hiring is on hold.'),
      })
    ).id;
    b = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Doc two',
        date: '2026-08-02T10:00:00Z',
        sentences: lines('Zephyr hiring plans.'),
      })
    ).id;
    c = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Doc three',
        date: '2026-08-03T10:00:00Z',
        sentences: lines('Nothing here.'),
      })
    ).id;
  });
  // Bare words of the grammar pass into the keyword as written, web-search syntax included.
  const said = async (keyword: string) =>
    ids(await both(u.key, { keyword, scope: 'sentences' }, `${keyword} scope:sentences`));

  it('finds every word anywhere in the meeting, a phrase only within one sentence', async () => {
    expect(await said('zephyr hiring')).toEqual([b, a]);
    expect(await said('"zephyr rollout"')).toEqual([a]);
    expect(await said('"rollout slipped" hiring')).toEqual([a]);
    expect(await said('"slipped hiring"')).toEqual([]);
  });

  it('answers phrases from the word pairs said within one sentence: two words, longer runs, around a stop word', async () => {
    const v = (await team()).admin;
    const m = (
      await makeMeeting(t.db, {
        organizer: v,
        title: 'Pairs',
        sentences: lines('Falcon engine started.', 'Engine stalled, falcon crew waited.', 'Cost of living rose.'),
      })
    ).id;
    const find = async (keyword: string) =>
      ids(await both(v.key, { keyword, scope: 'sentences' }, `${keyword} scope:sentences`));
    const set = (await t.db('meetings').where({ id: m }).first('transcript_pairs')).transcript_pairs as string;
    expect(set).toContain("'falcon engin'");
    expect(set).not.toContain("'start engin'"); // the last word of one sentence and the first of the next
    expect(await find('"falcon engine"')).toEqual([m]);
    expect(await find('"engine falcon"')).toEqual([]);
    expect(await find('"started engine"')).toEqual([]);
    expect(await find('"falcon engine started"')).toEqual([m]);
    expect(await find('"engine stalled falcon"')).toEqual([m]);
    // Both of its pairs were said, in two different sentences: the run of three never was.
    expect(await find('"falcon engine stalled"')).toEqual([]);
    expect(await find('"cost of living"')).toEqual([m]);
    expect(await find('"cost living"')).toEqual([]);
    // Pairs follow a sentence that changes.
    await t.db('sentences').where({ meeting_id: m, idx: 0 }).update({ text: 'Falcon wing started.' });
    expect(await find('"falcon engine"')).toEqual([]);
    expect(await find('"falcon wing"')).toEqual([m]);
  });

  it('reads a meeting without lexeme sets (live until it ends) sentence by sentence, for a phrase and its negation', async () => {
    const v = (await team()).admin;
    const m = (
      await makeMeeting(t.db, { organizer: v, title: 'Live pairs', sentences: lines('The zephyr rollout slipped.') })
    ).id;
    await t.db('meetings').where({ id: m }).update({ transcript_tsv: null }); // as a live meeting has it
    expect((await t.db('meetings').where({ id: m }).first('transcript_pairs')).transcript_pairs).toBeNull();
    const find = async (keyword: string) =>
      ids(await both(v.key, { keyword, scope: 'sentences' }, `${keyword} scope:sentences`));
    expect(await find('"zephyr rollout"')).toEqual([m]);
    expect(await find('-"zephyr rollout"')).toEqual([]);
    expect(await find('-"rollout zephyr"')).toEqual([m]);
    // Scope all: its title alone matches it too; a word in neither its title nor its sentences does not.
    const all = async (keyword: string) => ids(await both(v.key, { keyword }, keyword));
    expect(await find('pairs')).toEqual([]);
    expect(await all('pairs')).toEqual([m]);
    expect(await all('zephyr')).toEqual([m]);
    expect(await all('nowhere')).toEqual([]);
  });

  it('excludes meetings where a -word or -"phrase" was said, and takes or', async () => {
    expect(await said('zephyr -hiring')).toEqual([]);
    expect(await said('zephyr -rollout')).toEqual([b]);
    expect(await said('-zephyr')).toEqual([c]);
    expect(await said('-"zephyr hiring"')).toEqual([c, a]);
    expect(await said('rollout or nothing')).toEqual([c, a]);
    expect(await said('"zephyr rollout" or nothing')).toEqual([c, a]);
  });

  it('matches nothing for a keyword of stop words only', async () => {
    expect(await said('the and of')).toEqual([]);
    expect(ids(await both(u.key, { keyword: 'the' }, 'the'))).toEqual([]);
  });

  it('follows sentences as they are added, changed and deleted', async () => {
    const words = async (id: string) =>
      (await t.db('meetings').where({ id }).first('transcript_tsv'))?.transcript_tsv as string | null | undefined;
    await t.db('sentences').insert({
      meeting_id: c,
      idx: 1,
      speaker_name: 'Ana',
      speaker_id: 0,
      text: 'Zephyr after all.',
      raw_text: 'Zephyr after all.',
      start_time: 20,
      end_time: 25,
    });
    expect(await said('zephyr')).toEqual([c, b, a]);
    await t.db('sentences').where({ meeting_id: c, idx: 1 }).update({ text: 'Quantum after all.' });
    expect(await said('quantum')).toEqual([c]);
    expect(await said('zephyr')).toEqual([b, a]);
    await t.db('sentences').where({ meeting_id: c, idx: 1 }).del();
    expect(await said('quantum')).toEqual([]);
    expect(await words(c)).toBe("'noth'");
    // Deleting a meeting cascades through its sentences without a hitch.
    const gone = (await makeMeeting(t.db, { organizer: u, title: 'Doc gone', sentences: lines('Zephyr once.') })).id;
    expect(await words(gone)).toBe("'zephyr'");
    await t.db('meetings').where({ id: gone }).del();
    expect(await words(gone)).toBeUndefined();
  });

  it('reads a meeting sentence by sentence when its lexemes were past the size limit', async () => {
    await t.db('meetings').where({ id: a }).update({ transcript_tsv: null });
    // Sentence by sentence: the words of a query must then share a sentence.
    expect(await said('zephyr')).toEqual([b, a]);
    expect(await said('"zephyr rollout"')).toEqual([a]);
    expect(await said('zephyr hiring')).toEqual([b]);
    // An append keeps it unsummarised (the earlier lexemes are unknown); a rebuild lifts that.
    await t.db('sentences').insert({
      meeting_id: a,
      idx: 5,
      speaker_name: 'Ana',
      speaker_id: 0,
      text: 'Later words.',
      raw_text: 'Later words.',
      start_time: 50,
      end_time: 55,
    });
    expect((await t.db('meetings').where({ id: a }).first('transcript_tsv')).transcript_tsv).toBeNull();
    await t.db('sentences').where({ meeting_id: a, idx: 5 }).del();
    expect(await said('zephyr hiring')).toEqual([b, a]);
  });

  it('reads back every tsquery PostgreSQL makes of a keyword as the same query', async () => {
    const word = fc.constantFrom(
      'budget',
      'the',
      'pricing',
      'page',
      "don't",
      'e-mail',
      'c:\\temp',
      "x'y",
      'or',
      'and',
      '-',
      '"',
      'a<->b',
      'k8s',
      '!',
      '(',
      ')',
      '&',
      '|',
      '42',
    );
    const keyword = fc
      .array(fc.tuple(fc.constantFrom('', '-', '"', '-"'), word, fc.constantFrom('', '"', ' or')), { maxLength: 6 })
      .map((parts) => parts.map((p) => p.join('')).join(' '));
    await fc.assert(
      fc.asyncProperty(keyword, async (k) => {
        const q = (await t.db.raw("select websearch_to_tsquery('english', ?)::text as q", [k])).rows[0].q as string;
        const tree = parseTsquery(q);
        if (tree === null) return expect(q).toBe('');
        const back = (await t.db.raw('select ?::tsquery::text as q', [serialize(tree)])).rows[0].q;
        expect(back).toBe(q);
      }),
      { numRuns: 150 },
    );
  });
});

describe('record shape and formats', () => {
  let u: TestUser;
  let guest: TestUser;
  let withSummary: string;
  let withoutSummary: string;

  beforeAll(async () => {
    const g = await team();
    u = await g.user({ email: 'zoe@shape.example', name: 'Zoe' });
    guest = await g.user({ email: 'abe@shape.example', name: 'Abe' });
    withSummary = (
      await makeMeeting(t.db, {
        organizer: u,
        title: 'Weekly planning',
        date: '2026-11-02T15:00:00Z',
        participants: [{ email: guest.email }, { email: 'Carl@Partner.example' }],
        sentences: [
          { speaker: 'Zoe', text: 'A secret sentence that must never appear in a list.', start: 0, end: 2730 },
        ],
        summary: { short_summary: 'Planned the week, with commas, and "quotes".' },
      })
    ).id;
    withoutSummary = (
      await makeMeeting(t.db, { organizer: u, title: '2026', date: '2026-11-01T09:30:00Z', sentences: noSentences })
    ).id;
  });

  it('answers flat records with a summary and no transcript content (json)', async () => {
    const r = await mcp.call(u.key, 'svc_get_transcripts', { format: 'json' });
    expect(r.isError).toBe(false);
    expect(r.data).toEqual({
      meetings: [
        {
          id: withSummary,
          title: 'Weekly planning',
          dateString: '2026-11-02T15:00:00.000Z',
          date: Date.parse('2026-11-02T15:00:00Z'),
          duration: 45.5,
          organizer_email: 'zoe@shape.example',
          participants: 'zoe@shape.example, abe@shape.example, carl@partner.example',
          privacy: 'teammatesandparticipants',
          is_live: false,
          transcript_url: `${mcp.config.publicBaseUrl}/meetings/${withSummary}`,
          summary: 'Planned the week, with commas, and "quotes".',
        },
        expect.objectContaining({ id: withoutSummary, title: '2026', summary: null, duration: 0 }),
      ],
      total: 2,
      total_is_lower_bound: false,
      has_more: false,
      next_skip: null,
    });
    expect(r.text).not.toMatch(/secret sentence/);
  });

  it('answers TOON by default that decodes to exactly the JSON result, for both tools', async () => {
    for (const [tool, args] of [
      ['svc_get_transcripts', {}],
      ['svc_search', { query: 'limit:5' }],
    ] as const) {
      const json = await mcp.call(u.key, tool, { ...args, format: 'json' });
      const toon = await mcp.call(u.key, tool, args);
      const explicit = await mcp.call(u.key, tool, { ...args, format: 'toon' });
      expect(toon.isError).toBe(false);
      expect(toon.text).not.toBe(json.text);
      expect(toon.text).toMatch(
        /^meetings\[2\]\{id,title,dateString,date,duration,organizer_email,participants,privacy,is_live,transcript_url,summary\}:/,
      );
      expect(toon.data).toEqual(json.data);
      expect(explicit.text).toBe(toon.text);
    }
  });

  it('answers one line per meeting in text, with how to get more', async () => {
    const r = await mcp.call(u.key, 'svc_get_transcripts', { format: 'text', limit: 1 });
    expect(r.isError).toBe(false);
    expect(r.text.split('\n')).toEqual([
      `2026-11-02 15:00 UTC · Weekly planning (45.5 min) · id ${withSummary} · organizer zoe@shape.example · ` +
        'participants zoe@shape.example, abe@shape.example, carl@partner.example · summary: Planned the week, with commas, and "quotes".',
      '2 meetings match. More on the next page: call again with skip: 1.',
    ]);
    const s = await mcp.call(u.key, 'svc_search', { query: 'limit:1 skip:1', format: 'text' });
    expect(s.text.split('\n')).toEqual([
      `2026-11-01 09:30 UTC · 2026 (0 min) · id ${withoutSummary} · organizer zoe@shape.example · participants zoe@shape.example`,
      '2 meetings match. No more meetings match.',
    ]);
    expect((await mcp.call(u.key, 'svc_search', { query: 'limit:1', format: 'text' })).text).toMatch(
      /2 meetings match. More on the next page: add skip:1 to the query\.$/,
    );
    expect((await mcp.call(u.key, 'svc_search', { query: 'nothingmatchesthis', format: 'text' })).text).toBe(
      'No meetings match.',
    );
  });

  it('answers errors as results in every format', async () => {
    const json = await mcp.call(u.key, 'svc_get_transcripts', { limit: 51, format: 'json' });
    expect(json.isError).toBe(true);
    expect(json.data.error).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
    const text = await mcp.call(u.key, 'svc_search', { query: 'limit:51', format: 'text' });
    expect(text.data.error).toMatchObject({ code: 'invalid_arguments', field: 'limit' });
  });
});

describe('dates, people and mine', () => {
  let me: TestUser;
  let ana: TestUser;
  let bo: TestUser;
  const m: Record<string, string> = {};

  beforeAll(async () => {
    const g = await team();
    me = await g.user({ email: 'me@people.example' });
    ana = await g.user({ email: 'ana@people.example' });
    bo = await g.user({ email: 'bo@people.example' });
    const at = async (key: string, organizer: TestUser, date: string, participants: string[] = []) => {
      m[key] = (
        await makeMeeting(t.db, {
          organizer,
          date,
          title: `Meeting ${key}`,
          participants: participants.map((email) => ({ email })),
        })
      ).id;
    };
    await at('marchLast', ana, '2026-03-31T23:59:59.999Z');
    await at('aprilFirst', bo, '2026-04-01T00:00:00Z', ['ext@partner.example']);
    await at('aprilLast', me, '2026-04-30T23:59:59.999Z');
    await at('mayFirst', ana, '2026-05-01T00:00:00Z', [me.email]);
  });

  it('includes whole UTC days at both ends of a date range', async () => {
    expect(
      ids(await both(me.key, { fromDate: '2026-04-01', toDate: '2026-04-30' }, 'from:2026-04-01 to:2026-04-30')),
    ).toEqual([m.aprilLast, m.aprilFirst]);
    expect(
      ids(await both(me.key, { fromDate: '2026-04-30', toDate: '2026-04-30' }, 'from:2026-04-30 to:2026-04-30')),
    ).toEqual([m.aprilLast]);
    expect(ids(await both(me.key, { fromDate: '2026-05-01' }, 'from:2026-05-01'))).toEqual([m.mayFirst]);
    expect(ids(await both(me.key, { toDate: '2026-03-31' }, 'to:2026-03-31'))).toEqual([m.marchLast]);
  });

  it('matches any of the organizers, case-insensitively', async () => {
    expect(
      ids(
        await both(
          me.key,
          { organizers: ['ANA@people.example', bo.email] },
          'organizers:ANA@people.example,bo@people.example',
        ),
      ),
    ).toEqual([m.mayFirst, m.aprilFirst, m.marchLast]);
    expect(
      ids(await both(me.key, { organizers: ['nobody@people.example'] }, 'organizers:nobody@people.example')),
    ).toEqual([]);
  });

  it('matches any of the participants (the organizer takes part too), repeats accumulating in the grammar', async () => {
    expect(
      ids(
        await both(
          me.key,
          { participants: ['Ext@Partner.example', me.email] },
          'participants:Ext@Partner.example participants:me@people.example',
        ),
      ),
    ).toEqual([m.mayFirst, m.aprilLast, m.aprilFirst]);
  });

  it('combines filters: all must hold', async () => {
    expect(
      ids(
        await both(
          me.key,
          { organizers: [ana.email], fromDate: '2026-04-01' },
          `organizers:${ana.email} from:2026-04-01`,
        ),
      ),
    ).toEqual([m.mayFirst]);
  });

  it('mine: meetings the caller organized or took part in', async () => {
    expect(ids(await both(me.key, { mine: true }, 'mine:true'))).toEqual([m.mayFirst, m.aprilLast]);
    expect(ids(await both(me.key, { mine: false }, 'mine:false'))).toHaveLength(4);
    expect(ids(await both(ana.key, { mine: true }, 'MINE:TRUE'))).toEqual([m.mayFirst, m.marchLast]);
  });
});

describe('pagination', () => {
  let u: TestUser;
  const made: string[] = [];

  beforeAll(async () => {
    const g = await team();
    u = g.admin;
    // 12 meetings, two of them at the same instant (ordered by id, newest id first).
    for (let i = 0; i < 12; i++) {
      const date = i === 11 ? '2026-06-11T12:00:00Z' : `2026-06-${String(i + 1).padStart(2, '0')}T12:00:00Z`;
      made.push((await makeMeeting(t.db, { organizer: u, title: `Meeting ${i}`, date, sentences: noSentences })).id);
    }
  });
  const newestFirst = () => [made[11], made[10], ...made.slice(0, 10).reverse()];

  it('defaults to 10 and says there is more', async () => {
    const r = await both(u.key, {}, 'scope:all');
    expect(r.data.meetings).toHaveLength(10);
    expect(r.data).toMatchObject({ has_more: true, next_skip: 10 });
    expect(ids(r)).toEqual(newestFirst().slice(0, 10));
  });

  it('pages with limit and skip until has_more is false', async () => {
    const p1 = await both(u.key, { limit: 5 }, 'limit:5');
    expect(p1.data).toMatchObject({ has_more: true, next_skip: 5 });
    const p2 = await both(u.key, { limit: 5, skip: 5 }, 'limit:5 skip:5');
    expect(p2.data).toMatchObject({ has_more: true, next_skip: 10 });
    const p3 = await both(u.key, { limit: 5, skip: 10 }, 'skip:10 limit:5');
    expect(p3.data).toMatchObject({ has_more: false, next_skip: null });
    expect([...ids(p1), ...ids(p2), ...ids(p3)]).toEqual(newestFirst());
    const exact = await both(u.key, { limit: 12 }, 'limit:12');
    expect(exact.data).toMatchObject({ has_more: false, next_skip: null });
    const past = await both(u.key, { skip: 12 }, 'skip:12');
    expect(past.data).toEqual({
      meetings: [],
      total: 12,
      total_is_lower_bound: false,
      has_more: false,
      next_skip: null,
    });
  });

  it('takes limit 1..50 and skip 0..100000, refusing just beyond', async () => {
    expect((await mcp.call(u.key, 'svc_get_transcripts', { limit: 50 })).data.meetings).toHaveLength(12);
    expect((await mcp.call(u.key, 'svc_get_transcripts', { limit: 1 })).data.meetings).toHaveLength(1);
    expect((await mcp.call(u.key, 'svc_get_transcripts', { skip: 0 })).isError).toBe(false);
    expect((await mcp.call(u.key, 'svc_get_transcripts', { skip: 100000 })).data.meetings).toEqual([]);
    for (const [args, field] of [
      [{ limit: 51 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
      [{ skip: -1 }, 'skip'],
      [{ skip: 100001 }, 'skip'],
      [{ limit: '5' }, 'limit'],
    ] as const) {
      const r = await mcp.call(u.key, 'svc_get_transcripts', args);
      expect({ args, isError: r.isError, code: r.data.error?.code, field: r.data.error?.field }).toEqual({
        args,
        isError: true,
        code: 'invalid_arguments',
        field,
      });
    }
    expect((await mcp.call(u.key, 'svc_search', { query: 'limit:50' })).data.meetings).toHaveLength(12);
    expect((await mcp.call(u.key, 'svc_search', { query: 'limit:51' })).data.error).toMatchObject({
      code: 'invalid_arguments',
      field: 'limit',
      rule: 'a whole number from 1 to 50',
    });
  });
});

describe('visibility', () => {
  let admin: TestUser;
  let owner: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  const m: Record<string, string> = {};

  beforeAll(async () => {
    const g = await team();
    admin = g.admin;
    owner = await g.user();
    member = await g.user();
    const lonely = await g.user();
    const other = await team();
    outsider = other.admin;
    const channel = await makeChannel(t.db, g.tm.id, 'Sales', [member]);
    let day = 1;
    const meeting = async (key: string, spec: Partial<Parameters<typeof makeMeeting>[1]> = {}) => {
      m[key] = (
        await makeMeeting(t.db, {
          organizer: owner,
          title: `Visibility ${key}`,
          date: `2026-07-${String(day++).padStart(2, '0')}T10:00:00Z`,
          ...spec,
        })
      ).id;
    };
    await meeting('ownerPrivate', { privacy: 'owner' });
    await meeting('ownerPrivateInChannel', { privacy: 'owner', channelId: channel.id });
    await meeting('teammates', { privacy: 'teammates' });
    await meeting('teammatesGerman', {
      privacy: 'teammates',
      language: 'de',
      sentences: said('Die Häuser der Stadt.'),
    });
    await meeting('ownerPrivateFrench', { privacy: 'owner', language: 'fr', sentences: said('Les maisons.') });
    await meeting('participantsWithMember', { privacy: 'participants', participants: [{ email: member.email }] });
    await meeting('participantsWithout', { privacy: 'participants', participants: [{ email: lonely.email }] });
    await meeting('participantsInChannel', { privacy: 'participants', channelId: channel.id });
    await meeting('processing', { status: 'processing' });
    await meeting('failed', { status: 'failed' });
    await meeting('live', { isLive: true, liveState: 'active' });
    await meeting('otherTeam', { organizer: outsider });
    await meeting('otherTeamShared', { organizer: outsider, privacy: 'owner' });
    await meeting('otherTeamRevoked', { organizer: outsider });
    await meeting('otherTeamExpired', { organizer: outsider });
    await meeting('otherTeamGerman', { organizer: outsider, language: 'de' });
    await shareMeeting(t.db, m.otherTeamShared, member.email.toUpperCase());
    await shareMeeting(t.db, m.otherTeamRevoked, member.email, { revoked: true });
    await shareMeeting(t.db, m.otherTeamExpired, member.email, { expiresAt: new Date(Date.now() - 1000) });
  });

  const visible = async (u: TestUser) =>
    new Set(ids(await both(u.key, { keyword: 'visibility', limit: 50 }, 'visibility limit:50')));
  const named = (...keys: string[]) => new Set(keys.map((k) => m[k]));

  it("a member sees teammates, participant, channel and shared meetings; never owner-private or another team's", async () => {
    expect(await visible(member)).toEqual(
      named(
        'teammates',
        'teammatesGerman',
        'participantsWithMember',
        'participantsInChannel',
        'live',
        'otherTeamShared',
      ),
    );
  });

  it('totals count what the caller may see in both arms (own team and shared), on every page', async () => {
    const total = async (args: Record<string, unknown>, query: string) => {
      const r = await both(member.key, { keyword: 'visibility', ...args }, `visibility ${query}`);
      return [r.data.total, r.data.total_is_lower_bound, r.data.meetings.length];
    };
    expect(await total({ limit: 50 }, 'limit:50')).toEqual([6, false, 6]);
    expect(await total({ limit: 2 }, 'limit:2')).toEqual([6, false, 2]);
    expect(await total({ limit: 2, sort: 'relevance' }, 'limit:2 sort:relevance')).toEqual([6, false, 2]);
    // Past the end there is no row to carry the count: it is counted on its own, to the same figure.
    expect(await total({ skip: 10 }, 'skip:10')).toEqual([6, false, 0]);
  });

  it('the organizer sees their own private meetings', async () => {
    expect(await visible(owner)).toEqual(
      named(
        'ownerPrivate',
        'ownerPrivateInChannel',
        'ownerPrivateFrench',
        'teammates',
        'teammatesGerman',
        'participantsWithMember',
        'participantsWithout',
        'participantsInChannel',
        'live',
      ),
    );
  });

  it('an admin sees every listed meeting of the team and none of another team', async () => {
    expect(await visible(admin)).toEqual(
      named(
        'ownerPrivate',
        'ownerPrivateInChannel',
        'ownerPrivateFrench',
        'teammates',
        'teammatesGerman',
        'participantsWithMember',
        'participantsWithout',
        'participantsInChannel',
        'live',
      ),
    );
  });

  it('another team sees only its own meetings, shared ones included', async () => {
    expect(await visible(outsider)).toEqual(
      named('otherTeam', 'otherTeamShared', 'otherTeamRevoked', 'otherTeamExpired', 'otherTeamGerman'),
    );
  });

  it('a share from another team shows on the next call of a caller whom no share named before', async () => {
    const g = await team();
    const newcomer = await g.user();
    const sharedLater = (
      await makeMeeting(t.db, { organizer: outsider, title: 'Visibility shared later', privacy: 'owner' })
    ).id;
    expect(await visible(newcomer)).toEqual(new Set());
    await shareMeeting(t.db, sharedLater, newcomer.email);
    expect(await visible(newcomer)).toEqual(new Set([sharedLater]));
  });

  it('lists live meetings as live, never processing or failed ones', async () => {
    const r = await mcp.call(admin.key, 'svc_get_transcripts', { keyword: 'live', scope: 'title', format: 'json' });
    expect(r.data.meetings).toEqual([expect.objectContaining({ id: m.live, is_live: true })]);
  });
});

describe('argument limits', () => {
  let u: TestUser;

  beforeAll(async () => {
    u = (await team()).admin;
  });

  const refused = async (tool: string, args: Record<string, unknown>) => {
    const r = await mcp.call(u.key, tool, args);
    expect(r.isError).toBe(true);
    expect(r.text).not.toMatch(/select |\bat .*\.ts:\d+/i);
    return r.data.error as { code: string; field: string; rule: string; message: string };
  };

  it('keyword: 255 characters accepted, 256 refused, in both tools', async () => {
    expect((await mcp.call(u.key, 'svc_get_transcripts', { keyword: 'k'.repeat(255) })).isError).toBe(false);
    expect(await refused('svc_get_transcripts', { keyword: 'k'.repeat(256) })).toMatchObject({
      code: 'invalid_arguments',
      field: 'keyword',
      rule: 'at most 255 characters',
    });
    expect((await mcp.call(u.key, 'svc_search', { query: `keyword:"${'k'.repeat(255)}"` })).isError).toBe(false);
    expect(await refused('svc_search', { query: `${'k'.repeat(200)} ${'k'.repeat(55)}` })).toMatchObject({
      field: 'keyword',
      rule: 'at most 255 characters',
    });
  });

  it('emails: well-formed accepted, malformed refused naming the parameter', async () => {
    expect(
      (await mcp.call(u.key, 'svc_get_transcripts', { organizers: ['a@b.co'], participants: ['c@d.co'] })).isError,
    ).toBe(false);
    expect(await refused('svc_get_transcripts', { organizers: ['a@b.co', 'not-an-email'] })).toMatchObject({
      code: 'invalid_arguments',
      field: 'organizers.1',
    });
    expect(await refused('svc_get_transcripts', { participants: ['a@b'] })).toMatchObject({
      code: 'invalid_arguments',
      field: 'participants.0',
    });
    expect(await refused('svc_get_transcripts', { participants: 'a@b.co' })).toMatchObject({
      code: 'invalid_arguments',
      field: 'participants',
    });
    expect(await refused('svc_search', { query: 'participants:a@b.co,nope' })).toMatchObject({
      code: 'invalid_arguments',
      field: 'participants',
    });
    expect(await refused('svc_search', { query: 'organizers:@b.co' })).toMatchObject({
      code: 'invalid_arguments',
      field: 'organizers',
    });
  });

  it('emails: at most 50 per filter', async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `p${i}@x.io`);
    expect((await mcp.call(u.key, 'svc_get_transcripts', { participants: list(50) })).isError).toBe(false);
    expect(await refused('svc_get_transcripts', { participants: list(51) })).toMatchObject({
      field: 'participants',
      rule: 'at most 50 emails',
    });
    expect(await refused('svc_search', { query: `organizers:${list(51).join(',')}` })).toMatchObject({
      field: 'organizers',
      rule: 'at most 50 emails',
    });
  });

  it('dates: real calendar days only, from no later than to', async () => {
    expect(
      (await mcp.call(u.key, 'svc_get_transcripts', { fromDate: '2024-02-29', toDate: '2024-02-29' })).isError,
    ).toBe(false);
    expect(await refused('svc_get_transcripts', { fromDate: '2026-02-30' })).toMatchObject({
      field: 'fromDate',
      rule: 'must be a real calendar date YYYY-MM-DD',
    });
    expect(await refused('svc_get_transcripts', { toDate: '2026-1-5' })).toMatchObject({
      field: 'toDate',
      rule: 'must be an ISO date YYYY-MM-DD',
    });
    expect(await refused('svc_get_transcripts', { fromDate: '2026-03-02', toDate: '2026-03-01' })).toMatchObject({
      field: 'fromDate',
      rule: 'must not be after toDate',
    });
    expect(await refused('svc_search', { query: 'from:2026-02-30' })).toMatchObject({
      field: 'from',
      rule: 'a real calendar date written YYYY-MM-DD',
    });
    expect(await refused('svc_search', { query: 'from:2026-03-02 to:2026-03-01' })).toMatchObject({
      field: 'from',
      rule: 'must not be after to',
    });
  });

  it('scope, mine and unknown parameters', async () => {
    expect(await refused('svc_get_transcripts', { scope: 'body' })).toMatchObject({
      field: 'scope',
      rule: 'must be one of title, sentences, all',
    });
    expect(await refused('svc_get_transcripts', { mine: 'yes' })).toMatchObject({ field: 'mine' });
    expect(await refused('svc_get_transcripts', { query: 'x' })).toMatchObject({
      field: 'query',
      rule: 'unknown parameter',
    });
    expect(await refused('svc_get_transcripts', { format: 'xml' })).toMatchObject({ field: 'format' });
  });

  it('grammar errors name the token and the rule', async () => {
    expect(await refused('svc_search', { query: 'budget foo:bar' })).toMatchObject({
      code: 'invalid_arguments',
      field: 'foo',
    });
    expect(await refused('svc_search', { query: 'keyword:"budget' })).toMatchObject({
      field: 'keyword',
      rule: 'quotes must be closed',
    });
    expect(await refused('svc_search', { query: 'scope:title scope:all' })).toMatchObject({
      field: 'scope',
      rule: 'at most once',
    });
    expect(await refused('svc_search', { query: 'mine:maybe' })).toMatchObject({
      field: 'mine',
      rule: 'true or false',
    });
    expect(await refused('svc_search', { query: 'skip:-1' })).toMatchObject({ field: 'skip' });
  });

  it('query: required, not empty, at most 4096 characters', async () => {
    expect(await refused('svc_search', {})).toMatchObject({ code: 'args_required', field: 'query' });
    expect(await refused('svc_search', { query: '' })).toMatchObject({ code: 'invalid_arguments', field: 'query' });
    expect((await mcp.call(u.key, 'svc_search', { query: `x${' '.repeat(4095)}` })).isError).toBe(false);
    expect(await refused('svc_search', { query: `x${' '.repeat(4096)}` })).toMatchObject({
      field: 'query',
      rule: 'at most 4096 characters',
    });
  });
});

describe('tool listing and the search flag', () => {
  it('offers svc_search only to teams with the search flag; a direct call answers feature_unavailable', async () => {
    const off = (await team([])).admin;
    const on = (await team(['search'])).admin;
    const offNames = (await (await mcp.client(off.key)).listTools()).tools.map((x) => x.name);
    expect(offNames).toContain('svc_get_transcripts');
    expect(offNames).not.toContain('svc_search');
    const r = await mcp.call(off.key, 'svc_search', { query: 'budget' });
    expect(r.isError).toBe(true);
    expect(r.data.error).toMatchObject({ code: 'feature_unavailable' });
    expect(r.data.error.message).toMatch(/svc_search/);
    // The structured tool needs no flag.
    expect((await mcp.call(off.key, 'svc_get_transcripts', {})).isError).toBe(false);

    const tools = (await (await mcp.client(on.key)).listTools()).tools;
    const search = tools.find((x) => x.name === 'svc_search')!;
    const list = tools.find((x) => x.name === 'svc_get_transcripts')!;
    expect(search.annotations).toMatchObject({ readOnlyHint: true });
    expect(list.annotations).toMatchObject({ readOnlyHint: true });
    expect(search.inputSchema).toMatchObject({
      required: ['query'],
      properties: { query: { type: 'string', maxLength: 4096 }, format: { enum: ['toon', 'json', 'text'] } },
    });
    expect(list.inputSchema.required ?? []).toEqual([]);
    expect(list.inputSchema.properties).toMatchObject({
      keyword: { type: 'string', maxLength: 255 },
      scope: { enum: ['title', 'sentences', 'all'] },
      fromDate: { type: 'string' },
      toDate: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      skip: { type: 'integer', minimum: 0 },
      organizers: { type: 'array', items: { type: 'string' } },
      participants: { type: 'array', items: { type: 'string' } },
      mine: { type: 'boolean' },
      format: { enum: ['toon', 'json', 'text'] },
    });
    expect(list.description).toMatch(/svc_get_transcript\b/);
    expect(search.description).toMatch(/organizers:email1,email2/);
  });
});
