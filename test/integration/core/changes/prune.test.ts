/**
 * The change log is pruned by the daily retention run (its log-pruning activity, after the read
 * audit): changes older than CHANGES_RETENTION and a day of slack go, younger ones and their
 * tombstones stay; a deletion's tombstone says who asked and why.
 */
import { createTestDatabase, TestDatabase } from '../../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { testConfig } from '../../../support/config';
import { createRetentionActivities } from '../../../../workflows/activities/retention';
import { deleteMeeting } from '../../../../services/core/meetings';
import { deleteExpiredMeetings, setTeamRetention } from '../../../../services/core/retention';

const DAY = 86_400_000;

describe('the change log over time', () => {
  let t: TestDatabase;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    admin = await makeUser(t.db, await makeTeam(t.db), { role: 'admin' });
  });
  afterAll(async () => t?.drop());

  it('keeps a tombstone of each deletion with its reason and who asked', async () => {
    const deleted = (await makeMeeting(t.db, { organizer: admin })).id;
    const expired = (await makeMeeting(t.db, { organizer: admin, date: '2020-01-06T10:00:00Z' })).id;
    await deleteMeeting(t.db, admin.principal, deleted);
    await setTeamRetention(t.db, admin.principal, 365);
    expect(await deleteExpiredMeetings(t.db, new Date(), 100)).toBe(1);
    const tombstones = await t
      .db('meeting_changes')
      .whereNotNull('reason')
      .orderBy('meeting_id')
      .select('meeting_id', 'reason', 'actor_id', 'kinds', 'team_id');
    expect(tombstones.sort((a, b) => (a.reason < b.reason ? -1 : 1))).toEqual([
      {
        meeting_id: deleted,
        reason: 'deleted',
        actor_id: admin.id,
        kinds: ['deleted', 'transcript'],
        team_id: admin.teamId,
      },
      {
        meeting_id: expired,
        reason: 'expired',
        actor_id: null,
        kinds: ['deleted', 'transcript'],
        team_id: admin.teamId,
      },
    ]);
  });

  it('is pruned by the retention run past CHANGES_RETENTION and a day', async () => {
    const config = testConfig({ CHANGES_RETENTION: '10d' });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await makeMeeting(t.db, { organizer: admin })).id);
    const now = Date.now();
    const age = async (id: string, days: number) =>
      t
        .db('meeting_changes')
        .where('meeting_id', id)
        .update({ at: new Date(now - days * DAY) });
    await age(ids[0], 11.1);
    await age(ids[1], 30);
    await age(ids[2], 10.9);
    await age(ids[3], 2);
    const steps = createRetentionActivities({ db: t.db, config });
    const r = await steps.pruneReadAuditStep({ now: new Date(now).toISOString(), batchSize: 1, budgetMs: 60_000 });
    expect(r.done).toBe(true);
    const left = new Set(
      (await t.db('meeting_changes').whereIn('meeting_id', ids).distinct('meeting_id')).map((x) => x.meeting_id),
    );
    expect(left).toEqual(new Set([ids[2], ids[3], ids[4]]));
  });
});
