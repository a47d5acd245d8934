/**
 * The live meeting state machine (services/core/live/protocol.ts) as a table: every state against
 * every request. The workflow's update validators apply exactly this; the integration tests drive
 * the same refusals through GraphQL.
 */
import { refusal, type LiveAction, type LiveWorkflowState } from '../../../../services/core/live/protocol';

const ACTIONS: LiveAction[] = ['append', 'pause', 'resume', 'end'];

/** null: allowed; otherwise a pattern of the refusal's message. */
const TABLE: Record<LiveWorkflowState, Record<LiveAction, RegExp | null>> = {
  active: { append: null, pause: null, resume: /active, not paused/, end: null },
  paused: { append: null, pause: /already paused/, resume: null, end: null },
  ended: { append: /no more sentences/, pause: /cannot be paused/, resume: /cannot be resumed/, end: /already ended/ },
};

describe('live meeting transitions', () => {
  const cases = (Object.keys(TABLE) as LiveWorkflowState[]).flatMap((state) =>
    ACTIONS.map((action) => [state, action, TABLE[state][action]] as const),
  );
  it.each(cases)('%s + %s', (state, action, expected) => {
    const why = refusal(state, action);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });
});
