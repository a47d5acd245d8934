/**
 * Languages: each meeting's language (given or detected), the text search configuration its words
 * are indexed with, and the re-index of meetings indexed before they had one.
 */
export { meetingLanguage, recordDetectedLanguage } from './language';
export type { LanguageSource, MeetingLanguage } from './language';
export { installDictionaries, reindexProgress, reindexStep, reindexWaiting } from './reindex';
export type { ReindexProgress, ReindexStep } from './reindex';
