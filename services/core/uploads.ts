/**
 * Audio uploads (spec §4.8; DESIGN flow 1): validate the request, create the meeting (status
 * `processing`) and start `TranscriptionWorkflow` with workflow id `transcription-<meetingId>`.
 * The answer comes at once; the work runs in Temporal.
 *
 * Idempotency: the same request retried with the same client_reference_id by the same user finds the
 * meeting it created (unique index meetings_client_reference_unique) and never starts a second run
 * (REJECT_DUPLICATE on the workflow id). A different request under a used client_reference_id is
 * refused rather than silently answered with someone else's meeting.
 *
 * Secrets: the download URL (which may be pre-signed) and download_auth credentials are sealed with
 * SECRETS_KEY (AES-256-GCM) into upload_options and removed once the meeting leaves `processing`; they
 * never travel through Temporal history, logs or a plain column.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { requireAdmin } from './access';
import { audit } from './audit';
import { invalid, ServiceError } from './errors';
import { newId } from './ids';
import type { Principal } from './principal';
import { isEmail } from './validate';
import { checkAddress } from '../net/address-policy';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';
import type { ServiceDeps } from './deps';

// ---------------------------------------------------------------------------------------------------
// Limits of AudioUploadInput (documented in the README's GraphQL reference).
// ---------------------------------------------------------------------------------------------------
export const UPLOAD_LIMITS = {
  urlMax: 2048,
  titleMax: 256,
  clientReferenceMax: 128,
  attendeesMax: 100,
  displayNameMax: 200,
  phoneMax: 32,
  tokenMax: 4096,
  usernameMax: 256,
  passwordMax: 1024,
} as const;

/** A size cap an admin's bypass_size_check still cannot lift: the worker holds the file in memory. */
export const MEDIA_HARD_CEILING_BYTES = 2 * 1024 * 1024 * 1024;

export const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;
const PHONE = /^\+?[0-9 ().-]{3,32}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const TRANSCRIPTION_WORKFLOW = 'TranscriptionWorkflow';
export const transcriptionWorkflowId = (meetingId: string) => `transcription-${meetingId}`;

// ---------------------------------------------------------------------------------------------------
// Input as the transports hand it over (GraphQL's AudioUploadInput, field for field).
// ---------------------------------------------------------------------------------------------------
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
  client_reference_id?: string | null;
  custom_language?: string | null;
  attendees?: AttendeeInput[] | null;
  save_video?: boolean | null;
  bypass_size_check?: boolean | null;
  download_auth?: DownloadAuthInput | null;
  meeting_date?: string | null;
}

/** What the fetch step needs and nobody else may read: sealed at rest, opened only by the worker. */
export interface FetchSecret {
  url: string;
  auth: { type: 'none' } | { type: 'bearer_token'; token: string } | { type: 'basic_auth'; username: string; password: string };
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
  /** Seconds already added to the owner's minutes_consumed (set once; see chargeMinutes in ingest.ts). */
  minutes_charged_seconds?: number;
}

export interface NormalizedUpload {
  fetch: FetchSecret;
  /** The URL as shown to people: no credentials, query or fragment (a pre-signed URL's token stays sealed). */
  displayUrl: string;
  title: string;
  webhook: string | null;
  clientReferenceId: string | null;
  customLanguage: string | null;
  attendees: Attendee[];
  saveVideo: boolean;
  bypassSizeCheck: boolean;
  meetingDate: Date;
  meetingDateGiven: boolean;
}

export interface UploadResult {
  success: boolean;
  title: string;
  message: string;
  meetingId: string;
  clientReferenceId: string | null;
  status: string;
}

export type UploadDeps = ServiceDeps;

// ---------------------------------------------------------------------------------------------------
// Validation: every rule names its field (relative to the input object) and nothing is stored on refusal.
// ---------------------------------------------------------------------------------------------------

function optionalString(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalid(field, 'must be a string', `${field} must be a string`);
  return v;
}

const hasControl = (s: string) => /[\u0000-\u001f\u007f]/.test(s);

