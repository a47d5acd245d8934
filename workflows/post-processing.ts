/**
 * What runs after a transcript is persisted (DESIGN flow 2): each entry becomes a child workflow
 * started with parent-close policy ABANDON, so a slow webhook consumer never holds the transcription
 * run open and the children outlive it.
 *
 * >>> HOOK FOR THE NEXT ISSUES <<<
 * Empty for now. The automation issue adds RuleExecutionWorkflow (one per meeting); the webhook issue
 * adds one WebhookDeliveryWorkflow per target (the upload's own webhook, the owner's saved webhook,
 * the team-wide webhook). Add an entry per child below; keep workflow ids derived from the meeting id
 * so a replayed or retried run never starts a child twice.
 *
 * Deterministic code only (this file runs inside the workflow sandbox).
 */
export interface PostProcessingInput {
  meetingId: string;
}

export interface PostProcessingChild {
  /** Registered workflow type name, e.g. 'RuleExecutionWorkflow'. */
  workflowType: string;
  /** Stable per meeting (and per target), e.g. `rules-${meetingId}`. */
  workflowId: string;
  args: unknown[];
}

export type PostProcessingStep = (input: PostProcessingInput) => PostProcessingChild[];

/** The post-processing steps, in start order. */
export const POST_PROCESSING: PostProcessingStep[] = [
  // (input) => [{ workflowType: 'RuleExecutionWorkflow', workflowId: `rules-${input.meetingId}`, args: [input] }],
  // (input) => webhookTargets(input).map(...)  -- WebhookDeliveryWorkflow per target
];

export function postProcessingChildren(input: PostProcessingInput, steps: PostProcessingStep[] = POST_PROCESSING): PostProcessingChild[] {
  return steps.flatMap((step) => step(input));
}
