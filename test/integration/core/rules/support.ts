/** GraphQL documents and small helpers shared by the rule tests. */
import type { Knex } from 'knex';
import type { GraphqlHarness, GraphqlResponse } from '../../../support/graphql';

const RULE_FIELDS = `
  id name enabled dry_run author_id author_email created_at updated_at
  conditions { type text email domain meeting_type channel_id minutes }
  actions { type emails expiry_days channel_id privacy }
`;

export const CREATE_RULE = `mutation CreateRule($input: RuleInput!) { createRule(input: $input) { ${RULE_FIELDS} } }`;
export const UPDATE_RULE = `mutation UpdateRule($id: ID!, $input: RuleUpdateInput!) { updateRule(id: $id, input: $input) { ${RULE_FIELDS} } }`;
export const SET_RULE_ENABLED = `mutation SetRuleEnabled($id: ID!, $enabled: Boolean!) { setRuleEnabled(id: $id, enabled: $enabled) { ${RULE_FIELDS} } }`;
export const DELETE_RULE = `mutation DeleteRule($id: ID!) { deleteRule(id: $id) { success id name } }`;
export const RULES = `query Rules { rules { ${RULE_FIELDS} } }`;
export const RULE = `query Rule($id: ID!) { rule(id: $id) { ${RULE_FIELDS} } }`;
export const TEST_RULE = `mutation TestRule($ruleId: ID!, $meetingId: ID!) {
  testRule(ruleId: $ruleId, meetingId: $meetingId) {
    matched
    conditions { index type held detail }
    actions { type status error emails expiry_days channel_id privacy }
    execution { id rule_id rule_name status actions error dry_run executed_at }
  }
}`;

/** The data of a request that must succeed. */
export async function ok(
  gql: GraphqlHarness,
  key: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<any> {
  const res = await gql.request(key, query, variables);
  if (res.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(res.body.errors)}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The one error of a request that must be refused. */
export async function refusedWith(
  gql: GraphqlHarness,
  key: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<NonNullable<GraphqlResponse['body']['errors']>[number]> {
  const res = await gql.request(key, query, variables);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors![0].extensions).not.toHaveProperty('stacktrace');
  return res.body.errors![0];
}

/** Counts of the rows a refusal must leave untouched. */
export async function snapshot(db: Knex) {
  const count = async (table: string) => Number((await db(table).count({ n: '*' }))[0].n);
  return {
    rules: await count('rules'),
    executions: await count('rule_executions'),
    audit: await count('audit_log'),
    shares: await count('meeting_shares'),
  };
}
