/**
 * Meetings and their languages in PostgreSQL: the configuration their words are indexed with follows
 * their language, a language set after the sentences re-indexes them, and meetings uploaded with a
 * language before meetings had one keep their English index until the re-index, which goes in
 * batches, resumes where it stopped and says how far it is (core and `meeting-intel search reindex`).
 */
import { reindexProgress, reindexStep } from '../../../../services/core/languages';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { runCli } from '../../../support/cli';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

let t: TestDatabase;
let u: TestUser;

beforeAll(async () => {
  t = await createTestDatabase();
  u = await makeUser(t.db, await makeTeam(t.db));
});
afterAll(async () => {
  await t.drop();
});

const GERMAN = [{ speaker: 'Jonas', text: 'Wir haben die Häuser am See gesehen.', start: 0, end: 4 }];

/** Whether the meeting's sentences, lexeme set, best moments and title answer to the German stem. */
async function indexedAsGerman(id: string) {
  const { rows } = await t.db.raw(
    `select bool_and(s.tsv @@ to_tsquery('german', 'haus')) as sentences,
            bool_and(m.transcript_tsv @@ to_tsquery('german', 'haus')) as lexemes,
            bool_and((b.by_word -> 'haus') is not null) as moments,
            bool_and(m.title_tsv @@ to_tsquery('german', 'haus')) as title
     from meetings m join sentences s on s.meeting_id = m.id left join best_moments b on b.meeting_id = m.id where m.id = ?`,
    [id],
  );
  return rows[0];
}

/** A meeting as the release before languages left it: an upload language, no meeting language, words indexed as English. */
async function uploadedBefore(): Promise<string> {
  const { id } = await makeMeeting(t.db, { organizer: u, title: 'Häuser', language: 'de', sentences: GERMAN });
  await t.db('meetings').where({ id }).update({ custom_language: 'de', language: null, language_source: null });
  return id;
}

it('indexes a meeting with its language as it is written, and again when its language is set later', async () => {
  const given = (await makeMeeting(t.db, { organizer: u, title: 'Häuser', language: 'de', sentences: GERMAN })).id;
  expect(await indexedAsGerman(given)).toEqual({ sentences: true, lexemes: true, moments: true, title: true });
  expect(await t.db('meetings').where({ id: given }).first('search_config')).toEqual({ search_config: 'german' });

  const later = (await makeMeeting(t.db, { organizer: u, title: 'Häuser', sentences: GERMAN })).id;
  expect(await indexedAsGerman(later)).toEqual({ sentences: false, lexemes: false, moments: false, title: false });
  await t.db('meetings').where({ id: later }).update({ language: 'de', language_source: 'detected' });
  expect(await indexedAsGerman(later)).toEqual({ sentences: true, lexemes: true, moments: true, title: true });
});

it('takes a language PostgreSQL has no configuration for as simple: words as written', async () => {
  const welsh = await makeMeeting(t.db, {
    organizer: u,
    language: 'cy',
    sentences: [{ speaker: 'Rhys', text: 'Trafodwn y gyllideb.', start: 0, end: 2 }],
  });
  const row = await t.db('meetings').where({ id: welsh.id }).first('search_config', 'transcript_tsv');
  expect(row).toEqual({ search_config: 'simple', transcript_tsv: "'gyllideb' 'trafodwn' 'y'" });
});

