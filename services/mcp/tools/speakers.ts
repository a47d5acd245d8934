/** Editing a meeting's transcript: naming a speaker, correcting a sentence (services/core/meetings/speakers.ts, corrections.ts). */
import { z } from 'zod';
import { correctSentence, renameSpeaker, SENTENCE_TEXT_MAX, SPEAKER_NAME_MAX } from '../../core/meetings';
import { isEmail } from '../../core/input';
import { correctSentenceOutput, renameSpeakerOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const speaker = z.string().min(1, 'must not be empty').max(SPEAKER_NAME_MAX, `at most ${SPEAKER_NAME_MAX} characters`);

const renameSpeakerTool = defineTool({
  name: 'svc_rename_speaker',
  title: 'Name a meeting speaker',
  description:
    'Name a speaker of one meeting (e.g. Speaker 2 to Priya Shah), optionally with an email (then a participant, counted in analytics): ' +
    'everywhere the meeting shows it, owners a person set stay. from is the name exactly as svc_get_transcript shows it; a name another ' +
    "speaker has is refused (no merging). A live meeting keeps its source's names until it ends. Only the organizer or a team admin may.",
  input: {
    meetingId: z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').describe('Meeting id.'),
    from: speaker,
    to: speaker.describe('One line.'),
    email: z
      .string()
      .max(254, 'at most 254 characters')
      .refine(isEmail, 'must be an email address like name@example.com')
      .optional(),
  },
  // Not idempotent: once renamed, the same call finds `from` gone and is refused.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  output: renameSpeakerOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => renameSpeaker(deps.db, principal, args),
});

const correctSentenceTool = defineTool({
  name: 'svc_correct_sentence',
  title: 'Correct a transcript sentence',
  description:
    'Replace one sentence of a completed meeting with what was said (a misheard name, a number); index as svc_get_transcript gives it. ' +
    'Search follows at once, search by meaning within seconds; notes stay until svc_resummarize_meeting. Only the organizer or a team admin may.',
  input: {
    meetingId: z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').describe('Meeting id.'),
    index: z.number().int('must be a whole number').min(0, 'must be 0 or more').describe('Sentence index.'),
    text: z
      .string()
      .min(1, 'must not be empty')
      .max(SENTENCE_TEXT_MAX, `at most ${SENTENCE_TEXT_MAX} characters`)
      .describe('The sentence as said, one line.'),
  },
  // Idempotent: the same text again changes nothing (changed: false).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: correctSentenceOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => correctSentence(deps, principal, args),
});

export const speakerTools: ToolDef[] = [renameSpeakerTool, correctSentenceTool];
