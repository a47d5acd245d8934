import { z } from 'zod';
import {
  createSoundbite,
  listSoundbites,
  MEDIA_TYPES,
  SOUNDBITE_LIST,
  SOUNDBITE_NAME_MAX,
  SOUNDBITE_PRIVACIES,
  SOUNDBITE_SUMMARY_MAX,
  SoundbiteList,
} from '../../core/soundbites';
import { clock } from '../format';
import { soundbiteListOutput, soundbiteOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const meetingId = z.string().min(1, 'must not be empty').max(64, 'at most 64 characters');

function listText(l: SoundbiteList): string {
  if (l.soundbites.length === 0) return 'No soundbites.';
  const lines = l.soundbites.map(
    (s) =>
      `${s.name} [${clock(s.start_time)} - ${clock(s.end_time)}] of "${s.meeting_title}" (${s.media_type}; ${s.privacies}) id ${s.id} ${s.share_url}` +
      (s.summary ? `\n  ${s.summary}` : ''),
  );
  if (l.has_more) lines.push(`(more: call again with skip ${l.next_skip})`);
  return lines.join('\n');
}

const getSoundbitesTool = defineTool({
  name: 'svc_get_soundbites',
  title: 'List soundbites',
  description:
    'Soundbites (named clips) you can see, newest first. Give at least one of transcript_id, mine, my_team; they narrow together.',
  input: {
    transcript_id: meetingId.optional().describe('Meeting id.'),
    mine: z.boolean().optional().describe('Ones you made.'),
    my_team: z.boolean().optional().describe("Your team's."),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(SOUNDBITE_LIST.maxLimit, `at most ${SOUNDBITE_LIST.maxLimit}`)
      .optional()
      .describe(`Default ${SOUNDBITE_LIST.defaultLimit}.`),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .optional()
      .describe('next_skip of the previous page.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: soundbiteListOutput,
  scope: 'meetings:read',
  formats: true,
  run: (args, { principal, deps }) => listSoundbites(deps.db, deps.config, principal, args),
  text: listText,
});

const createSoundbiteTool = defineTool({
  name: 'svc_create_soundbite',
  title: 'Create a soundbite',
  description:
    'Clip startTime to endTime (seconds, within the meeting) as a soundbite; name defaults to the first words spoken in it. ' +
    'Allowed to whoever may write to the meeting. Returns it with its share_url.',
  input: {
    transcriptId: meetingId.describe('Meeting id.'),
    startTime: z.number().min(0, 'must be 0 or more (seconds)'),
    endTime: z.number().gt(0, 'must be greater than 0 (seconds)').describe('After startTime.'),
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty; omit it for a name from the clip')
      .max(SOUNDBITE_NAME_MAX, `at most ${SOUNDBITE_NAME_MAX} characters`)
      .optional(),
    mediaType: z.enum(MEDIA_TYPES, { error: 'must be audio or video' }).optional().describe('Default audio.'),
    privacies: z
      .array(z.enum(SOUNDBITE_PRIVACIES, { error: 'must be public, team or participants' }))
      .min(1, 'at least one of public, team, participants; omit for team')
      .max(3, 'at most 3 values')
      .optional()
      .describe('Who may see it (default team).'),
    summary: z.string().max(SOUNDBITE_SUMMARY_MAX, `at most ${SOUNDBITE_SUMMARY_MAX} characters`).optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  output: soundbiteOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => createSoundbite(deps.db, deps.config, principal, args),
});

export const soundbiteTools: ToolDef[] = [getSoundbitesTool, createSoundbiteTool];
