/** Every workflow the worker registers (the worker bundles this file). */
export { TranscriptionWorkflow } from './transcription';
export type { TranscriptionInput, TranscriptionResult } from './transcription';
