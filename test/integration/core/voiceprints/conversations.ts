/**
 * What the voiceprint suites that upload espeak-ng conversations share: the rig and its worker's
 * settings, the conversations, and which names the transcript gave each voice.
 */
import { espeakConversation } from '../../../support/conversations';
import type { Turn } from '../../../support/der';
import { makeUser, type TestUser } from '../../../support/factory';
import { startMcp, type McpHarness } from '../../../support/mcp';
import { startRecordingRig, type RecordingRig } from '../ingest/rig';

/** Recordings of one chunk: nothing to link, so each speaker's voice is that of one diarization. */
export const ENV = { ASR_URL: '', DIARIZATION: 'auto', ASR_CHUNK_MAX_SECONDS: '60', SPEECH_RECOGNIZERS: '1' };
/** Two voices (alex, then bea) over six turns; each seed other sentences in another order. */
export const conversation = (seed: number) => espeakConversation(2, seed, 6);

export interface Said {
  speaker_name: string;
  start_time: number;
  end_time: number;
}

/** The speaker names given to the sentences said by `voice` (the turn each sentence overlaps most). */
export function namesOf(sentences: Said[], turns: Turn[], voice: string): Set<string> {
  const out = new Set<string>();
  for (const s of sentences) {
    let best: { voice: string; shared: number } | null = null;
    for (const t of turns) {
      const shared = Math.min(s.end_time, t.end) - Math.max(s.start_time, t.start);
      if (shared > 0 && (!best || shared > best.shared)) best = { voice: t.speaker, shared };
    }
    if (best?.voice === voice) out.add(s.speaker_name);
  }
  return out;
}

export interface VoiceprintRig {
  rig: RecordingRig;
  /** An admin of the owner's team (turns voiceprints on, forgets profiles). */
  admin: TestUser;
  mcp: McpHarness;
  close(): Promise<void>;
}

/** An upload rig whose worker transcribes and diarizes itself, an admin beside its owner, and MCP. */
export async function startVoiceprintRig(queue: string): Promise<VoiceprintRig> {
  const rig = await startRecordingRig({ queue, ownerName: 'Olivia Owner', workerEnv: ENV });
  const team = await rig.t.db('teams').where({ id: rig.owner.teamId }).first();
  const admin = await makeUser(rig.t.db, team, { role: 'admin', name: 'Ada Admin' });
  const mcp = await startMcp(rig.t.db);
  return {
    rig,
    admin,
    mcp,
    close: async () => {
      await mcp.close();
      await rig.close();
    },
  };
}
