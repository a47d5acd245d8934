/**
 * svc_get_user_contacts pages like the other offset lists (svc_get_transcripts, svc_get_soundbites):
 * limit, skip, has_more and next_skip. More than 200 contacts are all reachable, each exactly once.
 */
import { CONTACT_LIST_CAP } from '../../../services/core/people';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

const TOTAL = 513;

describe('svc_get_user_contacts paging', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let host: TestUser;
  let all: string[];

  beforeAll(async () => {
    t = await createTestDatabase();
    host = await makeUser(t.db, await makeTeam(t.db));
    // Nine meetings on nine days, 57 guests each: the newest meeting's guests are met most recently.
    for (let d = 0; d < 9; d++) {
      const participants = Array.from({ length: TOTAL / 9 }, (_, i) => ({
        email: `g${String(d).padStart(2, '0')}-${String(i).padStart(3, '0')}@crowd.test`,
      }));
      await makeMeeting(t.db, {
        organizer: host,
        date: `2026-10-${String(d + 1).padStart(2, '0')}T10:00:00Z`,
        participants,
      });
    }
    all = Array.from({ length: 9 }, (_, d) => 8 - d).flatMap((d) =>
      Array.from(
        { length: TOTAL / 9 },
        (_, i) => `g${String(d).padStart(2, '0')}-${String(i).padStart(3, '0')}@crowd.test`,
      ),
    );
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  async function walk(args: Record<string, unknown>, format = 'json') {
    const seen: string[] = [];
    let skip: number | undefined;
    let pages = 0;
    for (;;) {
      const res = await mcp.call(host.key, 'svc_get_user_contacts', {
        ...args,
        format,
        ...(skip !== undefined ? { skip } : {}),
      });
      expect(res.isError).toBe(false);
      pages++;
      seen.push(...res.data.contacts.map((c: { email: string }) => c.email));
      if (!res.data.has_more) {
        expect(res.data.next_skip).toBeNull();
        break;
      }
      expect(res.data.next_skip).toBe(seen.length);
      skip = res.data.next_skip;
    }
    return { seen, pages };
  }

  it(`reaches all ${TOTAL} contacts, each exactly once, in ${CONTACT_LIST_CAP}-contact pages by default`, async () => {
    const { seen, pages } = await walk({});
    expect(pages).toBe(Math.ceil(TOTAL / CONTACT_LIST_CAP));
    expect(new Set(seen).size).toBe(TOTAL);
    expect(seen).toEqual(all);
  });

  it('pages with a smaller limit, in TOON too, to the same list', async () => {
    const json = await walk({ limit: 37 });
    expect(json.pages).toBe(Math.ceil(TOTAL / 37));
    expect(json.seen).toEqual(all);
    const toon = await walk({ limit: 100 }, 'toon');
    expect(toon.seen).toEqual(all);
  });

  it('past the end is an empty page; bad limit and skip are refused naming the field', async () => {
    const past = await mcp.call(host.key, 'svc_get_user_contacts', { skip: TOTAL + 5, format: 'json' });
    expect(past.data).toEqual({ contacts: [], has_more: false, next_skip: null });
    for (const [field, value] of [
      ['limit', 0],
      ['limit', CONTACT_LIST_CAP + 1],
      ['limit', 2.5],
      ['skip', -1],
      ['skip', 1.5],
    ] as const) {
      const bad = await mcp.call(host.key, 'svc_get_user_contacts', { [field]: value });
      expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field });
    }
  });
});
