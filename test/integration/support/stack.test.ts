import { Connection } from '@temporalio/client';
import { createTestDatabase } from '../../support/testDb';

describe('test stack', () => {
  it('gives each test file its own migrated database', async () => {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    try {
      expect(a.name).not.toBe(b.name);
      await a.db('teams').insert({ id: 't1', name: 'A', tier: 'free' });
      expect(await b.db('teams').count({ n: '*' })).toEqual([{ n: '0' }]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it('reaches a real Temporal server', async () => {
    const conn = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const info = await conn.workflowService.getSystemInfo({});
      expect(info.serverVersion).toMatch(/^\d+\.\d+/);
    } finally {
      await conn.close();
    }
  });
});
