/**
 * A meeting's language: given with the upload (the meetings trigger takes custom_language as it is
 * inserted) or detected, from caption text or from the first speech. Its text search configuration
 * follows it (the 20261212000500 migration), and a meeting whose sentences were already indexed is
 * indexed again in the same statement.
 */
import type { Knex } from 'knex';

export type LanguageSource = 'given' | 'detected';

export interface MeetingLanguage {
  language: string | null;
  source: LanguageSource | null;
  /** The text search configuration its words are indexed with. */
  searchConfig: string;
}

export async function meetingLanguage(db: Knex, meetingId: string): Promise<MeetingLanguage | null> {
  const row = await db('meetings').where('id', meetingId).first('language', 'language_source', 'search_config');
  if (!row) return null;
  return { language: row.language, source: row.language_source, searchConfig: row.search_config };
}

/**
 * Record a detected language, unless the meeting already has one (a given language always wins,
 * and a detection is kept for every later step of the meeting).
 */
export async function recordDetectedLanguage(db: Knex, meetingId: string, language: string): Promise<void> {
  await db('meetings').where('id', meetingId).whereNull('language').update({ language, language_source: 'detected' });
}
