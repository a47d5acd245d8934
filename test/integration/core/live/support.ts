/**
 * What the live-meeting tests share: the GraphQL operations a recorder sends, a harness with the
 * graphql role, the mcp role and a worker on the test file's own task queue, and small readers.
 */
import type { Knex } from 'knex';
import { GraphqlHarness, GraphqlResponse, startGraphql } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../../support/testDb';
import { startTestWorker, TestWorker } from '../../../support/worker';

export const START = /* GraphQL */ `
  mutation Start($input: LiveMeetingInput!) {
    startLiveMeeting(input: $input)
  }
`;

export const APPEND = /* GraphQL */ `
  mutation Append($id: ID!, $sentences: [LiveSentenceInput!]!) {
    appendLiveSentences(meetingId: $id, sentences: $sentences) {
      meetingId
      state
      appended
      replaced
      sentence_count
    }
  }
`;

export const PAUSE = /* GraphQL */ `
  mutation Pause($id: ID!) {
    pauseLiveMeeting(meetingId: $id) {
      meetingId
      state
      is_live
      sentence_count
    }
  }
`;
export const RESUME = /* GraphQL */ `
  mutation Resume($id: ID!) {
    resumeLiveMeeting(meetingId: $id) {
      meetingId
      state
      is_live
      sentence_count
    }
  }
`;
export const END = /* GraphQL */ `
  mutation End($id: ID!) {
    endLiveMeeting(meetingId: $id) {
      meetingId
      state
      is_live
      sentence_count
    }
  }
`;

export interface Said {
  speaker_name: string;
  text: string;
  start_time: number;
  end_time: number;
  chunk_id: string;
}

/** A sentence a recorder would send: chunk `c<n>`, two seconds each from n*2. */
export const said = (n: number, speaker: string, text: string): Said => ({
  speaker_name: speaker,
  text,
  start_time: n * 2,
  end_time: n * 2 + 1.5,
  chunk_id: `c${n}`,
});

export interface LiveHarness {
  t: TestDatabase;
  db: Knex;
  gql: GraphqlHarness;
  mcp: McpHarness;
  queue: string;
  workers: TestWorker[];
  startWorker(): Promise<TestWorker>;
  close(): Promise<void>;
}

export async function startLive(label: string, env: Record<string, string> = {}): Promise<LiveHarness> {
  const t = await createTestDatabase();
  const queue = testTaskQueue(label);
  const gql = await startGraphql(t.db, { TEMPORAL_TASK_QUEUE: queue, ...env });
  const mcp = await startMcp(t.db);
  const workers: TestWorker[] = [];
  const startWorker = async () => {
    const w = await startTestWorker(t.db, { taskQueue: queue, env });
    workers.push(w);
    return w;
  };
  return {
    t,
    db: t.db,
    gql,
    mcp,
    queue,
    workers,
    startWorker,
    close: async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await mcp.close();
      await gql.close();
      await t.drop();
    },
  };
}

/** The data of a successful operation; fails the test with the error otherwise. */
export function ok<T = any>(res: GraphqlResponse, field: string): T {
  if (res.body.errors) throw new Error(`${field} failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data[field];
}

/** The first error's extensions (code, field, rule) and message. */
export function refusal(res: GraphqlResponse): { code: string; field?: string; rule?: string; message: string } {
  const e = res.body.errors?.[0];
  if (!e) throw new Error(`expected a refusal, got ${JSON.stringify(res.body.data)}`);
  return { ...(e.extensions as { code: string; field?: string; rule?: string }), message: e.message };
}

/** Rows of the sentences table, in index order. */
export async function storedSentences(db: Knex, meetingId: string) {
  return db('sentences')
    .where({ meeting_id: meetingId })
    .orderBy('idx')
    .select('idx', 'chunk_id', 'speaker_name', 'speaker_id', 'text');
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
