import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import {
  failureCause,
  failureMessage,
  LANGUAGE_REINDEX_WORKFLOW,
  languageReindexWorkflowId,
  LIVE_WORKFLOW,
  liveWorkflowId,
  RESUMMARY_WORKFLOW,
  resummaryWorkflowId,
  RULE_EXECUTION_WORKFLOW,
  ruleExecutionWorkflowId,
  TRANSCRIPTION_WORKFLOW,
  transcriptionWorkflowId,
  WEBHOOK_DELIVERY_WORKFLOW,
  webhookWorkflowId,
} from '../../../workflows/contracts';
import * as workflows from '../../../workflows';

describe('the workflow contract', () => {
  it('names each workflow as the worker registers it (the exported function name)', () => {
    expect(workflows.TranscriptionWorkflow.name).toBe(TRANSCRIPTION_WORKFLOW);
    expect(workflows.RuleExecutionWorkflow.name).toBe(RULE_EXECUTION_WORKFLOW);
    expect(workflows.WebhookDeliveryWorkflow.name).toBe(WEBHOOK_DELIVERY_WORKFLOW);
    expect(workflows.LiveMeetingWorkflow.name).toBe(LIVE_WORKFLOW);
    expect(workflows.ResummaryWorkflow.name).toBe(RESUMMARY_WORKFLOW);
    expect(workflows.LanguageReindexWorkflow.name).toBe(LANGUAGE_REINDEX_WORKFLOW);
  });

  it('keeps the workflow ids running workflows were started with', () => {
    expect(transcriptionWorkflowId('01ABC')).toBe('transcription-01ABC');
    expect(ruleExecutionWorkflowId('01ABC')).toBe('rules-01ABC');
    expect(webhookWorkflowId('01ABC', 'team')).toBe('webhook-01ABC-team');
    expect(liveWorkflowId('01ABC')).toBe('live-01ABC');
    expect(resummaryWorkflowId('01ABC')).toBe('resummary-01ABC');
    expect(languageReindexWorkflowId('meeting-intel')).toBe('language-reindex-meeting-intel');
  });

  const activityFailure = (cause: Error) =>
    new ActivityFailure('activity failed', 'fetchMedia', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);

  it('finds the ApplicationFailure under the failures that wrap it, and its message', () => {
    const app = ApplicationFailure.nonRetryable('the recording is not a media file', 'BadInput');
    const wrapped = activityFailure(app);
    expect(failureCause(wrapped)).toBe(app);
    expect(failureMessage(wrapped)).toBe('the recording is not a media file');
  });

  it('answers no cause for a timeout, and its innermost message, or the fallback when there is none', () => {
    const timeout = activityFailure(new TimeoutFailure('activity Heartbeat timeout', undefined, 'HEARTBEAT'));
    expect(failureCause(timeout)).toBeUndefined();
    expect(failureMessage(timeout)).toBe('activity Heartbeat timeout');
    expect(failureMessage(new Error('  '), 'transcription failed for an unknown reason')).toBe(
      'transcription failed for an unknown reason',
    );
  });
});
