/** Recordings and caption files as the worker receives them: download, detection, duration. */
export {
  fetchMedia,
  fetchMediaToFile,
  type FetchedFile,
  mediaDuration,
  fileNameFor,
  type FetchedMedia,
  type MediaFetchConfig,
} from './fetch';
export { sniffMedia, type MediaKind, type Sniffed } from './sniff';
export {
  requireFfmpeg,
  probeMedia,
  extractAudio,
  cutWav,
  parseSilences,
  UnreadableMediaError,
  FfmpegMissingError,
  ASR_BYTES_PER_SECOND,
  WAV_HEADER_BYTES,
  type MediaProbe,
  type Silence,
} from './ffmpeg';
export { readPcm } from './pcm';
