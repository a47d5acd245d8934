/** Every workflow the worker registers (the worker bundles this file). */
export { TranscriptionWorkflow } from './transcription';
export type { TranscriptionInput, TranscriptionResult } from './transcription';
export { RuleExecutionWorkflow } from './rule-execution';
export type { RuleExecutionInput, RuleExecutionResult } from './rule-execution';
export { LiveMeetingWorkflow } from './live-meeting';
export type { LiveMeetingWorkflowInput, LiveMeetingResult } from './live-meeting';
export { WebhookDeliveryWorkflow } from './webhook-delivery';
export type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook-delivery';
export { WebhookEventsWorkflow } from './webhook-events';
export type { WebhookEventsInput } from './webhook-events';
export { RetentionWorkflow } from './retention';
export type { RetentionInput, RetentionResult } from './retention';
export { EmbeddingBackfillWorkflow, EmbeddingWorkflow, LiveEmbeddingWorkflow } from './embedding';
export type { EmbeddingBackfillInput, EmbeddingBackfillResult, EmbeddingInput } from './embedding';
export { LanguageReindexWorkflow } from './languages';
export type { LanguageReindexInput, LanguageReindexResult } from './languages';
export { ResummaryWorkflow } from './resummary';
export type { ResummaryInput, ResummaryOutcome } from './resummary';
