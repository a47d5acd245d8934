/**
 * Chunked transcription's durable part: each chunk's segments as the speech server gave them (seconds
 * from the chunk's start), stored as they arrive so a run whose worker died resumes from the chunks
 * already done; and the progress a processing meeting reports (meeting_info, GraphQL). The rows go when
 * the transcript is persisted or the run fails (ingest.ts).
 */
import type { Knex } from 'knex';

export interface StoredSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
  /** The chunk-local speaker diarization gave this segment (a key of the chunk's voices). */
  voice?: number;
}

/** Chunk-local speaker → its voice embedding (diarization), for linking speakers across chunks. */
export type ChunkVoices = Record<string, number[]>;

export interface StoredChunk {
  segments: StoredSegment[];
  voices?: ChunkVoices;
}

/**
 * The segments column holds the segments alone, or, for a diarized chunk, `{ segments, voices }`
 * (rows written before diarization are plain lists and read as before).
 */
function fromColumn(value: unknown): StoredChunk {
  return Array.isArray(value) ? { segments: value as StoredSegment[] } : (value as StoredChunk);
}

export interface ChunkKey {
  meetingId: string;
  /** A digest of the chunk plan: rows of another plan (another file, other limits) are never mixed in. */
  plan: string;
  channel: number;
  index: number;
}

export async function loadChunk(db: Knex, key: ChunkKey): Promise<StoredSegment[] | undefined> {
  const row = await db('transcript_chunks')
    .where({ meeting_id: key.meetingId, plan: key.plan, channel: key.channel, chunk_index: key.index })
    .first('segments');
  return row ? fromColumn(row.segments).segments : undefined;
}

export async function saveChunk(
  db: Knex,
  key: ChunkKey,
  segments: StoredSegment[],
  voices?: ChunkVoices,
): Promise<void> {
  const value = voices ? { segments, voices } : segments;
  await db('transcript_chunks')
    .insert({
      meeting_id: key.meetingId,
      plan: key.plan,
      channel: key.channel,
      chunk_index: key.index,
      segments: JSON.stringify(value),
    })
    .onConflict(['meeting_id', 'plan', 'channel', 'chunk_index'])
    .merge(['segments']);
}

/** Every stored chunk of a plan: channel → chunk index → segments. */
export async function loadChunks(
  db: Knex,
  meetingId: string,
  plan: string,
): Promise<({ channel: number; index: number } & StoredChunk)[]> {
  const rows = await db('transcript_chunks')
    .where({ meeting_id: meetingId, plan })
    .orderBy(['channel', 'chunk_index'])
    .select('channel', 'chunk_index', 'segments');
  return rows.map((r) => ({ channel: r.channel as number, index: r.chunk_index as number, ...fromColumn(r.segments) }));
}

export async function countChunks(db: Knex, meetingId: string, plan: string): Promise<number> {
  const [{ n }] = await db('transcript_chunks').where({ meeting_id: meetingId, plan }).count({ n: '*' });
  return Number(n);
}

export interface MeetingProgress {
  stage: 'downloading' | 'downloaded' | 'transcribing' | 'analysing';
  percent: number;
  chunks_done?: number;
  chunks_total?: number;
  /** Speaker labels are per chunk when the server could not be told who spoke in earlier chunks. */
  note?: string;
  /** The speech engine and model of the transcript (meeting_info.transcribed_by). */
  transcribed_by?: {
    engine: string;
    model: string;
    language?: string;
    language_source?: 'given' | 'detected' | 'default';
  };
  /** Speakers named by voiceprints (core/voiceprints), with the cosine similarity that named them. */
  inferred_speakers?: { speaker: string; confidence: number }[];
}

/** Record where a processing meeting is; a meeting no longer processing keeps none. */
export async function setProgress(db: Knex, meetingId: string, progress: MeetingProgress): Promise<void> {
  await db('meetings')
    .where({ id: meetingId, status: 'processing' })
    .update({ progress: JSON.stringify(progress) });
}
