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
    'Soundbites (named clips of meetings) you can see, newest first. Give at least one filter: transcript_id (one meeting), mine: true (yours), ' +
    "my_team: true (your team's); several narrow together. One row per soundbite: id, transcript_id, meeting_title, name, start_time and end_time " +
    `(seconds), summary, media_type, privacies (comma-separated), created_at, share_url. limit up to ${SOUNDBITE_LIST.maxLimit} (default ${SOUNDBITE_LIST.defaultLimit}); ` +
    'when has_more is true, call again with skip = next_skip. To make one, use svc_create_soundbite.',
  input: {
    transcript_id: meetingId.optional().describe('Only soundbites of this meeting.'),
    mine: z.boolean().optional().describe('true: only soundbites you created.'),
    my_team: z.boolean().optional().describe('true: soundbites of your team.'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(SOUNDBITE_LIST.maxLimit, `at most ${SOUNDBITE_LIST.maxLimit}`)
      .optional()
      .describe(`How many to return, 1 to ${SOUNDBITE_LIST.maxLimit} (default ${SOUNDBITE_LIST.defaultLimit}).`),
    skip: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .optional()
      .describe('How many to skip (next_skip of the previous page).'),
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
    "Clip part of a meeting as a soundbite, from startTime to endTime in seconds (find times in svc_get_transcript's start_time/end_time). " +
    "endTime must be greater than startTime and within the meeting's length. name defaults to the first words spoken in the clip; mediaType audio (default) " +
    'or video; privacies any of public, team, participants (default team). Requires write access: the organizer, a participant, a member of its channel ' +
    'or a team admin. Returns the soundbite with its id and share_url.',
  input: {
    transcriptId: meetingId.describe('Meeting (transcript) id.'),
    startTime: z
      .number()
      .min(0, 'must be 0 or more (seconds)')
      .describe('Start of the clip, seconds from the start of the meeting.'),
    endTime: z
      .number()
      .gt(0, 'must be greater than 0 (seconds)')
      .describe('End of the clip, seconds; greater than startTime.'),
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty; omit it for a name from the clip')
      .max(SOUNDBITE_NAME_MAX, `at most ${SOUNDBITE_NAME_MAX} characters`)
      .optional()
      .describe('Name of the soundbite; default: the first words spoken in the clip.'),
    mediaType: z
      .enum(MEDIA_TYPES, { error: 'must be audio or video' })
      .optional()
      .describe('audio (default) or video.'),
    privacies: z
      .array(z.enum(SOUNDBITE_PRIVACIES, { error: 'must be public, team or participants' }))
      .min(1, 'at least one of public, team, participants; omit for team')
      .max(3, 'at most 3 values')
      .optional()
      .describe('Who may see it: any of public, team, participants (default ["team"]).'),
    summary: z
      .string()
      .max(SOUNDBITE_SUMMARY_MAX, `at most ${SOUNDBITE_SUMMARY_MAX} characters`)
      .optional()
      .describe('A short description of the clip.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  output: soundbiteOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => createSoundbite(deps.db, deps.config, principal, args),
});

export const soundbiteTools: ToolDef[] = [getSoundbitesTool, createSoundbiteTool];
