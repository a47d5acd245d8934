/**
 * The GraphQL schema (SDL). uploadAudio's input rules are services/core/uploads/validate.ts; its fields
 * follow the best-known public API of this kind (snake_case input fields); the reads return the same records, with the same field names, as the MCP
 * tools svc_get_transcript, svc_get_summary, svc_get_transcripts and svc_get_user, because they call
 * the same core functions.
 */
export const typeDefs = /* GraphQL */ `
  type Query {
    "The caller: the user behind the API key."
    me: User!

    """
    One meeting's transcript (meeting id = transcript id): metadata, status, analytics and a page of
    sentences within a token budget (has_more / next_index give the next page). While the upload is
    processed, status is "processing" and sentences are empty; when it failed, status is "failed" and
    meeting_info.message gives the reason. summary is read only when selected.
    """
    transcript(id: ID!, fromIndex: Int, maxTokens: Int): Transcript!

    """
    Meetings visible to the caller matching the filters, newest first (no transcript content).
    limit is 1 to 50 (default 10); page with skip = next_skip while has_more is true.
    With question (a question in plain language, at most 500 characters; not with keyword or scope):
    the moments that answer it best across the meetings, best first, limit 1 to 20 (default 5) of
    them, skip + limit at most 100; meetings are the moments' meetings.
    """
    transcripts(
      keyword: String
      question: String
      scope: TranscriptScope
      fromDate: String
      toDate: String
      limit: Int
      skip: Int
      organizers: [String!]
      participants: [String!]
      mine: Boolean
      "Only meetings of this channel; a channel the caller cannot see is object_not_found."
      channelId: ID
    ): TranscriptList!
  }

  type Mutation {
    """
    Queue a recording (audio, video, or a WebVTT/SRT caption file) for transcription. Answers at
    once; the meeting is processed in the background. Retrying the same request with the same
    client_reference_id never creates a second meeting. input is required (args_required when
    absent); it is declared nullable as in the public API this mirrors, so that requests declaring
    \`$input: AudioUploadInput\` and \`$input: AudioUploadInput!\` are both accepted.
    """
    uploadAudio(input: AudioUploadInput): AudioUploadResult!
  }

  enum TranscriptScope {
    title
    sentences
    all
  }

  input AudioUploadInput {
    "http or https address of the file (at most 2048 characters)."
    url: String!
    "1 to 256 characters; default: the file name in the URL path."
    title: String
    "https URL notified when this upload's transcript is ready (this upload only)."
    webhook: String
    "Events this upload's webhook is sent: Transcription completed (V1, the default), meeting.transcribed, meeting.summarized, action_items.created, meeting.failed."
    webhook_events: [String!]
    "Your own id for this upload (1 to 128 characters), echoed in webhooks; unique per user, makes retries safe."
    client_reference_id: String
    "Language code of the speech, like en, de or pt-BR."
    custom_language: String
    "At most 100 people; each needs an email. Their display names map speakers to emails."
    attendees: [AttendeeInput!]
    save_video: Boolean
    "Team admins only: lift the server's media size cap (up to 2 GiB)."
    bypass_size_check: Boolean
    "How to authenticate the download of url."
    download_auth: DownloadAuthInput
    "ISO 8601 date or date-time of the meeting; default: now."
    meeting_date: String
    "Language of the speech for the speech-to-text server, like en or pt-BR (the same as custom_language; give one or both alike)."
    language: String
    "At most 32 names (1 to 200 characters each) of who speaks, in order: a two-channel recording's channels are labelled with them. Default: Channel 1, Channel 2."
    speaker_names: [String!]
    "Transcribe each channel of a two-channel recording on its own, labelled by channel; default: the server's ASR_SPLIT_CHANNELS."
    split_channels: Boolean
    "How many people speak (1 to 50), when you know: a one-channel recording's speakers are found by diarization, which estimates the count (at most the number of attendees) unless given."
    speaker_count: Int
  }

  input AttendeeInput {
    displayName: String
    email: String
    phoneNumber: String
  }

  enum DownloadAuthType {
    none
    bearer_token
    basic_auth
  }

  input DownloadAuthInput {
    type: DownloadAuthType!
    bearer: BearerAuthInput
    basic: BasicAuthInput
  }

  input BearerAuthInput {
    token: String!
  }

  input BasicAuthInput {
    username: String!
    password: String!
  }

  type AudioUploadResult {
    success: Boolean!
    title: String!
    message: String!
    "The meeting (= transcript) id to poll with transcript(id)."
    meetingId: ID!
    clientReferenceId: String
    "processing, completed or failed."
    status: String!
  }

  type User {
    user_id: ID!
    email: String!
    name: String!
    num_transcripts: Int!
    recent_meeting: String
    minutes_consumed: Float!
    is_admin: Boolean!
    integrations: String!
  }

  type MeetingInfo {
    "processed, pending (live), processing, failed or unavailable."
    summary_status: String!
    message: String!
    "While processing, once the worker has reported a stage; null otherwise."
    progress: ProcessingProgress
    "A recording transcribed: which speech engine and model; null for captions and older meetings."
    transcribed_by: TranscribedBy
    "Speakers the team's voiceprints named rather than a person, and how sure; null when none was."
    inferred_speakers: [InferredSpeaker!]
  }

  "A speaker named by voiceprints."
  type InferredSpeaker {
    speaker: String!
    "Cosine similarity of the speaker's voice and the profile's, 0 to 1, two decimals."
    confidence: Float!
  }

  "The speech engine that transcribed a recording."
  type TranscribedBy {
    "embedded (sherpa-onnx in the worker) or openai-compatible (the server at ASR_URL)."
    engine: String!
    "The model: SPEECH_MODEL of the embedded engine, ASR_MODEL of the server."
    model: String!
  }

  "Where a recording in processing is."
  type ProcessingProgress {
    "downloading, downloaded, transcribing or analysing."
    stage: String!
    "0 to 100, whole."
    percent: Int!
    "While transcribing a chunked recording: chunks answered so far."
    chunks_done: Int
    chunks_total: Int
  }

  type Sentence {
    index: Int!
    speaker_name: String!
    speaker_id: Int!
    text: String!
    raw_text: String!
    start_time: Float!
    end_time: Float!
  }

  type SpeakerAnalytics {
    speaker_id: Int!
    name: String!
    duration: Float!
    word_count: Int!
    longest_monologue: Float!
    monologues_count: Int!
    filler_words: Int!
    questions: Int!
    duration_pct: Float!
    words_per_minute: Float!
    positive_pct: Float!
    neutral_pct: Float!
    negative_pct: Float!
  }

  type MeetingAnalytics {
    duration_seconds: Float!
    silence_seconds: Float!
    talk_listen_ratio: Float
    positive_pct: Float!
    neutral_pct: Float!
    negative_pct: Float!
  }

  "A moment of the transcript a line of the notes rests on."
  type Moment {
    "The sentence's index in the transcript."
    index: Int!
    start_time: Float!
    "The meeting page at this moment."
    link: String!
  }

  type ActionItem {
    text: String!
    assignee: String
    due: String
    due_date: String
    speaker_name: String
    start_time: Float
    "The sentence that states it (null for summaries made before citations)."
    index: Int
    "commitment, request or offer."
    kind: String
    "The meeting page at its moment."
    link: String
    "Every moment that states or repeats it, the first its own."
    moments: [Moment!]!
  }

  type OutlineSection {
    title: String!
    start_time: Float
    end_time: Float
    summary: String
    "The sentence summary is."
    index: Int
    link: String
  }

  "A line of the overview and the moment it rests on."
  type OverviewLine {
    text: String!
    index: Int!
    start_time: Float!
    link: String!
  }

  type SummaryNote {
    field: String!
    message: String!
  }

  type Summary {
    summary_status: String!
    "Set when there is no summary (processing, failed, live, never produced): says why."
    message: String
    keywords: [String!]!
    action_items: [ActionItem!]!
    overview: String
    "The overview line by line, each citing its moment."
    overview_lines: [OverviewLine!]!
    short_summary: String
    topics_discussed: [String!]!
    meeting_type: String
    outline: [OutlineSection!]!
    notes: [SummaryNote!]!
  }

  type Transcript {
    id: ID!
    title: String!
    dateString: String!
    "Milliseconds since 1970-01-01T00:00:00Z."
    date: Float!
    "Minutes."
    duration: Float!
    organizer_email: String!
    "Comma-separated participant emails."
    participants: String!
    privacy: String!
    is_live: Boolean!
    transcript_url: String!
    "processing, live, completed or failed."
    status: String!
    meeting_info: MeetingInfo!
    meeting_analytics: MeetingAnalytics
    analytics: [SpeakerAnalytics!]!
    sentences: [Sentence!]!
    has_more: Boolean!
    next_index: Int
    summary: Summary!
  }

  type MeetingListItem {
    id: ID!
    title: String!
    dateString: String!
    date: Float!
    duration: Float!
    organizer_email: String!
    participants: String!
    privacy: String!
    is_live: Boolean!
    transcript_url: String!
    summary: String
  }

  type TranscriptList {
    meetings: [MeetingListItem!]!
    "Meetings that match: exact up to 100; past it 100 with total_is_lower_bound true."
    total: Int!
    total_is_lower_bound: Boolean!
    has_more: Boolean!
    next_skip: Int
    "With a question: the moments that answer it, best first."
    moments: [AnswerMoment!]
    "With a question: meaning, or words (answered by its words alone; note says why)."
    answered_by: String
    note: String
  }

  "A sentence that answers a question, where it was said, and the sentences either side."
  type AnswerMoment {
    meeting_id: ID!
    title: String!
    index: Int!
    speaker_name: String!
    "Seconds from the meeting's start."
    start_time: Float!
    text: String!
    before: String!
    after: String!
    "The meeting page at this moment."
    link: String!
  }
`;
