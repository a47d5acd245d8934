/**
 * The rules of AudioUploadInput: every rule names its field (relative to the input object) and nothing
 * is stored on refusal. The limits are UPLOAD_LIMITS below; each field's description in the GraphQL
 * schema (services/graphql/schema.ts, AudioUploadInput) states them to callers.
 */
import { requireAdmin, type Principal } from '../access';
import { invalid, ServiceError } from '../../platform/errors';
import { hasControl, isEmail, optionalString, parseUrl, URL_MAX } from '../input';
import { checkWebhookEvents, validateWebhookUrl } from '../webhooks';
import { isPrivateLiteralHost } from '../../net/address-policy';
import type { Config } from '../../platform/config';
import type { Attendee, AttendeeInput, DownloadAuthInput, NormalizedUpload, UploadInput } from './types';
import type { FetchSecret } from './fetch-secret';

export const UPLOAD_LIMITS = {
  urlMax: URL_MAX,
  titleMax: 256,
  clientReferenceMax: 128,
  attendeesMax: 100,
  displayNameMax: 200,
  phoneMax: 32,
  tokenMax: 4096,
  usernameMax: 256,
  passwordMax: 1024,
  speakerNamesMax: 32,
  /** speaker_count: the most people a recording's diarization may be told about. */
  speakerCountMax: 50,
  speakerNameMax: 200,
} as const;

export const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;
const PHONE = /^\+?[0-9 ().-]{3,32}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const MEDIA_URL_RULE = 'must be an http or https URL';

/** The recording's address: http or https, no credentials in it (they go in download_auth), public. */
function requireMediaUrl(raw: string, allowPrivate: boolean): URL {
  const field = 'url';
  if (!raw.trim())
    throw new ServiceError('args_required', `${field} is required: an http or https URL`, { field, rule: 'required' });
  const url = parseUrl(field, raw, MEDIA_URL_RULE, 'https://example.com/recording.mp3');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(field, MEDIA_URL_RULE, `${field} ${MEDIA_URL_RULE}; got a ${url.protocol.replace(/:$/, '')} URL`);
  }
  if (url.username || url.password) {
    throw invalid(
      field,
      'no credentials in the URL',
      `${field} must not carry a user name or password; pass them in download_auth`,
    );
  }
  if (!allowPrivate && isPrivateLiteralHost(url.hostname)) {
    throw invalid(
      field,
      'must be a public address',
      `${field} points at a private, loopback or reserved address (${url.hostname}); use a publicly reachable host`,
    );
  }
  return url;
}

/** A title from the file name in the URL path: "weekly_sync-2026.mp3" → "weekly sync 2026". */
export function titleFromUrl(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  const title = name
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[_+]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...(title || `Upload from ${url.hostname}`)];
  return chars.slice(0, UPLOAD_LIMITS.titleMax).join('');
}

/** Attendees of an upload or a live meeting: the same person listed twice is one attendee. */
export function validateAttendees(raw: unknown): Attendee[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw invalid('attendees', 'must be a list', 'attendees must be a list of {displayName, email, phoneNumber}');
  if (raw.length > UPLOAD_LIMITS.attendeesMax) {
    throw invalid(
      'attendees',
      `at most ${UPLOAD_LIMITS.attendeesMax} attendees`,
      `attendees may list at most ${UPLOAD_LIMITS.attendeesMax} people; got ${raw.length}`,
    );
  }
  const seen = new Set<string>();
  const out: Attendee[] = [];
  raw.forEach((a: AttendeeInput, i) => {
    const at = `attendees[${i}]`;
    const email = optionalString(`${at}.email`, a?.email)?.trim();
    if (!email)
      throw new ServiceError('args_required', `${at}.email is required: every attendee needs an email address`, {
        field: `${at}.email`,
        rule: 'required',
      });
    if (!isEmail(email))
      throw invalid(
        `${at}.email`,
        'must be an email address like name@example.com',
        `${at}.email: ${JSON.stringify(email)} is not an email address`,
      );
    const displayName = optionalString(`${at}.displayName`, a?.displayName)?.trim() || null;
    if (displayName && ([...displayName].length > UPLOAD_LIMITS.displayNameMax || hasControl(displayName))) {
      throw invalid(
        `${at}.displayName`,
        `at most ${UPLOAD_LIMITS.displayNameMax} characters`,
        `${at}.displayName must be at most ${UPLOAD_LIMITS.displayNameMax} characters of text`,
      );
    }
    const phoneNumber = optionalString(`${at}.phoneNumber`, a?.phoneNumber)?.trim() || null;
    if (phoneNumber && !PHONE.test(phoneNumber)) {
      throw invalid(
        `${at}.phoneNumber`,
        'digits, spaces, ()+-. only, 3 to 32 characters',
        `${at}.phoneNumber must look like +1 555 0100 (3 to 32 digits, spaces, ()+-.)`,
      );
    }
    const key = email.toLowerCase();
    if (seen.has(key)) return; // the same person listed twice is one attendee
    seen.add(key);
    out.push({ displayName, email: key, phoneNumber });
  });
  return out;
}

