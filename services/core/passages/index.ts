/**
 * Passages: what a meeting means, as vectors (search by meaning). How passages are cut, embedded and
 * stored; the question search that reads them is meetings/question.ts.
 */
export { embedLiveSentences, embedMeeting, vectorLiteral, WordsChangedError } from './embed';
export type { EmbedOutcome, TextEmbedder } from './embed';
export { embeddingProgress, liveMeetingsBehind, meetingsToEmbed } from './backfill';
export type { EmbeddingProgress } from './backfill';
export { ensureVectorStore, vectorIndexDdl, vectorIndexName, vectorTablesExist } from './schema';
export type { VectorSupport } from './schema';
export { passagesOf, PASSAGE_CHARS, PASSAGE_SENTENCES } from './windows';
export type { Passage } from './windows';
export { ensureModelIndex, startMeaningSearch } from './startup';
export type { MeaningSearch } from './startup';
