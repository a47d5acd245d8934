/**
 * What runs after a transcript is persisted (docs/architecture.md, the path of an upload): each
 * entry becomes a child workflow started with parent-close policy ABANDON, so a slow webhook consumer
 * never holds the transcription run open and the children outlive it.
 *
 * From a workflow, call `startPostProcessing(meetingId)` (TranscriptionWorkflow and LiveMeetingWorkflow
 * both do): it first runs the `prepareWebhookDeliveries` activity, because webhook targets come
 * from the database (the upload's own webhook, the owner's saved webhook, the team-wide webhook: each
 * recorded once in the ledger), then starts every child of the list below, in order. Children are
 * started with WorkflowIdReusePolicy REJECT_DUPLICATE and ids derived from the meeting (and target), so
 * a replayed or retried run never starts a child twice; one that exists already is skipped.
 *
 * THE LIST: add one step per kind of child to POST_PROCESSING (a pure function of the input).
 *   - automation rules: RuleExecutionWorkflow, `rules-<meetingId>` (workflows/rule-execution.ts);
 *   - webhooks: WebhookDeliveryWorkflow per prepared target, `webhook-<meetingId>-<target>`
 *     (workflows/webhook-delivery.ts), after the rules;
 *   - search by meaning: EmbeddingWorkflow, `embed-<meetingId>` (workflows/embedding.ts), behind a patch.
 * After a failed transcription, FAILURE_NOTIFICATION: the webhooks alone (meeting.failed).
 *
 * Deterministic code only (this file runs inside the workflow sandbox).
 */
import { log, patched, proxyActivities, startChild, type ActivityOptions } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PreparedDelivery, WebhookActivities } from './activities/webhooks';
import {
  EMBEDDING_WORKFLOW,
  embeddingWorkflowId,
  FAILURE,
  RULE_EXECUTION_WORKFLOW,
  ruleExecutionWorkflowId,
  WEBHOOK_DELIVERY_WORKFLOW,
} from './contracts';
import type { EmbeddingInput } from './embedding';
import type { RuleExecutionInput } from './rule-execution';

export interface PostProcessingInput {
  meetingId: string;
  /** The meeting's webhook deliveries, prepared from the database by startPostProcessing (none when absent). */
  webhooks?: PreparedDelivery[];
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
  // Automation rules: RuleExecutionWorkflow, workflow id rules-<meetingId> (workflows/rule-execution.ts).
  (input) => [ruleExecutionChild(input)],
  // Webhooks: one WebhookDeliveryWorkflow per prepared target (workflows/webhook-delivery.ts).
  (input) => webhookDeliveryChildren(input),
];

/**
 * Steps added after a release: each behind its patch id, so a run that started before the step existed
 * replays as it ran (Temporal's patched(); never remove or rename an entry while such runs may exist).
 */
export const PATCHED_POST_PROCESSING: { patch: string; step: PostProcessingStep }[] = [
  // Search by meaning: EmbeddingWorkflow, workflow id embed-<meetingId> (workflows/embedding.ts).
  { patch: 'post-processing-embedding', step: (input) => [embeddingChild(input)] },
];

/** After a failed transcription: the webhooks subscribed to meeting.failed, no rules (there is no transcript to act on). */
export const FAILURE_NOTIFICATION: PostProcessingStep[] = [(input) => webhookDeliveryChildren(input)];

export function postProcessingChildren(
  input: PostProcessingInput,
  steps: PostProcessingStep[] = POST_PROCESSING,
): PostProcessingChild[] {
  return steps.flatMap((step) => step(input));
}

/** One WebhookDeliveryWorkflow per prepared delivery, in target order (upload, owner, team). */
export function webhookDeliveryChildren(input: PostProcessingInput): PostProcessingChild[] {
  return (input.webhooks ?? []).map((d) => ({
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    workflowId: d.workflowId,
    args: [d.input],
  }));
}

/** The meeting's automation rules: one RuleExecutionWorkflow, its id derived from the meeting. */
export function ruleExecutionChild(input: PostProcessingInput): PostProcessingChild {
  const args: [RuleExecutionInput] = [{ meetingId: input.meetingId }];
  return { workflowType: RULE_EXECUTION_WORKFLOW, workflowId: ruleExecutionWorkflowId(input.meetingId), args };
}

/** The meeting's passages embedded for search by meaning: one EmbeddingWorkflow, its id derived from the meeting. */
export function embeddingChild(input: PostProcessingInput): PostProcessingChild {
  const args: [EmbeddingInput] = [{ meetingId: input.meetingId }];
  return { workflowType: EMBEDDING_WORKFLOW, workflowId: embeddingWorkflowId(input.meetingId), args };
}

/** The webhook targets come from the database; retried generously (a database blip must not lose them). */
export const PREPARE_WEBHOOKS_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 30,
    nonRetryableErrorTypes: [FAILURE.badInput, FAILURE.meetingGone],
  },
};
const { prepareWebhookDeliveries } =
  proxyActivities<Pick<WebhookActivities, 'prepareWebhookDeliveries'>>(PREPARE_WEBHOOKS_OPTIONS);

/**
 * Prepare the meeting's webhook deliveries and start every post-processing child (ABANDON). Returns
 * the workflow ids of the children, including any that a previous run had already started.
 */
export async function startPostProcessing(
  meetingId: string,
  steps: PostProcessingStep[] = POST_PROCESSING,
): Promise<string[]> {
  const webhooks = await prepareWebhookDeliveries({ meetingId });
  if (steps === POST_PROCESSING) {
    steps = [...steps, ...PATCHED_POST_PROCESSING.filter((p) => patched(p.patch)).map((p) => p.step)];
  }
  return startChildren(meetingId, postProcessingChildren({ meetingId, webhooks }, steps));
}

/** Start each child (ABANDON, never twice: one that exists already is skipped); their workflow ids. */
export async function startChildren(meetingId: string, children: PostProcessingChild[]): Promise<string[]> {
  const ids: string[] = [];
  for (const child of children) {
    try {
      await startChild(child.workflowType, {
        workflowId: child.workflowId,
        args: child.args,
        parentClosePolicy: 'ABANDON',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
      log.info('post-processing child exists already', { meetingId, workflowId: child.workflowId });
    }
    ids.push(child.workflowId);
  }
  return ids;
}
