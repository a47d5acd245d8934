/** Meetings: lists and the svc_search grammar, reads (transcripts, summaries), and what an owner or admin changes (share, title, privacy, move). What other layers may import of this domain. */
export * from './records';
export * from './list';
export * from './grammar';
export * from './filters';
export * from './list-sql';
export * from './list-plan';
export * from './tsquery';
export * from './transcripts';
export * from './admin';
export * from './participants';
export * from './timeline';
export * from './deletion';
export * from './moments';
export * from './transcript-matches';
