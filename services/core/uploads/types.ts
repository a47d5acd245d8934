/** The shapes of an upload: as the transports hand it over, as it is stored, as it is answered. */
import type { FetchSecret } from './fetch-secret';

/** Input as the transports hand it over (GraphQL's AudioUploadInput, field for field). */
export interface AttendeeInput {
  displayName?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
}

export interface DownloadAuthInput {
  type: string;
  bearer?: { token?: string | null } | null;
  basic?: { username?: string | null; password?: string | null } | null;
}

export interface UploadInput {
  url: string;
  title?: string | null;
  webhook?: string | null;
  /** The events the upload's webhook is sent (webhooks/events.ts); default the V1 event alone. */
  webhook_events?: string[] | null;
  client_reference_id?: string | null;
  custom_language?: string | null;
  attendees?: AttendeeInput[] | null;
  save_video?: boolean | null;
  bypass_size_check?: boolean | null;
  download_auth?: DownloadAuthInput | null;
  meeting_date?: string | null;
  language?: string | null;
  speaker_names?: string[] | null;
  split_channels?: boolean | null;
  speaker_count?: number | null;
}

export interface Attendee {
  displayName: string | null;
  email: string;
  phoneNumber: string | null;
}

/** The upload's options as stored in meetings.upload_options (no secret in the clear). */
export interface UploadOptions {
  attendees: Attendee[];
  save_video: boolean;
  bypass_size_check: boolean;
  request_hash: string;
  /** Sealed FetchSecret; removed when the meeting leaves `processing`. */
  fetch_secret?: string;
  /** Transcribe each channel on its own, labelled by channel (absent: ASR_SPLIT_CHANNELS). */
  split_channels?: boolean;
  /** Who speaks, in order (a two-channel recording's channels); hints for the speech server. */
  speaker_names?: string[];
  /** How many people speak in a one-channel recording, when the uploader knows (absent: estimated). */
  speaker_count?: number;
  /** Seconds already added to the owner's minutes_consumed (set once; see chargeMinutes in ../ingest/ingest.ts). */
  minutes_charged_seconds?: number;
}

export interface NormalizedUpload {
  fetch: FetchSecret;
  /** The URL as shown to people: no credentials, query or fragment (a pre-signed URL's token stays sealed). */
  displayUrl: string;
  title: string;
  webhook: string | null;
  /** null: the V1 event alone. */
  webhookEvents: string[] | null;
  clientReferenceId: string | null;
  customLanguage: string | null;
  attendees: Attendee[];
  saveVideo: boolean;
  bypassSizeCheck: boolean;
  meetingDate: Date;
  meetingDateGiven: boolean;
  /** Who speaks, in order (channel labels); empty when not given. */
  speakerNames: string[];
  /** null: the server's ASR_SPLIT_CHANNELS decides. */
  splitChannels: boolean | null;
  speakerCount: number | null;
}

export interface UploadResult {
  success: boolean;
  title: string;
  message: string;
  meetingId: string;
  clientReferenceId: string | null;
  status: string;
}
