/**
 * The shapes of the tools' answers (MCP outputSchema), one per tool, mirroring the records core
 * returns (core/meetings/records.ts, transcripts.ts, admin.ts, …). The server answers the record as
 * structuredContent beside the text, and clients validate it against these; the structured output
 * test calls every tool through the SDK client, so a record that drifts from its schema fails there.
 */
import { z } from 'zod';
import { TOTAL_BOUND } from '../core/meetings';

const str = z.string();
const num = z.number();
const bool = z.boolean();
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

const page = { has_more: bool.describe('More items follow this page.') };
const skipPage = {
  ...page,
  next_skip: nullable(z.number().int()).describe('Pass as skip for the next page; null on the last.'),
};

const meetingRecord = {
  id: str,
  title: str,
  dateString: str,
  date: num,
  duration: num,
  organizer_email: str,
  participants: str,
  privacy: str,
  is_live: bool,
  transcript_url: str,
};

export const meetingListOutput = {
  meetings: z.array(z.object({ ...meetingRecord, summary: nullable(str) })),
  total: num.describe('Meetings that match; exact unless total_is_lower_bound.'),
  total_is_lower_bound: bool.describe(`true: at least total meetings match (counting stops at ${TOTAL_BOUND}).`),
  ...skipPage,
  moments: z
    .array(
      z.object({
        meeting_id: str,
        index: num,
        speaker_name: str,
        start_time: num,
        text: str,
        link: str,
        title: str.optional(),
        before: str.optional(),
        after: str.optional(),
      }),
    )
    .optional()
    .describe(
      'With a keyword: matching sentences of the listed meetings, matched words **marked**, best first per meeting. ' +
        'With a question: the moments that answer it, best first, with title and the sentences before and after.',
    ),
  moments_omitted: num.optional().describe('Moments left out to keep the answer within its token budget.'),
  answered_by: z
    .enum(['meaning', 'words'])
    .optional()
    .describe('With a question: answered by meaning, or by its words alone.'),
  note: str.optional().describe('Why a question was answered by its words alone.'),
};

const summaryFields = {
  keywords: z.array(str),
  action_items: z.array(z.unknown()),
  overview: str,
  overview_lines: z
    .array(z.object({ text: str, index: num, start_time: num, link: str }).passthrough())
    .describe('The overview line by line, each with the moment it rests on.'),
  short_summary: str,
  topics_discussed: z.array(z.unknown()),
  meeting_type: nullable(str),
  outline: z.array(z.unknown()),
  notes: z.record(z.string(), str),
};

const SUMMARY_STATUS = z.enum(['processed', 'pending', 'processing', 'failed', 'unavailable']);

const transcriptPage = {
  ...meetingRecord,
  status: str,
  meeting_info: z.object({
    summary_status: SUMMARY_STATUS,
    message: str,
    progress: z
      .object({ stage: str, percent: num, chunks_done: num.optional(), chunks_total: num.optional() })
      .optional()
      .describe(
        'While processing: the stage (downloading, downloaded, transcribing, analysing), percent done, and chunks transcribed of the total.',
      ),
    transcribed_by: z
      .object({
        engine: str,
        model: str,
        language: str.optional(),
        language_source: z.enum(['given', 'detected', 'default']).optional(),
      })
      .optional()
      .describe(
        'A recording transcribed: the speech engine (embedded or openai-compatible), its model, and the language the speech was decoded in with how it was known (given with the upload, detected from the first speech, or default: the only language of the model).',
      ),
    inferred_speakers: z
      .array(z.object({ speaker: str, confidence: num }))
      .optional()
      .describe(
        "Speakers named by the team's voiceprints rather than by a person, with confidence (cosine similarity of the voices, 0 to 1).",
      ),
  }),
  meeting_analytics: nullable(
    z.object({
      duration_seconds: num,
      silence_seconds: num,
      talk_listen_ratio: nullable(num),
      positive_pct: num,
      neutral_pct: num,
      negative_pct: num,
    }),
  ),
  analytics: z.array(
    z.object({
      speaker_id: num,
      name: str,
      duration: num,
      word_count: num,
      longest_monologue: num,
      monologues_count: num,
      filler_words: num,
      questions: num,
      duration_pct: num,
      words_per_minute: num,
      positive_pct: num,
      neutral_pct: num,
      negative_pct: num,
    }),
  ),
  sentences: z.array(
    z.object({
      index: num,
      speaker_name: str,
      speaker_id: num,
      text: str,
      raw_text: nullable(str),
      start_time: num,
      end_time: num,
    }),
  ),
  has_more: bool,
  next_index: nullable(z.number().int()),
};

