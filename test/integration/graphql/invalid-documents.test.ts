/**
 * Every invalid request is the client's error, never a 500: documents graphql-js refuses (fragment
 * cycles, unknown or unused fragments, unknown or mismatched variable types), the service's own limits
 * (GRAPHQL_MAX_DEPTH, also reached through fragments; GRAPHQL_MAX_QUERY_BYTES) and bodies that are not
 * a GraphQL request at all (empty document, query not a string, batches, not JSON). Each answers 4xx in
 * the usual error shape (extensions.code invalid_arguments or args_required, naming the field).
 */
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';

describe('GraphQL invalid documents and requests', () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    user = await makeUser(t.db, await makeTeam(t.db));
    gql = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: testTaskQueue('gql-invalid'),
      GRAPHQL_MAX_DEPTH: '2',
      GRAPHQL_MAX_QUERY_BYTES: '400',
    });
  });
  afterAll(async () => {
    await gql?.close();
    await t?.drop();
  });

  /** POST a raw body; answers status and the parsed JSON (it must be JSON). */
  async function post(body: string, contentType = 'application/json') {
    const res = await fetch(gql.url, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${user.key}` },
      body,
    });
    const text = await res.text();
    let json: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`not JSON (HTTP ${res.status}): ${text.slice(0, 300)}`);
    }
    return { status: res.status, body: json };
  }

  function expectClientError(res: Awaited<ReturnType<typeof post>>, expected: Record<string, unknown> = {}) {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.length).toBeGreaterThan(0);
    const codes = res.body.errors!.map((e) => e.extensions?.code);
    expect(codes).not.toContain('internal_error');
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', ...expected });
    expect(JSON.stringify(res.body)).not.toMatch(/stacktrace|\n\s+at |Maximum call stack/);
  }

  const documents: [string, string, Record<string, unknown>, RegExp?][] = [
    [
      'a fragment cycle',
      'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
      { field: 'query', rule: 'schema' },
      /Cannot spread fragment "A" within itself/,
    ],
    [
      'a fragment spreading itself',
      'query { ...A } fragment A on Query { me { user_id } ...A }',
      { field: 'query', rule: 'schema' },
      /within itself/,
    ],
    [
      'a cycle below a field',
      'query { me { ...U } } fragment U on User { ...V } fragment V on User { user_id ...U }',
      { field: 'query', rule: 'schema' },
      /within itself/,
    ],
    ['an undefined fragment', 'query { ...Nope }', { field: 'query', rule: 'schema' }, /Unknown fragment "Nope"/],
    [
      'an undefined fragment below a field',
      'query { transcript(id: "x") { ...Nope } }',
      { field: 'query', rule: 'schema' },
      /Unknown fragment "Nope"/,
    ],
    [
      'an unused fragment',
      'query { me { user_id } } fragment U on User { email }',
      { field: 'query', rule: 'schema' },
      /Fragment "U" is never used/,
    ],
    [
      'an unknown variable type',
      'query Q($x: Nope) { me { user_id } }',
      { field: 'query', rule: 'schema' },
      /Unknown type "Nope"/,
    ],
    [
      'a variable of the wrong type',
      'query Q($id: Int!) { transcript(id: $id) { id } }',
      { field: 'query', rule: 'schema' },
      /used in position expecting type "ID!"/,
    ],
    [
      'an undefined variable',
      'query Q { transcript(id: $id) { id } }',
      { field: 'query', rule: 'schema' },
      /Variable "\$id" is not defined/,
    ],
    [
      'nesting over GRAPHQL_MAX_DEPTH',
      'query Deep { transcript(id: "x") { summary { action_items { text } } } }',
      { field: 'query', rule: 'depth' },
      /exceeds maximum operation depth of 2/,
    ],
    [
      'nesting over GRAPHQL_MAX_DEPTH through fragments',
      'query Deep { transcript(id: "x") { ...S } } fragment S on Transcript { summary { ...A } } fragment A on Summary { action_items { text } }',
      { field: 'query', rule: 'depth' },
      /exceeds maximum operation depth of 2/,
    ],
    ['a syntax error', 'query { me { ', { field: 'query', rule: 'GraphQL syntax' }],
    ['an empty document', '', { field: 'query' }],
    ['a document of white space', '   ', { field: 'query' }],
    ['a document with no operation', 'fragment U on User { email }', { field: 'query' }],
  ];

  it.each(documents)('%s is refused as invalid, not a 500', async (...row) => {
    // A rest parameter: jest passes `done` to a test function declaring more parameters than a row has.
    const [, query, expected, message] = row;
    const res = await post(JSON.stringify({ query }));
    expectClientError(res, expected);
    if (message) expect(res.body.errors!.map((e) => e.message).join('\n')).toMatch(message);
  });

  it('a fragment chain within the depth limit still runs', async () => {
    const res = await post(
      JSON.stringify({ query: 'query { ...A } fragment A on Query { ...B } fragment B on Query { me { user_id } }' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ me: { user_id: user.id } });
  });

  it('a variable value of the wrong type is refused naming the variable', async () => {
    const res = await post(
      JSON.stringify({
        query: 'query Q($id: ID!) { transcript(id: $id) { id } }',
        variables: { id: { not: 'an id' } },
      }),
    );
    expectClientError(res, { field: 'id' });
    const missing = await post(JSON.stringify({ query: 'query Q($id: ID!) { transcript(id: $id) { id } }' }));
    expect(missing.status).toBe(400);
    expect(missing.body.errors![0].extensions).toMatchObject({ code: 'args_required', field: 'id' });
  });

  it('a document over GRAPHQL_MAX_QUERY_BYTES answers 413', async () => {
    const res = await post(JSON.stringify({ query: `query { me { user_id } }${' '.repeat(400)}` }));
    expect(res.status).toBe(413);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'invalid_arguments', field: 'query' });
  });

  const bodies: [string, string, string?][] = [
    ['query not a string (number)', JSON.stringify({ query: 5 })],
    ['query not a string (object)', JSON.stringify({ query: { me: true } })],
    ['query missing', JSON.stringify({ variables: {} })],
    ['variables not an object', JSON.stringify({ query: 'query { me { user_id } }', variables: 'x' })],
    ['operationName not a string', JSON.stringify({ query: 'query { me { user_id } }', operationName: 5 })],
    ['an unknown operationName', JSON.stringify({ query: 'query A { me { user_id } }', operationName: 'B' })],
    [
      'two operations without operationName',
      JSON.stringify({ query: 'query A { me { user_id } } query B { me { email } }' }),
    ],
    ['a batch array', JSON.stringify([{ query: 'query { me { user_id } }' }, { query: 'query { me { email } }' }])],
    ['an empty batch', '[]'],
    ['a JSON string body', JSON.stringify('query { me { user_id } }')],
    ['a JSON null body', 'null'],
    ['malformed JSON', '{"query": '],
    ['an empty body', ''],
    ['a text/plain body', 'query { me { user_id } }', 'text/plain'],
    ['a form body', 'query=%7B%20me%20%7B%20user_id%20%7D%20%7D', 'application/x-www-form-urlencoded'],
  ];

  it.each(bodies)('%s is a client error, not a 500', async (...row) => {
    const [, body, contentType] = row;
    const res = await post(body, contentType);
    expectClientError(res);
  });
});
