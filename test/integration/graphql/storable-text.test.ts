/**
 * No NUL character and no lone UTF-16 surrogate reaches PostgreSQL through any string argument of any
 * operation. The cases are derived from the running service's own schema (introspection): every
 * string or ID leaf of every argument of every query and mutation, nested in input objects and lists,
 * sent as a variable and inline, with a NUL and with a lone surrogate. Each is refused with
 * invalid_arguments naming the path as the caller wrote it, and nothing in the database changes.
 * A new operation or argument is covered here without a line of this file.
 */
import {
  astFromValue,
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  GraphQLField,
  GraphQLInputType,
  GraphQLObjectType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  print,
} from 'graphql';
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';

const NUL = 'bad\u0000text';
const SURROGATE = 'bad\ud800text';

/** A value of `type` with only what it requires (used for the arguments and fields not under test). */
function sample(type: GraphQLInputType, depth = 0): unknown {
  if (isNonNullType(type)) return sample(type.ofType, depth);
  if (isListType(type)) return [sample(type.ofType, depth)];
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    if (depth > 4) return out;
    for (const f of Object.values(type.getFields()))
      if (isNonNullType(f.type) && f.defaultValue === undefined) out[f.name] = sample(f.type, depth + 1);
    return out;
  }
  if (isScalarType(type)) {
    if (type.name === 'Int' || type.name === 'Float') return 1;
    if (type.name === 'Boolean') return false;
    return 'x';
  }
  return null;
}

/** Every way to put `bad` in one string (or ID) leaf of a `type` value: the leaf's path suffix and the value. */
function variants(type: GraphQLInputType, bad: string, depth = 0): { suffix: string; value: unknown }[] {
  if (isNonNullType(type)) return variants(type.ofType, bad, depth);
  if (isListType(type))
    return variants(type.ofType, bad, depth).map((v) => ({ suffix: `[0]${v.suffix}`, value: [v.value] }));
  if (isScalarType(type)) return type.name === 'String' || type.name === 'ID' ? [{ suffix: '', value: bad }] : [];
  if (isInputObjectType(type) && depth <= 4) {
    const base = sample(type, depth) as Record<string, unknown>;
    return Object.values(type.getFields()).flatMap((f) =>
      variants(f.type, bad, depth + 1).map((v) => ({
        suffix: `.${f.name}${v.suffix}`,
        value: { ...base, [f.name]: v.value },
      })),
    );
  }
  return [];
}

interface Case {
  operation: string;
  field: string;
  document: string;
  variables: Record<string, unknown>;
}

/** Every (operation, string leaf) of the schema, as a request sending `bad` there, by variable or inline. */
function cases(schema: GraphQLSchema, bad: string, inline: boolean): Case[] {
  const out: Case[] = [];
  const roots: [string, GraphQLObjectType | null | undefined][] = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ];
  for (const [keyword, root] of roots) {
    for (const field of Object.values(root?.getFields() ?? {}) as GraphQLField<unknown, unknown>[]) {
      if (field.name.startsWith('__')) continue;
      for (const target of field.args) {
        for (const v of variants(target.type, bad)) {
          const values = new Map<string, unknown>();
          for (const a of field.args) {
            if (a === target) values.set(a.name, v.value);
            else if (isNonNullType(a.type) && a.defaultValue === undefined) values.set(a.name, sample(a.type));
          }
          const args = field.args.filter((a) => values.has(a.name));
          const selection = isObjectType(getNamedType(field.type)) ? ' { __typename }' : '';
          if (inline) {
            const list = args.map((a) => `${a.name}: ${print(astFromValue(values.get(a.name), a.type)!)}`).join(', ');
            out.push({
              operation: field.name,
              field: `${target.name}${v.suffix}`,
              document: `${keyword} { ${field.name}(${list})${selection} }`,
              variables: {},
            });
          } else {
            const defs = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
            const list = args.map((a) => `${a.name}: $${a.name}`).join(', ');
            out.push({
              operation: field.name,
              field: `${target.name}${v.suffix}`,
              document: `${keyword} Probe(${defs}) { ${field.name}(${list})${selection} }`,
              variables: Object.fromEntries(args.map((a) => [a.name, values.get(a.name)])),
            });
          }
        }
      }
    }
  }
  return out;
}