/**
 * True for hosts that are an IP literal outside the public unicast space, or `localhost`: refused at
 * once, before anything is stored. Names are checked after DNS by the download itself (services/net).
 */
export function isPrivateLiteralHost(hostname: string): boolean {
  // "localhost." (a fully qualified name) is the same host.
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && !checkAddress(host).allowed;
}

function requireWebUrl(field: string, raw: string, opts: { httpsOnly: boolean; allowPrivate: boolean }): URL {
  const s = raw.trim();
  const schemes = opts.httpsOnly ? 'an https URL' : 'an http or https URL';
  if (!s) throw new ServiceError('args_required', `${field} is required: ${schemes}`, { field, rule: 'required' });
  if ([...s].length > UPLOAD_LIMITS.urlMax) {
    throw invalid(field, `at most ${UPLOAD_LIMITS.urlMax} characters`, `${field} must be at most ${UPLOAD_LIMITS.urlMax} characters long`);
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid(field, `must be ${schemes}`, `${field} must be ${schemes} like https://example.com/recording.mp3`);
  }
  const okScheme = opts.httpsOnly ? url.protocol === 'https:' : url.protocol === 'http:' || url.protocol === 'https:';
  if (!okScheme) {
    throw invalid(field, `must be ${schemes}`, `${field} must be ${schemes}; got a ${url.protocol.replace(/:$/, '')} URL`);
  }
  if (url.username || url.password) {
    throw invalid(
      field,
      'no credentials in the URL',
      `${field} must not carry a user name or password; ${field === 'url' ? 'pass them in download_auth' : 'remove them'}`,
    );
  }
  if (!opts.allowPrivate && isPrivateLiteralHost(url.hostname)) {
    throw invalid(field, 'must be a public address', `${field} points at a private, loopback or reserved address (${url.hostname}); use a publicly reachable host`);
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

function validateAttendees(raw: unknown): Attendee[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('attendees', 'must be a list', 'attendees must be a list of {displayName, email, phoneNumber}');
  if (raw.length > UPLOAD_LIMITS.attendeesMax) {
    throw invalid('attendees', `at most ${UPLOAD_LIMITS.attendeesMax} attendees`, `attendees may list at most ${UPLOAD_LIMITS.attendeesMax} people; got ${raw.length}`);
  }
  const seen = new Set<string>();
  const out: Attendee[] = [];
  raw.forEach((a: AttendeeInput, i) => {
    const at = `attendees[${i}]`;
    const email = optionalString(`${at}.email`, a?.email)?.trim();
    if (!email) throw new ServiceError('args_required', `${at}.email is required: every attendee needs an email address`, { field: `${at}.email`, rule: 'required' });
    if (!isEmail(email)) throw invalid(`${at}.email`, 'must be an email address like name@example.com', `${at}.email: ${JSON.stringify(email)} is not an email address`);
    const displayName = optionalString(`${at}.displayName`, a?.displayName)?.trim() || null;
    if (displayName && ([...displayName].length > UPLOAD_LIMITS.displayNameMax || hasControl(displayName))) {
      throw invalid(`${at}.displayName`, `at most ${UPLOAD_LIMITS.displayNameMax} characters`, `${at}.displayName must be at most ${UPLOAD_LIMITS.displayNameMax} characters of text`);
    }
    const phoneNumber = optionalString(`${at}.phoneNumber`, a?.phoneNumber)?.trim() || null;
    if (phoneNumber && !PHONE.test(phoneNumber)) {
      throw invalid(`${at}.phoneNumber`, 'digits, spaces, ()+-. only, 3 to 32 characters', `${at}.phoneNumber must look like +1 555 0100 (3 to 32 digits, spaces, ()+-.)`);
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
      throw invalid(`download_auth.${other}`, `only with type ${other === 'bearer' ? 'bearer_token' : 'basic_auth'}`, `download_auth.${other} is only read with type ${other === 'bearer' ? 'bearer_token' : 'basic_auth'}; remove it or change download_auth.type`);
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
      if (!token) throw new ServiceError('args_required', 'download_auth.bearer.token is required with type bearer_token', { field: 'download_auth.bearer.token', rule: 'required' });
      if (token.length > UPLOAD_LIMITS.tokenMax || hasControl(token)) {
        throw invalid('download_auth.bearer.token', `at most ${UPLOAD_LIMITS.tokenMax} characters, no line breaks`, `download_auth.bearer.token must be at most ${UPLOAD_LIMITS.tokenMax} characters without line breaks`);
      }
      return { type: 'bearer_token', token };
    }
    case 'basic_auth': {
      noExtra('bearer');
      const username = raw.basic?.username;
      const password = raw.basic?.password;
      if (!username) throw new ServiceError('args_required', 'download_auth.basic.username is required with type basic_auth', { field: 'download_auth.basic.username', rule: 'required' });
      if (password === undefined || password === null) {
        throw new ServiceError('args_required', 'download_auth.basic.password is required with type basic_auth', { field: 'download_auth.basic.password', rule: 'required' });
      }
      if (username.length > UPLOAD_LIMITS.usernameMax || username.includes(':') || hasControl(username)) {
        throw invalid('download_auth.basic.username', `at most ${UPLOAD_LIMITS.usernameMax} characters, no colon`, `download_auth.basic.username must be at most ${UPLOAD_LIMITS.usernameMax} characters and contain no colon or line break`);
      }
      if (password.length > UPLOAD_LIMITS.passwordMax || hasControl(password)) {
        throw invalid('download_auth.basic.password', `at most ${UPLOAD_LIMITS.passwordMax} characters, no line breaks`, `download_auth.basic.password must be at most ${UPLOAD_LIMITS.passwordMax} characters without line breaks`);
      }
      return { type: 'basic_auth', username, password };
    }
    default:
      throw invalid('download_auth.type', 'one of none, bearer_token, basic_auth', `download_auth.type must be one of none, bearer_token, basic_auth; got ${JSON.stringify(type)}`);
  }
}

function validateMeetingDate(raw: string | null): Date {
  if (raw === null) return new Date();
  const s = raw.trim();
  const d = new Date(s);
  if (!ISO_DATE.test(s) || Number.isNaN(d.getTime())) {
    throw invalid('meeting_date', 'ISO 8601 date or date-time', 'meeting_date must be an ISO 8601 date or date-time like 2026-11-02 or 2026-11-02T15:00:00Z');
  }
  const year = d.getUTCFullYear();
  if (year < 1970 || d.getTime() > Date.now() + 366 * 86_400_000) {
    throw invalid('meeting_date', 'between 1970 and one year from now', 'meeting_date must lie between 1970 and one year from now');
  }
  return d;
}

/** Check every field of an upload and normalise it; throws a ServiceError naming the first bad field. */
export function validateUpload(p: Principal, input: UploadInput, config: Pick<Config, 'allowPrivateNetwork'>): NormalizedUpload {
  const allowPrivate = config.allowPrivateNetwork;
  if (typeof input?.url !== 'string') throw new ServiceError('args_required', 'url is required: the http or https address of the recording', { field: 'url', rule: 'required' });
  const url = requireWebUrl('url', input.url, { httpsOnly: false, allowPrivate });

  const rawTitle = optionalString('title', input.title);
  let title: string;
  if (rawTitle === null) title = titleFromUrl(url);
  else {
    title = rawTitle.trim().replace(/\s+/g, ' ');
    const n = [...title].length;
    if (n < 1 || n > UPLOAD_LIMITS.titleMax) {
      throw invalid('title', `1 to ${UPLOAD_LIMITS.titleMax} characters`, `title must be 1 to ${UPLOAD_LIMITS.titleMax} characters long; got ${n} (omit it to use the file name)`);
    }
  }

  const rawWebhook = optionalString('webhook', input.webhook);
  const webhook = rawWebhook === null ? null : requireWebUrl('webhook', rawWebhook, { httpsOnly: true, allowPrivate }).toString();

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

  const customLanguage = optionalString('custom_language', input.custom_language);
  if (customLanguage !== null && !LANGUAGE.test(customLanguage)) {
    throw invalid('custom_language', 'a language code like en, de or pt-BR', `custom_language must be a language code like en, de or pt-BR; got ${JSON.stringify(customLanguage)}`);
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
    clientReferenceId,
    customLanguage,
    attendees,
    saveVideo: input.save_video === true,
    bypassSizeCheck,
    meetingDate,
    meetingDateGiven: rawDate !== null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Sealing: AES-256-GCM with SECRETS_KEY, "v1.<iv>.<tag>.<ciphertext>" in base64url.
// ---------------------------------------------------------------------------------------------------

function requireKey(key: Buffer | undefined): Buffer {
  if (!key) throw new ServiceError('invariant_violation', 'SECRETS_KEY is not configured on this server; an operator must set it');
  return key;
}

export function sealJson(key: Buffer | undefined, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', requireKey(key), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export function openJson<T>(key: Buffer | undefined, sealed: string): T {
  const [v, iv, tag, body] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || body === undefined) throw new ServiceError('invariant_violation', 'sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', requireKey(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as T;
}

// ---------------------------------------------------------------------------------------------------
// The upload itself.
// ---------------------------------------------------------------------------------------------------

/**
 * Same request, same hash: what decides whether a reused client_reference_id is a retry. Keyed with
 * SECRETS_KEY, because the request includes download credentials a plain hash would let one guess at.
 */
function requestHash(u: NormalizedUpload, key: Buffer | undefined): string {
  const canonical = JSON.stringify([
    u.fetch,
    u.title,
    u.webhook,
    u.customLanguage,
    u.attendees,
    u.saveVideo,
    u.bypassSizeCheck,
    // A retry without meeting_date gets a new "now"; only an explicit date takes part.
    u.meetingDateGiven ? u.meetingDate.toISOString() : null,
  ]);
  return createHmac('sha256', requireKey(key)).update(canonical).digest('hex');
}

const UNIQUE_VIOLATION = '23505';

interface ExistingMeeting {
  id: string;
  title: string;
  status: string;
  failure_reason: string | null;
  upload_options: UploadOptions;
}

async function findByReference(db: Knex, p: Principal, ref: string): Promise<ExistingMeeting | undefined> {
  return db('meetings').where({ uploader_id: p.userId, client_reference_id: ref }).first('id', 'title', 'status', 'failure_reason', 'upload_options');
}

async function insertMeeting(db: Knex, p: Principal, u: NormalizedUpload, config: Pick<Config, 'secretsKey'>, hash: string): Promise<string> {
  const id = newId();
  const options: UploadOptions = {
    attendees: u.attendees,
    save_video: u.saveVideo,
    bypass_size_check: u.bypassSizeCheck,
    request_hash: hash,
    fetch_secret: sealJson(config.secretsKey, u.fetch),
  };
  await db.transaction(async (tx) => {
    await tx('meetings').insert({
      id,
      team_id: p.teamId,
      organizer_id: p.userId,
      organizer_email: p.email.toLowerCase(),
      uploader_id: p.userId,
      title: u.title,
      date: u.meetingDate,
      status: 'processing',
      source_url: u.displayUrl,
      client_reference_id: u.clientReferenceId,
      custom_language: u.customLanguage,
      upload_webhook: u.webhook,
      upload_options: JSON.stringify(options),
    });
    // The organizer and the named attendees can find the meeting while it is processed; the
    // transcript's speakers join them when it is persisted.
    const people = [{ email: p.email.toLowerCase(), name: p.name }, ...u.attendees.map((a) => ({ email: a.email, name: a.displayName }))];
    await tx('meeting_participants')
      .insert(people.map((x) => ({ meeting_id: id, email: x.email, name: x.name ?? null, user_id: x.email === p.email.toLowerCase() ? p.userId : null })))
      .onConflict(['meeting_id', 'email'])
      .ignore();
    await audit(tx, p, 'meeting.upload', { type: 'meeting', id }, {
      source_url: u.displayUrl,
      client_reference_id: u.clientReferenceId,
      webhook: u.webhook !== null,
      download_auth: u.fetch.auth.type,
    });
  });
  return id;
}

/** An upload answers at once; a Temporal that does not answer within this long is treated as down. */
const START_DEADLINE_MS = 5_000;

/** Start the run; a run that exists already (running or closed) is the run of this meeting. */
export async function startTranscription(temporal: Client, taskQueue: string, meetingId: string): Promise<'started' | 'already_started'> {
  try {
    await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.workflow.start(TRANSCRIPTION_WORKFLOW, {
        taskQueue,
        workflowId: transcriptionWorkflowId(meetingId),
        args: [{ meetingId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      }),
    );
    return 'started';
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw e;
  }
}

const startFailed = () =>
  new ServiceError('internal_error', 'The upload could not be queued for transcription right now; nothing was stored. Send the same request again in a moment.');

function replayAnswer(m: ExistingMeeting, ref: string): UploadResult {
  const base = { title: m.title, meetingId: m.id, clientReferenceId: ref, status: m.status };
  if (m.status === 'failed') {
    return {
      ...base,
      success: false,
      message: `This upload (client_reference_id ${JSON.stringify(ref)}) was received before as meeting ${m.id} and failed: ${m.failure_reason ?? 'unknown reason'}. Send it with a new client_reference_id to try again.`,
    };
  }
  return {
    ...base,
    success: true,
    message:
      m.status === 'completed'
        ? `This upload was received before as meeting ${m.id}; its transcript is ready.`
        : `This upload was received before as meeting ${m.id}; it is still being transcribed.`,
  };
}

/**
 * uploadAudio: validate, create the meeting, start its transcription, answer at once.
 * A retry of the same request (same client_reference_id, same fields) answers with the first meeting.
 */
export async function uploadAudio(deps: UploadDeps, p: Principal, input: UploadInput): Promise<UploadResult> {
  const u = validateUpload(p, input, deps.config);
  if (!deps.temporal) throw new ServiceError('feature_unavailable', 'uploads are not available on this server: it has no Temporal connection');
  const hash = requestHash(u, deps.config.secretsKey);
  const ref = u.clientReferenceId;

  const existing = ref ? await findByReference(deps.db, p, ref) : undefined;
  let meetingId: string;
  if (existing) {
    if (existing.upload_options?.request_hash !== hash) {
      throw invalid(
        'client_reference_id',
        'unique per upload',
        `client_reference_id ${JSON.stringify(ref)} was already used for a different upload (meeting ${existing.id}); use a new one`,
      );
    }
    if (existing.status !== 'processing') return replayAnswer(existing, ref!);
    meetingId = existing.id;
  } else {
    try {
      meetingId = await insertMeeting(deps.db, p, u, deps.config, hash);
    } catch (e) {
      // Two copies of one request at the same instant: the loser answers as a retry of the winner.
      if ((e as { code?: string }).code === UNIQUE_VIOLATION && ref) return uploadAudio(deps, p, input);
      throw e;
    }
  }

  try {
    await startTranscription(deps.temporal, deps.config.temporal.taskQueue, meetingId);
  } catch (e) {
    (deps.log ?? logger).error({ err: e, meetingId }, 'could not start the transcription workflow');
    // A fresh meeting without a run would sit in `processing` forever: take it back, so the refusal
    // stores nothing and the client's retry starts clean. A replayed one stays for the next retry.
    if (!existing) await deps.db('meetings').where({ id: meetingId, status: 'processing' }).delete();
    throw startFailed();
  }

  return {
    success: true,
    title: u.title,
    meetingId,
    clientReferenceId: ref,
    status: 'processing',
    message: existing
      ? `This upload was received before as meeting ${meetingId}; it is still being transcribed.`
      : `Upload received: meeting ${meetingId} is being transcribed. Query transcript(id: "${meetingId}") for its status, or wait for the webhook.`,
  };
}

/** The sealed download instructions of a meeting still being processed (worker only). */
export async function readFetchSecret(db: Knex, config: Pick<Config, 'secretsKey'>, meetingId: string): Promise<FetchSecret | undefined> {
  const row = await db('meetings').where({ id: meetingId }).first('upload_options');
  const sealed = (row?.upload_options as UploadOptions | undefined)?.fetch_secret;
  return sealed ? openJson<FetchSecret>(config.secretsKey, sealed) : undefined;
}
