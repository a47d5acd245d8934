import { createDb } from '../../../services/platform/db';
import { dbPoolConnections } from '../../../services/platform/metrics';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

/** db_pool_connections is read from the pools when scraped, so it follows what they hold. */
async function sampled(): Promise<Record<string, number>> {
  const { values } = await dbPoolConnections.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.state), v.value]));
}

describe('db_pool_connections', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('counts connections in use while a transaction holds one, and free ones after', async () => {
    await t.db.raw('select 1'); // the pool has a connection now
    const tx = await t.db.transaction();
    try {
      await tx.raw('select 1');
      expect((await sampled()).used).toBe(1);
    } finally {
      await tx.commit();
    }
    // knex hands the connection back to the pool a moment after the commit answers.
    let after = await sampled();
    for (let i = 0; i < 50 && after.used > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await sampled();
    }
    expect(after.used).toBe(0);
    expect(after.free).toBeGreaterThanOrEqual(1);
  });

  it('adds up every pool of the process and forgets a destroyed one', async () => {
    const before = await sampled();
    const other = createDb({ url: t.url, poolMax: 2 });
    await other.raw('select 1');
    expect((await sampled()).free).toBe(before.free + 1);
    await other.destroy();
    expect(await sampled()).toEqual(before);
  });
});
