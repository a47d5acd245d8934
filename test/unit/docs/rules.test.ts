/** docs/rules.md, the automation rules' reference, stays true to the schema and the limits. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, extendSchema, parse, validate } from 'graphql';
import { CONDITION_TYPES, ACTION_TYPES, RULE_LIMITS, checkRuleInput } from '../../../services/core/rules/validation';
import { typeDefs } from '../../../services/graphql/schema';
import { rulesModule } from '../../../services/graphql/modules/rules';
import { MEETING_TYPES } from '../../../services/intelligence/summarize/types';

const section = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'rules.md'), 'utf8');

describe('docs/rules.md: Automation rules', () => {
  it('has the section', () => {
    expect(section).toMatch(/^# Automation rules\n/);
    expect(section.length).toBeGreaterThan(500);
  });

  it('its example mutation is valid against the schema, and the rule it saves passes the checks', () => {
    const example = /```graphql\n([\s\S]*?)```/.exec(section)![1];
    const schema = extendSchema(buildSchema(typeDefs), parse(rulesModule.typeDefs));
    expect(validate(schema, parse(example)).map((e) => e.message)).toEqual([]);
    expect(() =>
      checkRuleInput({
        name: 'Board meetings',
        conditions: [{ type: 'title_contains', text: 'Board' }],
        actions: [
          { type: 'share', emails: ['x@y.example'], expiry_days: 7 },
          { type: 'move', channel_id: '01JD4Q9C3V6F2M8B0X1T5R7K9H' },
          { type: 'privacy', privacy: 'teammates' },
        ],
      }),
    ).not.toThrow();
  });

  it('lists every condition type, action type and meeting type, and the limits', () => {
    for (const t of [...CONDITION_TYPES, ...ACTION_TYPES, ...MEETING_TYPES]) expect(section).toContain(`\`${t}\``);
    expect(section).toContain(`(1–${RULE_LIMITS.textMax})`);
    expect(section).toContain(`0–${RULE_LIMITS.conditionsMax} conditions`);
    expect(section).toContain(`1–${RULE_LIMITS.actionsMax} actions`);
    expect(section).toContain(`at most ${RULE_LIMITS.rulesPerTeam} rules`);
    expect(section).toContain(`\`name\` (1–${RULE_LIMITS.nameMax})`);
  });

  it('lists exactly the enums of the GraphQL schema', () => {
    const schema = extendSchema(buildSchema(typeDefs), parse(rulesModule.typeDefs));
    const values = (name: string) =>
      (schema.getType(name) as unknown as { getValues(): { name: string }[] }).getValues().map((v) => v.name);
    expect(values('RuleConditionType')).toEqual([...CONDITION_TYPES]);
    expect(values('RuleActionType')).toEqual([...ACTION_TYPES]);
  });
});