describe('GraphQL: no NUL characters or lone surrogates in any string argument', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let admin: TestUser;
  let schema: GraphQLSchema;
  let tables: string[];

  beforeAll(async () => {
    t = await createTestDatabase();
    admin = await makeUser(t.db, await makeTeam(t.db), { role: 'super_admin' });
    // Where keys carry scopes, this one carries all of them: the cases probe arguments, not scopes.
    if (await t.db.schema.hasColumn('api_keys', 'scopes')) {
      await t
        .db('api_keys')
        .where({ user_id: admin.id })
        .update({ scopes: t.db.raw(`array['meetings:read', 'meetings:write', 'admin']`) });
    }
    gql = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: testTaskQueue('gql-storable'),
      GRAPHQL_INTROSPECTION: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    const res = await gql.request(admin.key, getIntrospectionQuery());
    expect(res.body.errors).toBeUndefined();
    schema = buildClientSchema(res.body.data);
    const rows: { table_name: string }[] = await t
      .db('information_schema.tables')
      .where({ table_schema: 'public', table_type: 'BASE TABLE' })
      .select('table_name');
    // api_keys: authentication notes when a key was last used; rate_limit_counts: every operation is
    // counted against the key's allowance; neither is the request's doing.
    tables = rows
      .map((r) => r.table_name)
      .filter((n) => !/^knex_migrations|^api_keys$|^rate_limit_counts$/.test(n))
      .sort();
  });
  afterAll(async () => {
    await gql?.close();
    await t?.drop();
  });

  /** Every table's content, as one digest per table: equal before and after means nothing was stored. */
  async function snapshot(): Promise<Record<string, string>> {
    const sql = tables
      .map((n) => `select '${n}' as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d from "${n}" x`)
      .join(' union all ');
    const { rows } = await t.db.raw(sql);
    return Object.fromEntries(rows.map((r: { t: string; d: string }) => [r.t, r.d]));
  }

  it('the cases come from the schema and reach every module', () => {
    const fields = cases(schema, NUL, false).map((c) => `${c.operation} ${c.field}`);
    expect(fields).toEqual(
      expect.arrayContaining([
        'uploadAudio input.url',
        'uploadAudio input.attendees[0].email',
        'uploadAudio input.download_auth.basic.password',
        'transcript id',
        'transcripts organizers[0]',
        'webhookDeliveries cursor',
        'saveWebhookUrl url',
        'createRule input.actions[0].emails[0]',
        'startLiveMeeting input.attendees[0].displayName',
        'appendLiveSentences sentences[0].text',
        'pauseLiveMeeting meetingId',
      ]),
    );
  });

  for (const [name, bad] of [
    ['a NUL character', NUL],
    ['a lone surrogate', SURROGATE],
  ] as const) {
    it(`refuses ${name} in every string argument sent as a variable, naming the field, storing nothing`, async () => {
      const failures: string[] = [];
      for (const c of cases(schema, bad, false)) {
        const before = await snapshot();
        const res = await gql.request(admin.key, c.document, c.variables);
        const err = res.body.errors?.[0];
        const after = await snapshot();
        if (
          res.status !== 400 ||
          err?.extensions?.code !== 'invalid_arguments' ||
          err.extensions.field !== c.field ||
          res.body.data != null
        ) {
          failures.push(
            `${c.operation} ${c.field}: HTTP ${res.status} ${JSON.stringify(err?.extensions)} ${err?.message ?? ''}`,
          );
        }
        if (JSON.stringify(after) !== JSON.stringify(before))
          failures.push(`${c.operation} ${c.field}: stored something`);
      }
      expect(failures).toEqual([]);
    }, 180_000);
  }

  it('refuses a NUL character written inline in the document, naming the field, storing nothing', async () => {
    const failures: string[] = [];
    for (const c of cases(schema, NUL, true)) {
      const before = await snapshot();
      const res = await gql.request(admin.key, c.document);
      const err = res.body.errors?.[0];
      if (res.status !== 400 || err?.extensions?.code !== 'invalid_arguments' || err.extensions.field !== c.field) {
        failures.push(
          `${c.operation} ${c.field}: HTTP ${res.status} ${JSON.stringify(err?.extensions)} ${err?.message ?? ''}`,
        );
      }
      if (JSON.stringify(await snapshot()) !== JSON.stringify(before))
        failures.push(`${c.operation} ${c.field}: stored something`);
    }
    expect(failures).toEqual([]);
  }, 180_000);

  it('a lone surrogate written inline is not a GraphQL string at all: refused as the document', async () => {
    const c = cases(schema, SURROGATE, true).find((x) => x.operation === 'saveWebhookUrl')!;
    const before = await snapshot();
    const res = await gql.request(admin.key, c.document);
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'query' });
    expect(await snapshot()).toEqual(before);
  });

  it('a surrogate pair (an emoji) and ordinary text still pass the check', async () => {
    const res = await gql.request(admin.key, 'query Q($k: String) { transcripts(keyword: $k) { has_more } }', {
      k: 'launch 🚀 plan',
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.transcripts.has_more).toBe(false);
  });

  it('checks arguments of fields reached through fragments and aliases', async () => {
    const res = await gql.request(
      admin.key,
      'query Q($id: ID!) { ...F } fragment F on Query { ok: me { user_id } t: transcript(id: $id) { id } }',
      { id: NUL },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'id' });
    expect(res.body.data ?? null).toBeNull();
  });
});