it('re-indexes meetings uploaded with a language before, in batches, resuming where it stopped', async () => {
  const before = [await uploadedBefore(), await uploadedBefore(), await uploadedBefore()];
  for (const id of before) expect((await indexedAsGerman(id)).lexemes).toBe(false);
  expect((await reindexProgress(t.db)).remaining).toBe(3);

  // One batch, then a stop (a kill between batches): the first batch's meeting is done, the rest wait.
  const first = await reindexStep(t.db, 1);
  expect(first).toEqual({ meetings: 1, sentences: 1, lastId: expect.any(String), done: false });
  expect((await reindexProgress(t.db)).remaining).toBe(2);
  const done = await t
    .db('meetings')
    .whereIn('id', before)
    .whereNotNull('language')
    .select('id', 'language', 'language_source');
  expect(done).toEqual([{ id: first.lastId, language: 'de', language_source: 'given' }]);
  expect(await indexedAsGerman(done[0].id)).toEqual({ sentences: true, lexemes: true, moments: true, title: true });

  // Started again (the CLI in its own process, as an operator would without workers): it finishes what is left.
  const r = await runCli(['search', 'reindex', '--direct', '--batch', '1', '--json'], { DATABASE_URL: t.url });
  expect(r.code).toBe(0);
  expect(r.json).toMatchObject({ meetings: 2, sentences: 2, remaining: 0 });
  for (const id of before) expect(await indexedAsGerman(id)).toMatchObject({ lexemes: true, moments: true });
  expect(await reindexStep(t.db, 50)).toEqual({ meetings: 0, sentences: 0, lastId: '', done: true });
  expect((await reindexProgress(t.db)).remaining).toBe(0);
});

it('leaves a re-indexed meeting exactly as one uploaded in its language: sets, pairs, moments, title', async () => {
  const talk = [
    { speaker: 'Jonas', text: 'Wir haben die Häuser am See gesehen.', start: 0, end: 4 },
    { speaker: 'Mia', text: 'Das Haus am See, das Haus im Wald und noch ein Haus.', start: 4, end: 9 },
    { speaker: 'Jonas', text: 'Im Wald gibt es keine Häuser mehr.', start: 9, end: 12 },
  ];
  const given = (await makeMeeting(t.db, { organizer: u, title: 'Häuser am See', language: 'de', sentences: talk })).id;
  const waiting = (await makeMeeting(t.db, { organizer: u, title: 'Häuser am See', language: 'de', sentences: talk }))
    .id;
  await t
    .db('meetings')
    .where({ id: waiting })
    .update({ custom_language: 'de', language: null, language_source: null });
  // Live before languages, no sentence yet: its sets stay unset (search reads its sentences).
  const live = (await makeMeeting(t.db, { organizer: u, isLive: true, sentences: [] })).id;
  await t.db('meetings').where({ id: live }).update({ custom_language: 'de', transcript_tsv: null });
  const indexed = async (id: string) =>
    (
      await t.db.raw(
        `select m.transcript_tsv::text as lexemes, m.transcript_pairs::text as pairs, m.title_tsv::text as title,
                m.search_config, b.by_word as moments
         from meetings m left join best_moments b on b.meeting_id = m.id where m.id = ?`,
        [id],
      )
    ).rows[0];
  const expected = await indexed(given);
  expect(expected.pairs).toContain("'wald gibt'");
  expect(expected.moments.haus).toEqual([1, 0, 2]);
  expect(await indexed(waiting)).not.toEqual(expected);

  while (!(await reindexStep(t.db, 50)).done);
  expect(await indexed(waiting)).toEqual(expected);
  expect(await indexed(live)).toMatchObject({ lexemes: null, pairs: null, moments: null, search_config: 'german' });
});

it('takes a batch of 1 to 10000 meetings, refusing just beyond', async () => {
  for (const bad of ['0', '10001']) {
    const r = await runCli(['search', 'reindex', '--direct', '--batch', bad], { DATABASE_URL: t.url });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`--batch must be a whole number of meetings from 1 to 10000; got ${bad}`);
  }
  // 1 is taken above; the upper bound here.
  expect((await runCli(['search', 'reindex', '--direct', '--batch', '10000'], { DATABASE_URL: t.url })).code).toBe(0);
  const both = await runCli(['search', 'reindex', '--direct', '--detach'], { DATABASE_URL: t.url });
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('--direct and --detach cannot be used together');
  await expect(reindexStep(t.db, 2.5)).rejects.toThrow('batch must be a whole number of meetings, 1 or more; got 2.5');
});
