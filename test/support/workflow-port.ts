/**
 * A workflow port (services/core/ports/workflows.ts) that records the re-summaries and re-embeddings it
 * is asked to start and starts nothing: for tests of who may ask, where no worker runs. Any other start
 * is a test bug.
 */
import type { WorkflowPort } from '../../services/core/ports';

export function recordingWorkflows(): WorkflowPort & {
  resummaries: { meetingId: string; requestedBy: string | null }[];
  embeddings: string[];
} {
  const resummaries: { meetingId: string; requestedBy: string | null }[] = [];
  const embeddings: string[] = [];
  const unexpected = async (): Promise<never> => {
    throw new Error('this test starts no workflow but re-summaries and re-embeddings');
  };
  return {
    resummaries,
    embeddings,
    startResummary: async (input) => {
      resummaries.push(input);
      return 'started';
    },
    startEmbedding: async (meetingId) => {
      embeddings.push(meetingId);
      return 'started';
    },
    startTranscription: unexpected,
    startLiveMeeting: unexpected,
    updateLiveMeeting: unexpected,
    redeliverWebhook: unexpected,
  };
}
