import { z } from 'zod';
import {
  moveMeetings,
  MOVE_MAX_MEETINGS,
  PRIVACIES,
  revokeMeetingAccess,
  SHARE_EXPIRY_DAYS,
  SHARE_MAX_EMAILS,
  shareMeeting,
  TITLE_LENGTH,
  updateMeetingPrivacy,
  updateMeetingTitle,
} from '../../core/meetings';
import { requestResummary } from '../../core/summaries';
import { isEmail } from '../../core/input';
import { moveOutput, privacyOutput, resummaryOutput, revokeOutput, shareOutput, titleOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const meetingId = z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').describe('Meeting id.');
const email = z
  .string()
  .max(254, 'at most 254 characters')
  .refine(isEmail, 'must be an email address like name@example.com');
const WHO = "Only the meeting's organizer or a team admin may.";

const shareTool = defineTool({
  name: 'svc_share_meeting',
  title: 'Share a meeting',
  description:
    'Give people (any email) read access to one meeting, for 7, 14 or 30 days or without expiry. Sharing again with an email ' +
    `replaces its expiry (change: updated). ${WHO} Take access back: svc_revoke_meeting_access; open to the team: svc_update_meeting_privacy.`,
  input: {
    meetingId,
    emails: z
      .array(email)
      .min(1, 'at least 1 email')
      .max(SHARE_MAX_EMAILS, `at most ${SHARE_MAX_EMAILS} emails`)
      .describe('Repeats count once.'),
    expiryDays: z
      .literal([...SHARE_EXPIRY_DAYS], { error: 'must be one of 7, 14, 30 (days); omit for no expiry' })
      .optional()
      .describe('Omit for no expiry.'),
  },
  // Destructive: sharing again replaces an existing share's expiry (an open-ended share can be made to end).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: shareOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => shareMeeting(deps.db, principal, args),
});

const revokeTool = defineTool({
  name: 'svc_revoke_meeting_access',
  title: 'Revoke shared access',
  description:
    'End the shares of one email on one meeting (revoked 0: it had none). Teammates who see it through its privacy keep seeing it. ' +
    WHO,
  input: { meetingId, email },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: revokeOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => revokeMeetingAccess(deps.db, principal, args),
});

const titleTool = defineTool({
  name: 'svc_update_meeting_title',
  title: 'Rename a meeting',
  description: `Rename a meeting (${TITLE_LENGTH.min} to ${TITLE_LENGTH.max} characters after trimming). ${WHO}`,
  input: {
    meetingId,
    title: z
      .string()
      .trim()
      .min(TITLE_LENGTH.min, `at least ${TITLE_LENGTH.min} characters`)
      .max(TITLE_LENGTH.max, `at most ${TITLE_LENGTH.max} characters`),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: titleOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => updateMeetingTitle(deps.db, principal, args),
});

const privacyTool = defineTool({
  name: 'svc_update_meeting_privacy',
  title: 'Change who can see a meeting',
  description:
    'Who sees a meeting: owner (organizer only), participants, teammatesandparticipants or teammates (the team), link (the team, with ' +
    `the link). Admins, shares and channel members (except with owner) keep access. ${WHO}`,
  input: {
    meetingId,
    privacy: z.enum(PRIVACIES, { error: `must be one of ${PRIVACIES.join(', ')}` }),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: privacyOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => updateMeetingPrivacy(deps.db, principal, args),
});

const moveTool = defineTool({
  name: 'svc_move_meeting',
  title: 'Move meetings to a channel',
  description: `Move meetings into a channel of your team: all of them or, if one is not yours to manage, none. ${WHO}`,
  input: {
    meetingIds: z
      .array(meetingId)
      .min(1, 'at least 1 meeting id')
      .max(MOVE_MAX_MEETINGS, `at most ${MOVE_MAX_MEETINGS} meeting ids`)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id'),
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .describe('From svc_list_channels.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: moveOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => moveMeetings(deps.db, principal, args),
});

const resummarizeTool = defineTool({
  name: 'svc_resummarize_meeting',
  title: "Write a meeting's notes again",
  description:
    "Write a completed meeting's notes (summary, topics, action items, outline) again, e.g. after naming its speakers with svc_rename_speaker or once the " +
    'server has a chat model. Runs in the background: the meeting keeps its current notes until the new ones are stored (read them with svc_get_summary), ' +
    'then meeting.summarized webhooks are sent. Action items a person changed keep their changes. Returns success, meetingId, status (queued; running when a ' +
    're-summary of the meeting was running already and this call joined it), summarizer (llm or extractive) and a message. A meeting that is not completed ' +
    `is refused. ${WHO}`,
  input: { meetingId },
  // Not destructive of anything a person wrote (their action item changes stay); repeating it while one runs joins it.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  output: resummaryOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => requestResummary(deps, principal, args),
});

export const meetingAdminTools: ToolDef[] = [shareTool, revokeTool, titleTool, privacyTool, moveTool, resummarizeTool];
