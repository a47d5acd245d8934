/**
 * GraphQL `changes(cursor, limit)`: the same pages as svc_get_changes (one core function), paged to
 * the end, the kinds as a list, removed meetings without content, another team's never, and the
 * refusals naming their field.
 */
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { settled } from '../../support/changes';
import { deleteMeeting, updateMeetingTitle } from '../../../services/core/meetings';

const CHANGES = `query C($cursor: String, $limit: Int) {
  changes(cursor: $cursor, limit: $limit) {
    changes { meeting_id changed changed_at removed reason title dateString status privacy channel_id organizer_email duration is_live }
    phase has_more next_cursor retention_days
  }
}`;

describe('GraphQL changes', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    admin = await makeUser(t.db, team, { role: 'admin' });
    outsider = await makeUser(t.db, await makeTeam(t.db), { role: 'super_admin' });
    gql = await startGraphql(t.db);
  });

  afterAll(async () => {
    await gql?.close();
    await t?.drop();
  });

  async function follow(key: string, cursor: string | null, limit: number) {
    await settled(t.db);
    const changes = [];
    let pages = 0;
    for (;;) {
      const res = await gql.request(key, CHANGES, { cursor, limit });
      expect(res.body.errors).toBeUndefined();
      const page = res.body.data.changes;
      pages++;
      changes.push(...page.changes);
      cursor = page.next_cursor;
      if (!page.has_more) return { changes, cursor: cursor!, pages };
    }
  }

  it('pages a snapshot and then the changes to the end', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await makeMeeting(t.db, { organizer: admin, title: `Weekly ${i}` })).id);
    await makeMeeting(t.db, { organizer: outsider, title: 'Not yours', privacy: 'link' });
    const first = await follow(admin.key, null, 2);
    expect(first.pages).toBeGreaterThanOrEqual(3);
    expect(first.changes.map((c) => c.meeting_id)).toEqual(ids);
    expect(first.changes[0]).toMatchObject({ changed: ['created'], removed: false, reason: null, title: 'Weekly 0' });

    await updateMeetingTitle(t.db, admin.principal, { meetingId: ids[1], title: 'Weekly one, renamed' });
    await deleteMeeting(t.db, admin.principal, ids[3]);
    const next = await follow(admin.key, first.cursor, 2);
    expect(next.changes).toEqual([
      expect.objectContaining({ meeting_id: ids[1], changed: ['title'], title: 'Weekly one, renamed', removed: false }),
      expect.objectContaining({ meeting_id: ids[3], removed: true, reason: 'deleted', title: null, status: null }),
    ]);
    expect(next.changes[1].changed).toEqual(expect.arrayContaining(['deleted']));
    const again = await gql.request(admin.key, CHANGES, { cursor: next.cursor });
    expect(again.body.data.changes).toMatchObject({
      changes: [],
      has_more: false,
      phase: 'changes',
      retention_days: 30,
    });
  });

  it('refuses a limit out of range and a cursor not of ours, naming the field', async () => {
    for (const [vars, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 201 }, 'limit'],
      [{ cursor: 'garbage!' }, 'cursor'],
    ] as const) {
      const res = await gql.request(admin.key, CHANGES, vars);
      expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'invalid_arguments', field });
    }
    const ok = await gql.request(admin.key, CHANGES, { limit: 200 });
    expect(ok.body.errors).toBeUndefined();
  });
});
