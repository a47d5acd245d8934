/**
 * The demo team's meetings (services/cli/demo/meetings) as plain inserts into a test team: each
 * caption file's sentences as the caption import parses them, under the manifest's title and date,
 * so the question set (test/fixtures/questions) resolves to the stored sentence indices. Faster than
 * the demo seed, which runs every file through the transcription pipeline.
 */
import type { Knex } from 'knex';
import { makeMeeting, type TestUser } from './factory';
import { demoManifest, demoSentences } from './questions';

/** The demo meetings under `organizer`'s team: meeting id by caption file name. */
export async function insertDemoMeetings(
  db: Knex,
  organizer: TestUser,
  opts: { privacy?: string } = {},
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [file, m] of demoManifest()) {
    const { id } = await makeMeeting(db, {
      organizer,
      title: m.title,
      date: m.date,
      privacy: opts.privacy,
      sentences: demoSentences(file).map((s) => ({
        speaker: s.speaker_name,
        text: s.text,
        start: s.start_time,
        end: s.end_time,
      })),
    });
    ids.set(file, id);
  }
  return ids;
}
