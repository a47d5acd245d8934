/**
 * One rule for the text of every string argument of every tool (core/validate's requireStorableText):
 * a NUL character or a lone UTF-16 surrogate is refused as invalid_arguments naming the field, never an
 * internal_error from the database. The table is derived from tools/list, so a new tool is covered
 * as soon as it is registered.
 */
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../support/testDb';

type Schema = {
  type?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  exclusiveMinimum?: number;
  anyOf?: Schema[];
};

const BAD = { NUL: 'a\u0000b', 'lone high surrogate': 'a\uD800b', 'lone low surrogate': '\uDC00' };

/** A value the schema accepts (or nearly), for the parameters around the one under test. */
function sample(s: Schema, id: string): unknown {
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf[0], id);
  switch (s.type) {
    case 'string':
      return id;
    case 'number':
    case 'integer':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return [sample(s.items ?? {}, id)];
    default:
      return {};
  }
}

/** Every place a string goes: [path, how to put a bad string there]. */
function stringSlots(
  props: Record<string, Schema>,
): { field: string; put(args: Record<string, unknown>, bad: string): void }[] {
  const out: { field: string; put(args: Record<string, unknown>, bad: string): void }[] = [];
  for (const [name, p] of Object.entries(props)) {
    const alts = p.anyOf ?? [p];
    for (const s of alts) {
      if (s.type === 'string') out.push({ field: name, put: (a, bad) => void (a[name] = bad) });
      if (s.type === 'array' && s.items && (s.items.type === 'string' || s.items.enum)) {
        out.push({ field: `${name}.1`, put: (a, bad) => void (a[name] = [sample(s.items!, 'x'), bad]) });
      }
      if (s.type === 'object' && s.properties) {
        for (const inner of stringSlots(s.properties)) {
          out.push({
            field: `${name}.${inner.field}`,
            put: (a, bad) => inner.put((a[name] ??= {}) as Record<string, unknown>, bad),
          });
        }
      }
    }
  }
  return out;
}

describe('string arguments: NUL characters and lone surrogates are invalid_arguments for every tool', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let meetingId: string;
  const cases: {
    tool: string;
    field: string;
    what: keyof typeof BAD;
    put: (a: Record<string, unknown>, bad: string) => void;
    base: Record<string, unknown>;
  }[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { tier: 'enterprise', flags: ['search', 'fetch'] });
    admin = await makeUser(t.db, team, { role: 'admin' });
    meetingId = (
      await makeMeeting(t.db, {
        organizer: admin,
        title: 'Text rules',
        sentences: [{ speaker: 'A', text: 'Hello there.', start: 0, end: 5 }],
      })
    ).id;
    mcp = await startMcp(t.db);
    const { tools } = await (await mcp.client(admin.key)).listTools();
    for (const tool of tools) {
      const schema = tool.inputSchema as Schema;
      const props = schema.properties ?? {};
      const base: Record<string, unknown> = {};
      for (const r of schema.required ?? []) base[r] = sample(props[r], meetingId);
      for (const slot of stringSlots(props)) {
        for (const what of Object.keys(BAD) as (keyof typeof BAD)[])
          cases.push({ tool: tool.name, field: slot.field, what, put: slot.put, base });
      }
    }
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  it('covers every listed tool that takes a string', () => {
    const names = new Set(cases.map((c) => c.tool));
    expect(names.size).toBeGreaterThanOrEqual(15);
    for (const n of [
      'svc_get_transcripts',
      'svc_search',
      'svc_share_meeting',
      'svc_create_soundbite',
      'svc_get_rule_executions',
      'svc_get_active_meetings',
    ])
      expect(names.has(n)).toBe(true);
  });

  it('answers invalid_arguments naming the field, for every tool, every string parameter, nested ones included', async () => {
    const failures: string[] = [];
    for (const { tool, field, what, put, base } of cases) {
      const args = structuredClone(base);
      put(args, BAD[what]);
      const res = await mcp.call(admin.key, tool, args);
      const err = res.data?.error;
      if (
        !res.isError ||
        err?.code !== 'invalid_arguments' ||
        err?.field !== field ||
        !/NUL|surrogate/.test(err?.message ?? '')
      ) {
        failures.push(`${tool} ${field} (${what}): ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('an ordinary value with the same parameters is not refused by the rule', async () => {
    const res = await mcp.call(admin.key, 'svc_update_meeting_title', { meetingId, title: 'Café \u{1F600} naïve' });
    expect(res.isError).toBe(false);
    expect(res.data.title).toBe('Café \u{1F600} naïve');
  });
});
