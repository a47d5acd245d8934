/**
 * Languages PostgreSQL ships no text search configuration for, searched through a Hunspell dictionary
 * (Czech, from Debian's hunspell-cs, installed by `make text-dictionaries`): an inflected form finds its
 * sentence through the MCP client, an English meeting is searched as before, meetings indexed word for
 * word before the dictionary are picked up by `meeting-intel search reindex`, and where the files are
 * missing the language stays on `simple` with no error.
 */
import { reindexProgress } from '../../../../services/core/languages';
import { runCli } from '../../../support/cli';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

let t: TestDatabase;
let mcp: McpHarness;
let u: TestUser;
let czech: string;
let english: string;

const CZECH = [
  { speaker: 'Jana', text: 'V pondělí jsme mluvili o nových smlouvách.', start: 0, end: 4 },
  { speaker: 'Petr', text: 'Rozpočet na příští rok pošlu zítra.', start: 4, end: 8 },
];

beforeAll(async () => {
  t = await createTestDatabase();
  u = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
  mcp = await startMcp(t.db);
  czech = (await makeMeeting(t.db, { organizer: u, title: 'Porada o smlouvách', language: 'cs', sentences: CZECH })).id;
  english = (await makeMeeting(t.db, { organizer: u, language: 'en' })).id;
});
afterAll(async () => {
  await mcp?.close();
  await t?.drop();
});

const search = async (keyword: string) => {
  const r = await mcp.call(u.key, 'svc_get_transcripts', { keyword, moments: 1, format: 'json' });
  expect(r.isError).toBe(false);
  const data = r.data as { meetings: { id: string }[]; moments: { meeting_id: string; text: string }[] };
  return { ids: data.meetings.map((m) => m.id), moments: data.moments };
};

const configOf = async (language: string) =>
  (await t.db.raw('select text_search_config(?) as config', [language])).rows[0].config;

it('indexes a Czech meeting with the czech configuration the migration created', async () => {
  expect(await configOf('cs')).toBe('czech');
  expect(await configOf('cs-CZ')).toBe('czech');
  expect(await t.db('meetings').where({ id: czech }).first('search_config')).toEqual({ search_config: 'czech' });
  // The dictionary's base forms: "smlouvách" is indexed as "smlouva", "nových" as "nový".
  const { rows } = await t.db.raw("select to_tsvector('czech', ?)::text as tsv", [CZECH[0].text]);
  expect(rows[0].tsv).toContain("'smlouva'");
  expect(rows[0].tsv).toContain("'nový'");
});

it('finds a Czech sentence by another inflected form of its words', async () => {
  const contract = await search('smlouva');
  expect(contract.ids).toEqual([czech]);
  expect(contract.moments[0].text).toContain('**smlouvách**');
  expect((await search('nové smlouvy')).ids).toEqual([czech]);
  // "rozpočtu" (genitive) finds "Rozpočet".
  expect((await search('rozpočtu')).ids).toEqual([czech]);
  // The title too: "porady" finds "Porada".
  expect((await search('porady')).ids).toEqual([czech]);
});

it('searches an English meeting as before', async () => {
  expect(await t.db('meetings').where({ id: english }).first('search_config')).toEqual({ search_config: 'english' });
  const budget = await search('budgets');
  expect(budget.ids).toEqual([english]);
  expect(budget.moments[0].text).toContain('**budget**');
  expect((await search('smlouva')).ids).not.toContain(english);
});

it('re-indexes a Czech meeting indexed word for word before its dictionary, with search reindex', async () => {
  const before = (await makeMeeting(t.db, { organizer: u, title: 'Smlouvy', language: 'cs', sentences: CZECH })).id;
  // As a meeting written while the server had no dictionary left it: simple, words as written.
  await t
    .db('meetings')
    .where({ id: before })
    .update({ search_config: 'simple', title_tsv: t.db.raw("to_tsvector('simple', title)") });
  await t.db.raw("update sentences set tsv = to_tsvector('simple', text) where meeting_id = ?", [before]);
  expect((await search('smlouva')).ids).toEqual([czech]);
  expect((await reindexProgress(t.db)).remaining).toBe(1);

  const r = await runCli(['search', 'reindex', '--direct', '--json'], { DATABASE_URL: t.url });
  expect(r.code).toBe(0);
  expect(r.json).toMatchObject({ meetings: 1, sentences: 2 });
  expect(await t.db('meetings').where({ id: before }).first('search_config')).toEqual({ search_config: 'czech' });
  expect(new Set((await search('smlouva')).ids)).toEqual(new Set([czech, before]));
  expect((await reindexProgress(t.db)).remaining).toBe(0);
});

describe('a server without the dictionary files', () => {
  let bare: TestDatabase;
  beforeAll(async () => {
    bare = await createTestDatabase();
    // As if the migration had found no files: no czech configuration.
    await bare.db.raw('drop text search configuration czech');
    await bare.db.raw('drop text search dictionary czech_ispell');
  });
  afterAll(async () => {
    await bare?.drop();
  });

  it('creates no configuration for files that are missing, and says so without an error', async () => {
    const { rows } = await bare.db.raw("select install_text_search_dictionary('klingon') as ok");
    expect(rows[0].ok).toBe(false);
    const left = await bare.db.raw("select count(*)::int as n from pg_ts_config where cfgname = 'klingon'");
    expect(left.rows[0].n).toBe(0);
    const dicts = await bare.db.raw("select count(*)::int as n from pg_ts_dict where dictname = 'klingon_ispell'");
    expect(dicts.rows[0].n).toBe(0);
  });

  it('indexes a Czech meeting with simple: words as written, found as written', async () => {
    const { rows } = await bare.db.raw("select text_search_config('cs') as config");
    expect(rows[0].config).toBe('simple');
    const m = await makeMeeting(bare.db, {
      organizer: await makeUser(bare.db, await makeTeam(bare.db)),
      language: 'cs',
      sentences: CZECH,
    });
    const row = await bare.db('meetings').where({ id: m.id }).first('search_config');
    expect(row).toEqual({ search_config: 'simple' });
    const found = await bare.db.raw(
      "select bool_or(tsv @@ to_tsquery('simple', 'smlouvách')) as written, bool_or(tsv @@ to_tsquery('simple', 'smlouva')) as inflected from sentences where meeting_id = ?",
      [m.id],
    );
    expect(found.rows[0]).toEqual({ written: true, inflected: false });
  });
});
