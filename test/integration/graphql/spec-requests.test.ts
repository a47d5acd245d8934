/**
 * Requests written as the public API this service mirrors documents them are accepted. uploadAudio's
 * documented request declares `$input: AudioUploadInput` (nullable): the schema's argument is
 * nullable, so that request and one declaring `AudioUploadInput!` both pass GraphQL's validation, and
 * an absent or null input is refused by the resolver as args_required naming `input`, storing nothing.
 */
import { createTestDatabase, TestDatabase, testTaskQueue } from '../../support/testDb';
import { makeTeam, makeUser, TestUser } from '../../support/factory';
import { GraphqlHarness, startGraphql } from '../../support/graphql';
import { transcriptionWorkflowId } from '../../../workflows/contracts';

const SPEC_UPLOAD = 'mutation($input: AudioUploadInput) { uploadAudio(input: $input) { success title message } }';
const STRICT_UPLOAD =
  'mutation Upload($input: AudioUploadInput!) { uploadAudio(input: $input) { success title message } }';

describe("GraphQL accepts the public API's documented requests", () => {
  let t: TestDatabase;
  let gql: GraphqlHarness;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    user = await makeUser(t.db, await makeTeam(t.db));
    gql = await startGraphql(t.db, {
      TEMPORAL_TASK_QUEUE: testTaskQueue('gql-spec-requests'),
      GRAPHQL_INTROSPECTION: 'true',
    });
  });
  afterAll(async () => {
    // No worker polls this queue: end the runs the accepted uploads started.
    const ids = (await t?.db('meetings').select('id')) ?? [];
    await Promise.all(
      ids.map(({ id }) =>
        gql.temporal.workflow
          .getHandle(transcriptionWorkflowId(id))
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await gql?.close();
    await t?.drop();
  });

  const meetings = async () => Number((await t.db('meetings').count({ n: '*' }))[0].n);

  it('uploadAudio as the spec writes it: `$input: AudioUploadInput`', async () => {
    const res = await gql.request(user.key, SPEC_UPLOAD, {
      input: {
        url: 'https://media.example.com/spec/weekly.mp3',
        title: 'Spec upload',
        webhook: 'https://hooks.example.com/spec',
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body.data.uploadAudio).toMatchObject({ success: true, title: 'Spec upload' });
  });

  it('uploadAudio with `$input: AudioUploadInput!` is accepted too', async () => {
    const res = await gql.request(user.key, STRICT_UPLOAD, {
      input: { url: 'https://media.example.com/spec/strict.mp3', title: 'Strict upload' },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.uploadAudio).toMatchObject({ success: true, title: 'Strict upload' });
  });

  it.each([
    ['no variables', SPEC_UPLOAD, undefined],
    ['input null', SPEC_UPLOAD, { input: null }],
    ['no input argument', 'mutation { uploadAudio { success } }', undefined],
    ['input: null inline', 'mutation { uploadAudio(input: null) { success } }', undefined],
  ])('uploadAudio with %s is refused as args_required naming input, storing nothing', async (...row) => {
    const [, query, variables] = row as [string, string, Record<string, unknown> | undefined];
    const before = await meetings();
    const res = await gql.request(user.key, query, variables);
    expect(res.body.data?.uploadAudio ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toEqual({ code: 'args_required', field: 'input', rule: 'required' });
    expect(res.body.errors![0].message).toMatch(/^input is required/);
    expect(await meetings()).toBe(before);
  });

  it('the schema declares the argument nullable, as the public API does', async () => {
    const res = await gql.request(
      user.key,
      '{ __schema { mutationType { fields { name args { name type { kind name } } } } } }',
    );
    const upload = res.body.data.__schema.mutationType.fields.find((f: { name: string }) => f.name === 'uploadAudio');
    expect(upload.args).toEqual([{ name: 'input', type: { kind: 'INPUT_OBJECT', name: 'AudioUploadInput' } }]);
  });
});
