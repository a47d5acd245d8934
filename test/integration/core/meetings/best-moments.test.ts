/**
 * best_moments (the 20261201000000 migration): each meeting's best sentences per word, read for a
 * one-word keyword's moments instead of searching the meeting's sentences. What it answers must be
 * what the search answers, for every word, every number of moments and every meeting, however the
 * sentences came to be (inserted, edited, deleted, replaced, live) and for meetings it was built for
 * by the migration itself.
 */
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { BEST_MOMENTS_DEPTH, findMoments, momentsStatement } from '../../../../services/core/meetings/moments';
import { runSql } from '../../../../services/platform/sql';
import { createPrng } from '../../../support/synthetic';

let t: TestDatabase;
let owner: TestUser;
beforeAll(async () => {
  t = await createTestDatabase();
  owner = await makeUser(t.db, await makeTeam(t.db));
});
afterAll(async () => {
  await t.drop();
});

// Few words, so that words recur within a sentence (ranks differ) and across many (ties, and more than 10).
const WORDS = [
  'budget',
  'budgets',
  'plan',
  'planning',
  "o'brien's",
  'review',
  'hiring',
  'cost',
  'costs',
  'launch',
  'the',
  'and',
  'we',
];

function sentencesOf(seed: number, n: number) {
  const r = createPrng(seed);
  return Array.from({ length: n }, (_, i) => ({
    speaker: i % 3 ? 'Ana' : 'Ben',
    text: Array.from({ length: 2 + Math.floor(r() * 9) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ') + '.',
    start: i * 5,
    end: i * 5 + 4,
  }));
}

/** The meeting's words as PostgreSQL stems them. */
async function wordsOf(meetingId: string): Promise<string[]> {
  const { rows } = await t.db.raw(
    'select distinct u.lexeme from sentences s, unnest(s.tsv) u where s.meeting_id = ? order by 1',
    [meetingId],
  );
  return rows.map((x: { lexeme: string }) => x.lexeme);
}

const tsqueryOf = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The moments statement's rows for `word`, read from best_moments (byWord) or searched. */
async function moments(ids: string[], word: string, perMeeting: number, byWord: boolean) {
  const st = momentsStatement(ids, tsqueryOf(word), perMeeting, byWord ? word : null);
  expect(st.name).toBe(byWord ? 'mi_list_moments_word' : 'mi_list_moments');
  return runSql(t.db, st);
}

/** Every word of these meetings (and one said in none), at 1, 3 and the most moments: read and searched alike. */
async function expectReadAsSearched(ids: string[]) {
  const words = [...new Set((await Promise.all(ids.map(wordsOf))).flat()), 'nowhere'];
  let compared = 0;
  for (const word of words) {
    for (const n of [1, 3, BEST_MOMENTS_DEPTH]) {
      const searched = await moments(ids, word, n, false);
      expect(await moments(ids, word, n, true)).toEqual(searched);
      compared += searched.length;
    }
  }
  expect(compared).toBeGreaterThan(0);
}

/** Each meeting's row is what its sentences make now. */
async function expectRowsCurrent(ids: string[]) {
  const { rows } = await t.db.raw(
    'select m.id, b.by_word is not distinct from meeting_best_moments(m.id) as current, b.meeting_id is not null as present from meetings m left join best_moments b on b.meeting_id = m.id where m.id = any(?)',
    [ids],
  );
  for (const r of rows)
    expect({ id: r.id, current: r.current, present: r.present }).toEqual({ id: r.id, current: true, present: true });
}

describe('best_moments', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 4; i++)
      ids.push(
        (
          await makeMeeting(t.db, {
            organizer: owner,
            title: `Weekly ${i}`,
            sentences: sentencesOf(i + 1, 40 + i * 20),
          })
        ).id,
      );
  });

  it('answers what searching the sentences answers, for every word and number of moments', async () => {
    await expectRowsCurrent(ids);
    await expectReadAsSearched(ids);
  });

  it('is what the one-word statement reads: a changed row changes its answer', async () => {
    const [id] = ids;
    const before = await moments([id], 'budget', 3, true);
    expect(before.length).toBeGreaterThan(0);
    await t
      .db('best_moments')
      .where({ meeting_id: id })
      .update({ by_word: JSON.stringify({ budget: [] }) });
    expect(await moments([id], 'budget', 3, true)).toEqual([]);
    await t.db.raw('select refresh_best_moments(?::text[])', [[id]]);
    expect(await moments([id], 'budget', 3, true)).toEqual(before);
  });

  it('follows sentences inserted, edited and deleted, and a transcript replaced in one transaction', async () => {
    const [a, b, c] = ids;
    const extra = sentencesOf(99, 30).map((s, i) => ({
      meeting_id: a,
      idx: 1000 + i,
      speaker_name: s.speaker,
      speaker_id: 0,
      text: `budget budget budget ${s.text}`,
      raw_text: s.text,
      start_time: 900 + i,
      end_time: 901 + i,
    }));
    await t.db('sentences').insert(extra);
    await t
      .db('sentences')
      .where({ meeting_id: b })
      .where('idx', '<', 10)
      .update({ text: 'costs and costs and costs of hiring.' });
    await t.db('sentences').where({ meeting_id: c }).whereRaw('idx % 2 = 0').delete();
    await t.db.transaction(async (tx) => {
      await tx('sentences').where({ meeting_id: ids[3] }).delete();
      await tx('sentences').insert(
        sentencesOf(7, 25).map((s, i) => ({
          meeting_id: ids[3],
          idx: i,
          speaker_name: s.speaker,
          speaker_id: 0,
          text: s.text,
          raw_text: s.text,
          start_time: i,
          end_time: i + 1,
        })),
      );
    });
    await expectRowsCurrent(ids);
    await expectReadAsSearched(ids);
    // The inserted sentences say "budget" most often: they are meeting a's best now.
    const best = (await moments([a], 'budget', 3, true)).map((r) => (r as { idx: number }).idx);
    expect(best).toHaveLength(3);
    expect(best.every((idx) => idx >= 1000)).toBe(true);
  });

  it('holds no row for a live meeting, whose moments are searched; a meeting deleted takes its row', async () => {
    const live = await makeMeeting(t.db, { organizer: owner, isLive: true, sentences: [] });
    await t.db('meetings').where({ id: live.id }).update({ transcript_tsv: null });
    await t
      .db('sentences')
      .insert(
        sentencesOf(5, 12).map((s, i) => ({
          meeting_id: live.id,
          idx: i,
          speaker_name: s.speaker,
          speaker_id: 0,
          text: s.text,
          raw_text: s.text,
          start_time: i,
          end_time: i + 1,
        })),
      );
    expect(await t.db('best_moments').where({ meeting_id: live.id }).first()).toBeUndefined();
    const both = [live.id, ids[0]];
    await expectReadAsSearched(both);
    const found = await findMoments(
      t.db,
      both.map((id) => ({ id, transcript_url: `https://mi.example/meetings/${id}` })),
      "'budget'",
      3,
      'budget',
    );
    expect(found[0].length).toBeGreaterThan(0);
    expect(found[0].every((m) => m.meeting_id === live.id && /\*\*budgets?\*\*/.test(m.text))).toBe(true);

    const gone = await makeMeeting(t.db, { organizer: owner, sentences: sentencesOf(6, 5) });
    expect(await t.db('best_moments').where({ meeting_id: gone.id }).first()).toBeDefined();
    await t.db('meetings').where({ id: gone.id }).delete();
    expect(await t.db('best_moments').where({ meeting_id: gone.id }).first()).toBeUndefined();
  });

  it('is built by its migration for the meetings already there', async () => {
    const before = await t.db('best_moments').orderBy('meeting_id');
    expect(before.length).toBeGreaterThanOrEqual(ids.length);
    await t.db.migrate.down({ name: '20261201000000_best_moments' });
    expect(await t.db.schema.hasTable('best_moments')).toBe(false);
    await t.db.migrate.up({ name: '20261201000000_best_moments' });
    expect(await t.db('best_moments').orderBy('meeting_id')).toEqual(before);
    await expectReadAsSearched(ids);
  });
});
