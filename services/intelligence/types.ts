/**
 * The transcript unit every intelligence step reads and writes. Field names follow the `sentences`
 * table (`index` is stored as `idx`) and the snake_case of the best-known public API of this kind.
 */
export interface Sentence {
  /** Position in the meeting, from 0, in time order. */
  index: number;
  speaker_name: string;
  /** Small integer per distinct speaker, from 0, in order of first appearance. */
  speaker_id: number;
  /** Clean text: no markup, no speaker label, single spaces. */
  text: string;
  /** The text as it appeared in the source (cue text with tags, or the ASR segment text). */
  raw_text: string;
  /** Seconds from the start of the recording. */
  start_time: number;
  end_time: number;
}

/** A downloaded media file handed to speech recognition or caption import. */
export interface MediaInput {
  bytes: Buffer;
  contentType: string;
  fileName: string;
}
