/** Naming a meeting's speaker (services/core/meetings/speakers.ts). */
import { z } from 'zod';
import { renameSpeaker, SPEAKER_NAME_MAX } from '../../core/meetings';
import { isEmail } from '../../core/validate';
import { renameSpeakerOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const speaker = z.string().min(1, 'must not be empty').max(SPEAKER_NAME_MAX, `at most ${SPEAKER_NAME_MAX} characters`);

const renameSpeakerTool = defineTool({
  name: 'svc_rename_speaker',
  title: 'Name a meeting speaker',
  description:
    'Give a speaker of one meeting a name, e.g. "Speaker 2" → "Priya Shah", optionally with their email: the new name replaces the old one in the transcript, ' +
    'search moments, analytics, the meeting page, the summary and action items (owners a person set stay as set); with an email the person counts in team ' +
    'analytics and becomes a participant. `from` must be a speaker name exactly as svc_get_transcript shows it. A name another speaker of the meeting ' +
    'already has is refused (speakers are not merged). A live meeting keeps the names its source sends: rename once it has ended. Returns success, meetingId, ' +
    'speaker, previous_speaker, email, sentences (how many are now said by speaker) and action_items_owned. ' +
    "Only the meeting's organizer or an admin of its team may; others get forbidden.",
  input: {
    meetingId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .describe('Meeting (transcript) id.'),
    from: speaker.describe('The speaker\'s name as the transcript has it now, e.g. "Speaker 2".'),
    to: speaker.describe(`The new name, 1 to ${SPEAKER_NAME_MAX} characters on one line, e.g. "Priya Shah".`),
    email: z
      .string()
      .max(254, 'at most 254 characters')
      .refine(isEmail, 'must be an email address like name@example.com')
      .optional()
      .describe("The person's email, where known."),
  },
  // Not idempotent: once renamed, the same call finds `from` gone and is refused.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  output: renameSpeakerOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => renameSpeaker(deps.db, principal, args),
});

export const speakerTools: ToolDef[] = [renameSpeakerTool];
