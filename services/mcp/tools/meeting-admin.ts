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
import { isEmail } from '../../core/validate';
import { moveOutput, privacyOutput, resummaryOutput, revokeOutput, shareOutput, titleOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const meetingId = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  .describe('Meeting (transcript) id.');
const email = z
  .string()
  .max(254, 'at most 254 characters')
  .refine(isEmail, 'must be an email address like name@example.com');
const WHO = "Only the meeting's organizer or an admin of its team may; others get forbidden.";

const shareTool = defineTool({
  name: 'svc_share_meeting',
  title: 'Share a meeting',
  description:
    'Give people (by email, inside or outside your team) read access to one meeting, optionally for 7, 14 or 30 days (omit expiryDays for no expiry). ' +
    'At most 100 emails per call; repeated emails count once. Sharing again with an email that already has a share replaces its expiry (change: updated) ' +
    `instead of adding another: with expiryDays an open-ended share then ends, without it an expiring share no longer does. Returns success, meetingId and a table of shares (email, expires_at, change). ${WHO} ` +
    'To take access away use svc_revoke_meeting_access; to open a meeting to the whole team use svc_update_meeting_privacy.',
  input: {
    meetingId,
    emails: z
      .array(email)
      .min(1, 'at least 1 email')
      .max(SHARE_MAX_EMAILS, `at most ${SHARE_MAX_EMAILS} emails`)
      .describe('Email addresses to share with, e.g. ["ana@example.com"].'),
    expiryDays: z
      .literal([...SHARE_EXPIRY_DAYS], { error: 'must be one of 7, 14, 30 (days); omit for no expiry' })
      .optional()
      .describe('Days until the share expires: 7, 14 or 30. Omit for a share that does not expire.'),
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
    'Take back the shared access of one email address to one meeting (shares made with svc_share_meeting). Returns success, meetingId, email, ' +
    `revoked (how many active shares ended: 0 means the email had none and nothing changed) and a message. ${WHO} ` +
    'Teammates who see the meeting through its privacy keep seeing it; change that with svc_update_meeting_privacy.',
  input: { meetingId, email: email.describe('The email address whose shared access ends.') },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: revokeOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => revokeMeetingAccess(deps.db, principal, args),
});

const titleTool = defineTool({
  name: 'svc_update_meeting_title',
  title: 'Rename a meeting',
  description: `Set a meeting's title (${TITLE_LENGTH.min} to ${TITLE_LENGTH.max} characters after trimming spaces). Returns success, meetingId, title and previous_title. ${WHO}`,
  input: {
    meetingId,
    title: z
      .string()
      .trim()
      .min(TITLE_LENGTH.min, `at least ${TITLE_LENGTH.min} characters`)
      .max(TITLE_LENGTH.max, `at most ${TITLE_LENGTH.max} characters`)
      .describe('The new title, e.g. "Q3 roadmap review".'),
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
    "Set a meeting's privacy: owner (only the organizer), participants (its participants), teammatesandparticipants or teammates (the whole team), " +
    'link (anyone in the team with the link). Admins of the team, explicit shares (svc_share_meeting) and channel members (except with owner) keep access. ' +
    `Returns success, meetingId, privacy and previous_privacy. ${WHO}`,
  input: {
    meetingId,
    privacy: z.enum(PRIVACIES, { error: `must be one of ${PRIVACIES.join(', ')}` }).describe('The new privacy.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  output: privacyOutput,
  scope: 'meetings:write',
  run: (args, { principal, deps }) => updateMeetingPrivacy(deps.db, principal, args),
});

const moveTool = defineTool({
  name: 'svc_move_meeting',
  title: 'Move meetings to a channel',
  description:
    `Move 1 to ${MOVE_MAX_MEETINGS} meetings into a channel (folder) of your team; get channel ids from svc_list_channels. ` +
    'All of them move or none does: if one is not yours to manage, nothing changes. Returns success, channelId, channel_title and a table of moved ' +
    `meetings (meetingId, title, previous_channel_id). ${WHO}`,
  input: {
    meetingIds: z
      .array(meetingId)
      .min(1, 'at least 1 meeting id')
      .max(MOVE_MAX_MEETINGS, `at most ${MOVE_MAX_MEETINGS} meeting ids`)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
      .describe(`Meeting ids to move (1 to ${MOVE_MAX_MEETINGS}).`),
    channelId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .describe('Target channel id from svc_list_channels.'),
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