function validateDownloadAuth(raw: DownloadAuthInput | null | undefined): FetchSecret['auth'] {
  if (raw === undefined || raw === null) return { type: 'none' };
  const type = raw.type;
  const noExtra = (other: 'bearer' | 'basic') => {
    if (raw[other] !== undefined && raw[other] !== null) {
      throw invalid(
        `download_auth.${other}`,
        `only with type ${other === 'bearer' ? 'bearer_token' : 'basic_auth'}`,
        `download_auth.${other} is only read with type ${other === 'bearer' ? 'bearer_token' : 'basic_auth'}; remove it or change download_auth.type`,
      );
    }
  };
  switch (type) {
    case 'none':
      noExtra('bearer');
      noExtra('basic');
      return { type: 'none' };
    case 'bearer_token': {
      noExtra('basic');
      const token = raw.bearer?.token;
      if (!token)
        throw new ServiceError('args_required', 'download_auth.bearer.token is required with type bearer_token', {
          field: 'download_auth.bearer.token',
          rule: 'required',
        });
      if (token.length > UPLOAD_LIMITS.tokenMax || hasControl(token)) {
        throw invalid(
          'download_auth.bearer.token',
          `at most ${UPLOAD_LIMITS.tokenMax} characters, no line breaks`,
          `download_auth.bearer.token must be at most ${UPLOAD_LIMITS.tokenMax} characters without line breaks`,
        );
      }
      return { type: 'bearer_token', token };
    }
    case 'basic_auth': {
      noExtra('bearer');
      const username = raw.basic?.username;
      const password = raw.basic?.password;
      if (!username)
        throw new ServiceError('args_required', 'download_auth.basic.username is required with type basic_auth', {
          field: 'download_auth.basic.username',
          rule: 'required',
        });
      if (password === undefined || password === null) {
        throw new ServiceError('args_required', 'download_auth.basic.password is required with type basic_auth', {
          field: 'download_auth.basic.password',
          rule: 'required',
        });
      }
      if (username.length > UPLOAD_LIMITS.usernameMax || username.includes(':') || hasControl(username)) {
        throw invalid(
          'download_auth.basic.username',
          `at most ${UPLOAD_LIMITS.usernameMax} characters, no colon`,
          `download_auth.basic.username must be at most ${UPLOAD_LIMITS.usernameMax} characters and contain no colon or line break`,
        );
      }
      if (password.length > UPLOAD_LIMITS.passwordMax || hasControl(password)) {
        throw invalid(
          'download_auth.basic.password',
          `at most ${UPLOAD_LIMITS.passwordMax} characters, no line breaks`,
          `download_auth.basic.password must be at most ${UPLOAD_LIMITS.passwordMax} characters without line breaks`,
        );
      }
      return { type: 'basic_auth', username, password };
    }
    default:
      throw invalid(
        'download_auth.type',
        'one of none, bearer_token, basic_auth',
        `download_auth.type must be one of none, bearer_token, basic_auth; got ${JSON.stringify(type)}`,
      );
  }
}

function validateMeetingDate(raw: string | null): Date {
  if (raw === null) return new Date();
  const s = raw.trim();
  const d = new Date(s);
  if (!ISO_DATE.test(s) || Number.isNaN(d.getTime())) {
    throw invalid(
      'meeting_date',
      'ISO 8601 date or date-time',
      'meeting_date must be an ISO 8601 date or date-time like 2026-11-02 or 2026-11-02T15:00:00Z',
    );
  }
  const year = d.getUTCFullYear();
  if (year < 1970 || d.getTime() > Date.now() + 366 * 86_400_000) {
    throw invalid(
      'meeting_date',
      'between 1970 and one year from now',
      'meeting_date must lie between 1970 and one year from now',
    );
  }
  return d;
}

/** speaker_names: at most 32 names of 1 to 200 characters of text, in channel order. */
function validateSpeakerNames(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('speaker_names', 'must be a list', 'speaker_names must be a list of names');
  if (raw.length > UPLOAD_LIMITS.speakerNamesMax) {
    throw invalid(
      'speaker_names',
      `at most ${UPLOAD_LIMITS.speakerNamesMax} names`,
      `speaker_names may list at most ${UPLOAD_LIMITS.speakerNamesMax} names; got ${raw.length}`,
    );
  }
  return raw.map((name, i) => {
    const at = `speaker_names[${i}]`;
    const text = typeof name === 'string' ? name.trim().replace(/\s+/g, ' ') : '';
    const n = [...text].length;
    if (n < 1 || n > UPLOAD_LIMITS.speakerNameMax || hasControl(text)) {
      throw invalid(
        at,
        `1 to ${UPLOAD_LIMITS.speakerNameMax} characters`,
        `${at} must be 1 to ${UPLOAD_LIMITS.speakerNameMax} characters of text; got ${typeof name === 'string' ? n : typeof name}`,
      );
    }
    return text;
  });
}