export const transcriptOutput = {
  ...transcriptPage,
  keyword: str
    .optional()
    .describe('With keyword: the words whose matching sentences this page holds, with their neighbours.'),
  match_count: num.optional().describe('With keyword: sentences of the whole meeting that match.'),
  matches: z
    .array(z.object({ index: num, start_time: num, link: str }))
    .optional()
    .describe('With keyword: the matching sentences of this page.'),
};
export const fetchOutput = { ...transcriptPage, summary: nullable(z.object(summaryFields)) };

/** processed: the summary fields; otherwise a message saying why there are none. */
export const summaryOutput = {
  id: str,
  title: str,
  dateString: str,
  summary_status: SUMMARY_STATUS,
  ...Object.fromEntries(Object.entries(summaryFields).map(([k, v]) => [k, v.optional()])),
  message: str.optional(),
};

export const activeMeetingsOutput = {
  meetings: z.array(
    z.object({
      id: str,
      title: str,
      organizer_email: str,
      meeting_link: nullable(str),
      start_time: str,
      end_time: nullable(str),
      privacy: str,
      state: z.enum(['active', 'paused']),
    }),
  ),
  ...page,
};

export const analyticsOutput = {
  period: z.object({ start: str, end: str, previous_start: str, previous_end: str, days: num }),
  scope: z.enum(['team', 'self']),
  team: nullable(
    z.array(z.object({ metric: str, value: nullable(num), previous: nullable(num), change_pct: nullable(num) })),
  ),
  users: z.array(z.object({ user_id: str, email: str, name: str }).catchall(nullable(num))),
  note: str.optional(),
  ...page,
  next_skip: nullable(z.number().int()).optional(),
  next_cursor: nullable(str).optional(),
};

export const shareOutput = {
  success: z.literal(true),
  meetingId: str,
  shares: z.array(z.object({ email: str, expires_at: nullable(str), change: z.enum(['added', 'updated']) })),
};
export const revokeOutput = { success: z.literal(true), meetingId: str, email: str, revoked: num, message: str };
export const titleOutput = { success: z.literal(true), meetingId: str, title: str, previous_title: str };
export const privacyOutput = { success: z.literal(true), meetingId: str, privacy: str, previous_privacy: str };
export const moveOutput = {
  success: z.literal(true),
  channelId: str,
  channel_title: str,
  moved: z.array(z.object({ meetingId: str, title: str, previous_channel_id: nullable(str) })),
};
export const renameSpeakerOutput = {
  success: z.literal(true),
  meetingId: str,
  speaker: str,
  previous_speaker: str,
  email: nullable(str),
  sentences: num,
  action_items_owned: num,
};
export const correctSentenceOutput = {
  success: z.literal(true),
  meetingId: str,
  index: num,
  text: str,
  previous_text: str,
  changed: z.boolean(),
  meaning: z.enum(['updating', 'unchanged', 'stale']),
};
export const resummaryOutput = {
  success: z.literal(true),
  meetingId: str,
  status: z.enum(['queued', 'running']),
  summarizer: z.enum(['llm', 'extractive']),
  message: str,
};

