/** Recordings and caption files as the worker receives them: download, detection, duration. */
export { fetchMedia, mediaDuration, fileNameFor, type FetchedMedia, type MediaFetchConfig } from './fetch';
export { sniffMedia, type MediaKind, type Sniffed } from './sniff';