/** Check every field of an upload and normalise it; throws a ServiceError naming the first bad field. */
export function validateUpload(
  p: Principal,
  input: UploadInput,
  config: Pick<Config, 'allowPrivateNetwork'>,
): NormalizedUpload {
  const allowPrivate = config.allowPrivateNetwork;
  if (typeof input?.url !== 'string')
    throw new ServiceError('args_required', 'url is required: the http or https address of the recording', {
      field: 'url',
      rule: 'required',
    });
  const url = requireMediaUrl(input.url, allowPrivate);

  const rawTitle = optionalString('title', input.title);
  let title: string;
  if (rawTitle === null) title = titleFromUrl(url);
  else {
    title = rawTitle.trim().replace(/\s+/g, ' ');
    const n = [...title].length;
    if (n < 1 || n > UPLOAD_LIMITS.titleMax) {
      throw invalid(
        'title',
        `1 to ${UPLOAD_LIMITS.titleMax} characters`,
        `title must be 1 to ${UPLOAD_LIMITS.titleMax} characters long; got ${n} (omit it to use the file name)`,
      );
    }
  }

  const rawWebhook = optionalString('webhook', input.webhook);
  const webhook =
    rawWebhook === null ? null : validateWebhookUrl('webhook', rawWebhook, { allowPrivateNetwork: allowPrivate });
  const webhookEvents = checkWebhookEvents('webhook_events', input.webhook_events);
  if (webhookEvents && webhook === null)
    throw invalid(
      'webhook_events',
      'only with webhook',
      "webhook_events chooses the events of this upload's webhook; give webhook too, or omit webhook_events",
    );

  const clientReferenceId = optionalString('client_reference_id', input.client_reference_id);
  if (clientReferenceId !== null) {
    const n = [...clientReferenceId].length;
    if (n < 1 || n > UPLOAD_LIMITS.clientReferenceMax || hasControl(clientReferenceId)) {
      throw invalid(
        'client_reference_id',
        `1 to ${UPLOAD_LIMITS.clientReferenceMax} characters`,
        `client_reference_id must be 1 to ${UPLOAD_LIMITS.clientReferenceMax} characters of text; got ${n}`,
      );
    }
  }

  const givenLanguage = optionalString('custom_language', input.custom_language);
  if (givenLanguage !== null && !LANGUAGE.test(givenLanguage)) {
    throw invalid(
      'custom_language',
      'a language code like en, de or pt-BR',
      `custom_language must be a language code like en, de or pt-BR; got ${JSON.stringify(givenLanguage)}`,
    );
  }
  const language = optionalString('language', input.language);
  if (language !== null && !LANGUAGE.test(language)) {
    throw invalid(
      'language',
      'a language code like en, de or pt-BR',
      `language must be a language code like en, de or pt-BR; got ${JSON.stringify(language)}`,
    );
  }
  if (language !== null && givenLanguage !== null && language !== givenLanguage) {
    throw invalid(
      'language',
      'the same as custom_language',
      `language (${language}) and custom_language (${givenLanguage}) say different things; give one of them`,
    );
  }
  const customLanguage = givenLanguage ?? language;
  const speakerNames = validateSpeakerNames(input.speaker_names);
  if (
    input.split_channels !== undefined &&
    input.split_channels !== null &&
    typeof input.split_channels !== 'boolean'
  ) {
    throw invalid('split_channels', 'true or false', 'split_channels must be true or false');
  }

  const speakerCount = input.speaker_count ?? null;
  if (
    speakerCount !== null &&
    !(Number.isInteger(speakerCount) && speakerCount >= 1 && speakerCount <= UPLOAD_LIMITS.speakerCountMax)
  ) {
    throw invalid(
      'speaker_count',
      `an integer from 1 to ${UPLOAD_LIMITS.speakerCountMax}`,
      `speaker_count must be an integer from 1 to ${UPLOAD_LIMITS.speakerCountMax} (how many people speak); got ${JSON.stringify(speakerCount)}`,
    );
  }

  const attendees = validateAttendees(input.attendees);
  const auth = validateDownloadAuth(input.download_auth);
  const rawDate = optionalString('meeting_date', input.meeting_date);
  const meetingDate = validateMeetingDate(rawDate);

  const bypassSizeCheck = input.bypass_size_check === true;
  if (bypassSizeCheck) requireAdmin(p, 'bypass_size_check');

  const display = new URL(url.toString());
  display.search = '';
  display.hash = '';
  return {
    fetch: { url: url.toString(), auth },
    displayUrl: display.toString(),
    title,
    webhook,
    webhookEvents,
    clientReferenceId,
    customLanguage,
    attendees,
    saveVideo: input.save_video === true,
    bypassSizeCheck,
    meetingDate,
    meetingDateGiven: rawDate !== null,
    speakerNames,
    splitChannels: input.split_channels ?? null,
    speakerCount,
  };
}