const voiceprintSetting = {
  team_id: str,
  enabled: bool,
  enabled_at: nullable(str),
  enabled_by: nullable(str),
};
export const voiceprintsOutput = { ...voiceprintSetting, profiles_deleted: num, voices_deleted: num };
const speakerProfile = z.object({
  id: str,
  name: str,
  email: nullable(str),
  voices: num,
  meetings: num,
  created_at: str,
  updated_at: str,
});
export const speakerProfilesOutput = {
  voiceprints_enabled: bool,
  profiles: z.array(speakerProfile),
  total: num,
  next_offset: nullable(num),
};
export const mergeProfilesOutput = {
  success: z.literal(true),
  profile: speakerProfile,
  merged: z.object({ id: str, name: str }),
};
export const forgetProfileOutput = { success: z.literal(true), id: str, name: str, voices_deleted: num };

export const channelListOutput = {
  channels: z.array(z.object({ id: str, title: str, is_private: bool, members: str, member_count: num })),
  ...page,
};
export const channelOutput = {
  id: str,
  title: str,
  is_private: bool,
  members: z.array(z.object({ user_id: str, email: str, name: str, role: str })),
};

const soundbite = {
  id: str,
  transcript_id: str,
  meeting_title: str,
  name: str,
  start_time: num,
  end_time: num,
  summary: nullable(str),
  media_type: str,
  privacies: str,
  created_at: str,
  share_url: str,
};
export const soundbiteOutput = soundbite;
export const soundbiteListOutput = { soundbites: z.array(z.object(soundbite)), ...skipPage };

export const userOutput = {
  user_id: str,
  email: str,
  name: str,
  num_transcripts: num,
  recent_meeting: nullable(str),
  minutes_consumed: num,
  is_admin: bool,
  integrations: str,
};
export const userGroupsOutput = {
  groups: z.array(
    z.object({
      id: str,
      name: str,
      handle: str,
      member_count: num,
      members: z.array(z.object({ email: str, name: str, role: str })),
    }),
  ),
  ...page,
};
export const contactsOutput = {
  contacts: z.array(z.object({ email: str, name: str, picture: nullable(str), last_meeting_date: str })),
  ...skipPage,
};

export const ruleExecutionsOutput = {
  meetings: z.array(
    z.object({
      meeting_id: str,
      meeting: str,
      execution_count: num,
      executions_has_more: bool,
      executions: z.array(
        z.object({
          id: str,
          rule_id: str,
          rule_name: str,
          status: str,
          actions: str,
          error: nullable(str),
          dry_run: bool,
          executed_at: str,
        }),
      ),
    }),
  ),
  ...page,
  next_cursor: nullable(str).describe('Pass as cursor for the next page; null on the last.'),
};

const actionItem = {
  id: str,
  meeting_id: str,
  meeting_title: str,
  meeting_date: str,
  text: str,
  owner_name: nullable(str),
  owner_email: nullable(str),
  due: nullable(str),
  due_date: nullable(str),
  status: z.enum(['open', 'done']),
  sentence_index: num,
  start_time: num,
  link: str,
};
export const actionItemOutput = actionItem;
export const actionItemListOutput = {
  action_items: z.array(z.object(actionItem)),
  ...page,
  next_cursor: nullable(str).describe('Pass as cursor for the next page; null on the last.'),
};

export const changesOutput = {
  changes: z.array(
    z.object({
      meeting_id: str,
      changed: str.describe('Comma-separated kinds of change since the cursor.'),
      changed_at: str,
      removed: bool.describe('true: drop the meeting from your copy; nothing else about it is given.'),
      reason: nullable(z.enum(['deleted', 'expired', 'not_visible'])),
      title: nullable(str),
      dateString: nullable(str),
      status: nullable(str),
      privacy: nullable(str),
      channel_id: nullable(str),
      organizer_email: nullable(str),
      duration: nullable(num),
      is_live: nullable(bool),
    }),
  ),
  phase: z.enum(['snapshot', 'changes']),
  has_more: bool.describe('More can be read now; false: at the end, call again later with next_cursor.'),
  next_cursor: str.describe('The cursor for the next call, now or later.'),
  retention_days: num.describe('How long a cursor is honoured (CHANGES_RETENTION).'),
};
