/**
 * Meetings: lists and the svc_search grammar, reads (transcripts, summaries), and what an owner or
 * admin changes (share, title, privacy, move).
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// Meeting records as every surface answers them.
export { transcriptUrl } from './records';
export type { MeetingRow, Page } from './records';

// Lists of meetings (svc_get_transcripts, svc_search, GraphQL transcripts).
export { listMeetings, searchMeetings } from './list';
export type { MeetingList } from './list';

// svc_search's query grammar.
export { parseSearchQuery, QUERY_MAX } from './grammar';

// The list's filters and their limits.
export {
  CHANNEL_ID_MAX,
  EMAILS_MAX,
  isCalendarDate,
  isSearchEmail,
  KEYWORD_MAX,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  MOMENTS_DEFAULT,
  MOMENTS_MAX,
  QUESTION_LIMIT_DEFAULT,
  QUESTION_LIMIT_MAX,
  QUESTION_MAX,
  QUESTION_POOL,
  SCOPES,
  SKIP_MAX,
  SORTS,
} from './filters';
export type { MeetingFilters } from './filters';

// A keyword as PostgreSQL reads it, its match (rule conditions share it) and the list's bounds.
export { keywordQuery } from './keyword-query';
export { RELEVANCE_POOL, TOTAL_BOUND, transcriptMatch } from './list-sql';
export type { KeywordQuery } from './keyword-query';

// Reading one meeting: transcript pages, summary, both.
export { fetchMeeting, getSummary, getTranscript, sentenceFromRow, TRANSCRIPT_TOKENS } from './transcripts';
export type {
  FullMeeting,
  SentenceRecord,
  SpeakerAnalyticsRecord,
  SummaryFields,
  SummaryResult,
  TranscriptPage,
} from './transcripts';

// What an owner or admin changes: shares, title, privacy, channel.
export {
  MOVE_MAX_MEETINGS,
  moveMeetings,
  PRIVACIES,
  revokeMeetingAccess,
  SHARE_EXPIRY_DAYS,
  SHARE_MAX_EMAILS,
  shareMeeting,
  TITLE_LENGTH,
  updateMeetingPrivacy,
  updateMeetingTitle,
} from './admin';
export type { Privacy } from './admin';
// The meetings a caller may manage, locked for a change (other domains' meeting actions use it).
export { lockManaged } from './admin';

// Naming a meeting's speaker everywhere it appears.
export { renameSpeaker, SPEAKER_NAME_MAX } from './speakers';
export { correctSentence, SENTENCE_TEXT_MAX, type CorrectSentenceResult } from './corrections';
export type { RenameSpeakerInput, RenameSpeakerResult } from './speakers';

// Participants added to a meeting.
export { addParticipants } from './participants';

// The sentence said at a moment.
export { sentenceIndexAt } from './timeline';

// Deleting meetings and legal holds.
export { deleteMeeting, liftLegalHold, removeMeetings, setLegalHold } from './deletion';

// A list's matching moments.
export type { MomentRecord } from './moments';

// One meeting's keyword matches with their neighbours (svc_get_transcript with keyword).
export { CONTEXT_DEFAULT, CONTEXT_MAX, getTranscriptMatches } from './transcript-matches';
export type { TranscriptMatchPage } from './transcript-matches';
