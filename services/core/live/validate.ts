/** The rules of a live meeting's start and of the sentences sent to it: every refusal names its field and rule. */
import { invalid } from '../../platform/errors';
import { PRIVACIES, type Privacy } from '../meetings';
import { validateAttendees, type Attendee, type AttendeeInput } from '../uploads';
import { hasControl, hasControlInText, isEmail, optionalString, required } from '../input';
import { LIVE_LIMITS, type LiveSentenceInput } from './protocol';

const chars = (s: string) => [...s].length;

/** startLiveMeeting's input, field for field as GraphQL's LiveMeetingInput. */
export interface StartLiveMeetingInput {
  title?: string | null;
  meeting_link?: string | null;
  organizer_email?: string | null;
  scheduled_start?: string | null;
  scheduled_end?: string | null;
  privacy?: string | null;
  attendees?: AttendeeInput[] | null;
}

export interface NormalizedLiveMeeting {
  title: string;
  meetingLink: string | null;
  organizerEmail: string | null;
  scheduledStart: Date | null;
  scheduledEnd: Date | null;
  privacy: Privacy;
  attendees: Attendee[];
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function optionalDateTime(field: string, v: unknown): Date | null {
  const s = optionalString(field, v)?.trim();
  if (!s) return null;
  const d = new Date(s);
  if (!ISO_DATE_TIME.test(s) || Number.isNaN(d.getTime())) {
    throw invalid(
      field,
      'ISO 8601 date-time with a time zone',
      `${field} must be an ISO 8601 date-time with a time zone, like 2026-11-21T09:00:00Z`,
    );
  }
  return d;
}

function validateMeetingLink(v: unknown): string | null {
  const s = optionalString('meeting_link', v)?.trim();
  if (!s) return null;
  if (chars(s) > LIVE_LIMITS.meetingLinkMax) {
    throw invalid(
      'meeting_link',
      `at most ${LIVE_LIMITS.meetingLinkMax} characters`,
      `meeting_link must be at most ${LIVE_LIMITS.meetingLinkMax} characters long`,
    );
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid(
      'meeting_link',
      'an http or https URL',
      'meeting_link must be an http or https URL like https://meet.example.com/abc-defg-hij',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(
      'meeting_link',
      'an http or https URL',
      `meeting_link must be an http or https URL; got a ${url.protocol.replace(/:$/, '')} URL`,
    );
  }
  if (url.username || url.password)
    throw invalid('meeting_link', 'no credentials in the URL', 'meeting_link must not carry a user name or password');
  return url.toString();
}

export function validateLiveMeeting(input: StartLiveMeetingInput): NormalizedLiveMeeting {
  const rawTitle = optionalString('title', input?.title);
  if (rawTitle === null) throw required('title', `the meeting's title, 1 to ${LIVE_LIMITS.titleMax} characters`);
  const title = rawTitle.trim().replace(/\s+/g, ' ');
  const n = chars(title);
  if (n < 1 || n > LIVE_LIMITS.titleMax) {
    throw invalid(
      'title',
      `1 to ${LIVE_LIMITS.titleMax} characters`,
      `title must be 1 to ${LIVE_LIMITS.titleMax} characters long; got ${n}`,
    );
  }
  const meetingLink = validateMeetingLink(input.meeting_link);
  const rawOrganizer = optionalString('organizer_email', input.organizer_email)?.trim();
  if (rawOrganizer && !isEmail(rawOrganizer)) {
    throw invalid(
      'organizer_email',
      'must be an email address like name@example.com',
      `organizer_email: ${JSON.stringify(rawOrganizer)} is not an email address`,
    );
  }
  const scheduledStart = optionalDateTime('scheduled_start', input.scheduled_start);
  const scheduledEnd = optionalDateTime('scheduled_end', input.scheduled_end);
  if (scheduledStart && scheduledEnd && scheduledEnd.getTime() < scheduledStart.getTime()) {
    throw invalid('scheduled_end', 'not before scheduled_start', 'scheduled_end must not be before scheduled_start');
  }
  const rawPrivacy = optionalString('privacy', input.privacy)?.trim();
  if (rawPrivacy && !(PRIVACIES as readonly string[]).includes(rawPrivacy)) {
    throw invalid(
      'privacy',
      `one of ${PRIVACIES.join(', ')}`,
      `privacy must be one of ${PRIVACIES.join(', ')}; got ${JSON.stringify(rawPrivacy)}`,
    );
  }
  return {
    title,
    meetingLink,
    organizerEmail: rawOrganizer ? rawOrganizer.toLowerCase() : null,
    scheduledStart,
    scheduledEnd,
    privacy: (rawPrivacy || 'teammatesandparticipants') as Privacy,
    attendees: validateAttendees(input.attendees),
  };
}

function finiteSeconds(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw invalid(field, 'a number of seconds, 0 or more', `${field} must be a number of seconds, 0 or more`);
  if (v < 0) throw invalid(field, '0 or more', `${field} must be 0 or more; got ${v}`);
  return v;
}

/**
 * Check a call's sentences and normalise them (trimmed speaker and chunk id). `text` keeps what the
 * caller sent; the stored clean text collapses its whitespace (store.ts).
 */
export function validateLiveSentences(raw: unknown, field = 'sentences'): LiveSentenceInput[] {
  if (raw === undefined || raw === null)
    throw required(field, `a list of ${LIVE_LIMITS.sentencesMin} to ${LIVE_LIMITS.sentencesMax} sentences`);
  if (!Array.isArray(raw))
    throw invalid(
      field,
      'must be a list',
      `${field} must be a list of {speaker_name, text, start_time, end_time, chunk_id}`,
    );
  const { sentencesMin, sentencesMax, textMax, textTotalMax, speakerNameMax, chunkIdMax } = LIVE_LIMITS;
  if (raw.length < sentencesMin || raw.length > sentencesMax) {
    throw invalid(
      field,
      `${sentencesMin} to ${sentencesMax} sentences`,
      `${field} must hold ${sentencesMin} to ${sentencesMax} sentences per call; got ${raw.length}`,
    );
  }
  let total = 0;
  return raw.map((s: Record<string, unknown>, i) => {
    const at = `${field}[${i}]`;
    if (!s || typeof s !== 'object')
      throw invalid(at, 'must be an object', `${at} must be {speaker_name, text, start_time, end_time, chunk_id}`);

    const speaker = optionalString(`${at}.speaker_name`, s.speaker_name)?.trim().replace(/\s+/g, ' ');
    if (!speaker) throw required(`${at}.speaker_name`, `who said it, 1 to ${speakerNameMax} characters`);
    if (chars(speaker) > speakerNameMax || hasControl(speaker)) {
      throw invalid(
        `${at}.speaker_name`,
        `1 to ${speakerNameMax} characters`,
        `${at}.speaker_name must be 1 to ${speakerNameMax} characters of text; got ${chars(speaker)}`,
      );
    }

    const text = optionalString(`${at}.text`, s.text);
    if (text === null) throw required(`${at}.text`, `what was said, 1 to ${textMax} characters`);
    const n = chars(text);
    if (text.trim() === '' || n > textMax) {
      throw invalid(
        `${at}.text`,
        `1 to ${textMax} characters`,
        `${at}.text must be 1 to ${textMax} characters (not only spaces); got ${n}`,
      );
    }
    if (hasControlInText(text))
      throw invalid(
        `${at}.text`,
        'no control characters',
        `${at}.text must not contain control characters (tabs and line breaks are fine)`,
      );
    total += n;
    if (total > textTotalMax) {
      throw invalid(
        field,
        `at most ${textTotalMax} characters of text per call`,
        `${field} may carry at most ${textTotalMax} characters of text per call; split the sentences over several calls`,
      );
    }

    const start = finiteSeconds(`${at}.start_time`, s.start_time);
    const end = finiteSeconds(`${at}.end_time`, s.end_time);
    if (end < start)
      throw invalid(
        `${at}.end_time`,
        'not before start_time',
        `${at}.end_time must not be before start_time (${start}); got ${end}`,
      );

    const chunk = optionalString(`${at}.chunk_id`, s.chunk_id)?.trim();
    if (!chunk)
      throw required(
        `${at}.chunk_id`,
        `the recorder's id of this sentence, 1 to ${chunkIdMax} characters; sending a chunk again replaces it`,
      );
    if (chars(chunk) > chunkIdMax || hasControl(chunk)) {
      throw invalid(
        `${at}.chunk_id`,
        `1 to ${chunkIdMax} characters`,
        `${at}.chunk_id must be 1 to ${chunkIdMax} characters of text; got ${chars(chunk)}`,
      );
    }
    return { speaker_name: speaker, text, start_time: start, end_time: end, chunk_id: chunk };
  });
}

export function requireMeetingId(field: string, id: unknown): string {
  const v = typeof id === 'string' ? id.trim() : '';
  if (!v) throw required(field, 'the live meeting id that startLiveMeeting returned');
  return v;
}
