/**
 * Webhooks (spec §5.2, §6; DESIGN flow 3): developer settings, the team-wide webhook, who gets what
 * when a transcript is ready, and the delivery ledger with redelivery.
 *
 * Who gets what, for a meeting whose transcript is ready (one delivery per target, each its own
 * WebhookDeliveryWorkflow with workflow id `webhook-<meetingId>-<target>`):
 *   - `upload`: the upload's own `webhook` (meetings.upload_webhook), for that upload only. Signed with
 *     the uploader's saved secret when they have one; sent unsigned otherwise (the spec lets an upload
 *     name a webhook without any developer settings).
 *   - `owner`: the saved webhook of the meeting's owner, the user whose email is the meeting's
 *     organizer email (within the meeting's team). Never for meetings a user merely attended. A saved
 *     webhook REQUIRES a secret: without one the delivery is recorded `skipped` and nothing is sent
 *     unsigned. When it is the same URL as the upload's own webhook (the uploader is the organizer),
 *     the upload delivery covers it and no second request is made.
 *   - `team`: the team-wide webhook, for every meeting the team owns; it always has a secret (setting
 *     it without one generates one) and only fires while the team is on the Enterprise tier.
 *   A saved endpoint disabled by a 410 answer is recorded `skipped` until its URL is saved again.
 *
 * Payload: exactly `{"meetingId":"…","eventType":"Transcription completed","clientReferenceId":"…"}`
 * (clientReferenceId only when the upload set one), stored as the exact bytes sent, so every attempt
 * and every redelivery sends and signs the same bytes.
 */
import type { Knex } from 'knex';
import { requireTeamWebhookManager, webhookDeliveryVisibleTo } from './access';
import { audit } from './audit';
import { invalid, notFound, ServiceError } from './errors';
import { newId } from './ids';
import type { Principal } from './principal';
import { requireOneOf } from './validate';
import { isPrivateLiteralHost, UPLOAD_LIMITS } from './uploads';
import { chooseSecret, rotatedColumns, SecretColumns } from './webhook-secrets';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';
import { webhookDeliveries } from '../platform/metrics';
import type { ServiceDeps } from './deps';

export const WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED = 'Transcription completed';
export const WEBHOOK_DELIVERY_WORKFLOW = 'WebhookDeliveryWorkflow';

export const WEBHOOK_TARGETS = ['upload', 'owner', 'team'] as const;
export type WebhookTarget = (typeof WEBHOOK_TARGETS)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'disabled', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const LEDGER_LIMITS = { defaultLimit: 10, maxLimit: 50, attemptsShown: 50 } as const;

/** One delivery's workflow: the same id for the first run and every redelivery of it. */
export const webhookWorkflowId = (meetingId: string, target: WebhookTarget) => `webhook-${meetingId}-${target}`;

/** What a WebhookDeliveryWorkflow runs on (small: the payload stays in the ledger row). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  meetingId: string;
  target: WebhookTarget;
  /** WEBHOOK_RETRY_SCHEDULE: the delay before each attempt, in milliseconds. */
  scheduleMs: number[];
  /** WEBHOOK_TIMEOUT in milliseconds. */
  timeoutMs: number;
  /** A run started by redeliverWebhook (not counted in webhook_ready_to_delivered_seconds). */
  redelivery?: boolean;
}

export interface WebhookDeliveryResult {
  deliveryId: string;
  status: DeliveryStatus;
  attempts: number;
}

export interface PreparedDelivery {
  workflowId: string;
  input: WebhookDeliveryInput;
}

export type WebhookDeps = ServiceDeps;

// ---------------------------------------------------------------------------------------------------
// Payload and URLs.
// ---------------------------------------------------------------------------------------------------

/** The exact body sent for a meeting: meetingId, eventType, and clientReferenceId when set. */
export function webhookPayload(meeting: { id: string; client_reference_id: string | null }): string {
  const body: Record<string, string> = { meetingId: meeting.id, eventType: WEBHOOK_EVENT_TRANSCRIPTION_COMPLETED };
  if (meeting.client_reference_id !== null && meeting.client_reference_id !== undefined) body.clientReferenceId = meeting.client_reference_id;
  return JSON.stringify(body);
}

const HTTPS_RULE = 'must be a valid https URL';

/**
 * A webhook URL as saved: a valid https URL of at most 2048 characters, no credentials in it, and
 * (unless ALLOW_PRIVATE_NETWORK) not a private, loopback or reserved address literal. Names are checked
 * again after DNS at every send (services/net). The fragment, never sent, is dropped.
 */
export function validateWebhookUrl(field: string, raw: unknown, opts: { allowPrivateNetwork: boolean }): string {
  if (raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim())) {
    throw new ServiceError('args_required', `${field} is required: an https URL like https://example.com/hooks/transcripts`, { field, rule: 'required' });
  }
  if (typeof raw !== 'string') throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE}`);
  const s = raw.trim();
  if ([...s].length > UPLOAD_LIMITS.urlMax) {
    throw invalid(field, `at most ${UPLOAD_LIMITS.urlMax} characters`, `${field} must be at most ${UPLOAD_LIMITS.urlMax} characters long`);
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE} like https://example.com/hooks/transcripts; ${JSON.stringify(s.slice(0, 80))} is not a URL`);
  }
  if (url.protocol !== 'https:') {
    throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE}; got a ${url.protocol.replace(/:$/, '')} URL (webhooks are only sent over https)`);
  }
  if (!url.hostname) throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE} with a host name`);
  if (url.username || url.password) {
    throw invalid(field, 'no credentials in the URL', `${field} must not carry a user name or password; verify requests with the x-hub-signature header instead`);
  }
  if (!opts.allowPrivateNetwork && isPrivateLiteralHost(url.hostname)) {
    throw invalid(field, 'must be a public address', `${field} points at a private, loopback or reserved address (${url.hostname}); use a publicly reachable host`);
  }
  url.hash = '';
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------
// Endpoints: a user's saved webhook (scope user) and the team-wide one (scope team).
// ---------------------------------------------------------------------------------------------------

export interface EndpointRow extends SecretColumns {
  id: string;
  scope: 'user' | 'team';
  team_id: string;
  user_id: string | null;
  url: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A saved webhook as shown to its owner (never the secret). */
export interface WebhookSettings {
  url: string | null;
  secret_set: boolean;
  /** While a rotated-out secret still signs alongside the new one: when it stops. */
  previous_secret_expires_at: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  updated_at: string | null;
  /** What keeps this webhook from firing, if anything. */
  notice: string | null;
}

export interface SecretAnswer {
  settings: WebhookSettings;
  /** A generated secret, shown this once; null when the caller chose the secret. */
  secret: string | null;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

function settingsOf(row: EndpointRow | undefined, scope: 'user' | 'team', now = new Date()): WebhookSettings {
  const overlapping = row?.previous_secret_ciphertext && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now;
  let notice: string | null = null;
  if (!row?.url) notice = scope === 'user' ? 'No webhook URL is saved; per-upload webhooks still fire.' : 'No team-wide webhook URL is set.';
  else if (row.disabled_at) notice = `Disabled: ${row.disabled_reason ?? 'the receiver answered 410 Gone'}. Save the URL again to re-enable it.`;
  else if (!row.secret_ciphertext) notice = 'No secret is set: deliveries to the saved webhook are skipped (never sent unsigned) until you set one.';
  return {
    url: row?.url ?? null,
    secret_set: Boolean(row?.secret_ciphertext),
    previous_secret_expires_at: overlapping ? iso(row!.previous_secret_expires_at) : null,
    disabled_at: iso(row?.disabled_at),
    disabled_reason: row?.disabled_reason ?? null,
    updated_at: iso(row?.updated_at),
    notice,
  };
}

export async function userEndpoint(db: Knex | Knex.Transaction, userId: string, forUpdate = false): Promise<EndpointRow | undefined> {
  const q = db('webhook_endpoints').where({ scope: 'user', user_id: userId });
  if (forUpdate) q.forUpdate();
  return q.first();
}

export async function teamEndpoint(db: Knex | Knex.Transaction, teamId: string, forUpdate = false): Promise<EndpointRow | undefined> {
  const q = db('webhook_endpoints').where({ scope: 'team', team_id: teamId });
  if (forUpdate) q.forUpdate();
  return q.first();
}

const UNIQUE_VIOLATION = '23505';

/**
 * Change (or create) the caller's endpoint of `scope` in one transaction: `change` gets the locked row
 * (or undefined) and returns the columns to write. Two first saves racing: the loser retries once.
 */
async function writeEndpoint(
  db: Knex,
  p: Principal,
  scope: 'user' | 'team',
  change: (existing: EndpointRow | undefined, tx: Knex.Transaction) => Promise<Partial<EndpointRow>> | Partial<EndpointRow>,
  retried = false,
): Promise<EndpointRow> {
  try {
    return await db.transaction(async (tx) => {
      const existing = scope === 'user' ? await userEndpoint(tx, p.userId, true) : await teamEndpoint(tx, p.teamId, true);
      const values = await change(existing, tx);
      if (existing) {
        const [row] = await tx('webhook_endpoints')
          .where({ id: existing.id })
          .update({ ...values, team_id: p.teamId, updated_at: tx.fn.now() })
          .returning('*');
        return row as EndpointRow;
      }
      const [row] = await tx('webhook_endpoints')
        .insert({ id: newId(), scope, team_id: p.teamId, user_id: scope === 'user' ? p.userId : null, ...values })
        .returning('*');
      return row as EndpointRow;
    });
  } catch (e) {
    if ((e as { code?: string }).code === UNIQUE_VIOLATION && !retried) return writeEndpoint(db, p, scope, change, true);
    throw e;
  }
}

const hostOf = (url: string) => new URL(url).host;

// --- a user's developer settings --------------------------------------------------------------------

export async function getDeveloperSettings(db: Knex, p: Principal): Promise<WebhookSettings> {
  return settingsOf(await userEndpoint(db, p.userId), 'user');
}

/** Save the caller's webhook URL (it re-enables an endpoint a 410 disabled). */
export async function saveWebhookUrl(deps: Pick<WebhookDeps, 'db' | 'config'>, p: Principal, rawUrl: unknown): Promise<WebhookSettings> {
  const url = validateWebhookUrl('url', rawUrl, deps.config);
  const row = await writeEndpoint(deps.db, p, 'user', async (_existing, tx) => {
    await audit(tx, p, 'webhook.url_saved', { type: 'webhook_endpoint' }, { scope: 'user', host: hostOf(url) });
    return { url, disabled_at: null, disabled_reason: null };
  });
  return settingsOf(row, 'user');
}

/** Clear the caller's webhook URL; the secret stays (it still signs their per-upload webhooks). */
export async function clearWebhookUrl(db: Knex, p: Principal): Promise<WebhookSettings> {
  const existing = await userEndpoint(db, p.userId);
  if (!existing?.url) return settingsOf(existing, 'user');
  const row = await writeEndpoint(db, p, 'user', async (_existing, tx) => {
    await audit(tx, p, 'webhook.url_cleared', { type: 'webhook_endpoint', id: existing.id }, { scope: 'user' });
    return { url: null, disabled_at: null, disabled_reason: null };
  });
  return settingsOf(row, 'user');
}

/** Set the caller's secret: a custom one (16 to 32 characters) or a generated one, returned once. */
export async function setWebhookSecret(
  deps: Pick<WebhookDeps, 'db' | 'config'>,
  p: Principal,
  args: { secret?: string | null; generate?: boolean | null },
): Promise<SecretAnswer> {
  const { secret, generated } = chooseSecret(args);
  const { secretsKey, webhook } = deps.config;
  const row = await writeEndpoint(deps.db, p, 'user', async (existing, tx) => {
    await audit(tx, p, 'webhook.secret_set', { type: 'webhook_endpoint', id: existing?.id }, { scope: 'user', generated, rotated: Boolean(existing?.secret_ciphertext) });
    return rotatedColumns(secretsKey, existing, secret, webhook.secretOverlapMs) as Partial<EndpointRow>;
  });
  return { settings: settingsOf(row, 'user'), secret: generated ? secret : null };
}

// --- the team-wide webhook --------------------------------------------------------------------------

export async function getTeamWebhook(db: Knex, p: Principal): Promise<WebhookSettings> {
  requireTeamWebhookManager(p);
  return settingsOf(await teamEndpoint(db, p.teamId), 'team');
}

/**
 * Set the team-wide webhook's URL (super admin, Enterprise). It always has a secret: a custom one
 * given here, else the one it already has, else a generated one returned this once.
 */
export async function setTeamWebhook(
  deps: Pick<WebhookDeps, 'db' | 'config'>,
  p: Principal,
  args: { url: unknown; secret?: string | null },
): Promise<SecretAnswer> {
  requireTeamWebhookManager(p);
  const url = validateWebhookUrl('url', args.url, deps.config);
  const custom = args.secret !== undefined && args.secret !== null ? chooseSecret({ secret: args.secret }).secret : undefined;
  const { secretsKey, webhook } = deps.config;
  let generated: string | null = null;
  const row = await writeEndpoint(deps.db, p, 'team', async (existing, tx) => {
    let secretColumns: Partial<EndpointRow> = {};
    if (custom !== undefined) secretColumns = rotatedColumns(secretsKey, existing, custom, webhook.secretOverlapMs) as Partial<EndpointRow>;
    else if (!existing?.secret_ciphertext) {
      generated = chooseSecret({ generate: true }).secret;
      secretColumns = rotatedColumns(secretsKey, existing, generated, webhook.secretOverlapMs) as Partial<EndpointRow>;
    }
    await audit(tx, p, 'webhook.url_saved', { type: 'webhook_endpoint', id: existing?.id }, {
      scope: 'team',
      host: hostOf(url),
      secret: custom !== undefined ? 'custom' : generated ? 'generated' : 'kept',
    });
    return { url, disabled_at: null, disabled_reason: null, ...secretColumns };
  });
  return { settings: settingsOf(row, 'team'), secret: generated };
}

/** Rotate the team-wide webhook's secret (custom or generated); the old one overlaps as for users. */
export async function setTeamWebhookSecret(
  deps: Pick<WebhookDeps, 'db' | 'config'>,
  p: Principal,
  args: { secret?: string | null; generate?: boolean | null },
): Promise<SecretAnswer> {
  requireTeamWebhookManager(p);
  const { secret, generated } = chooseSecret(args);
  const { secretsKey, webhook } = deps.config;
  const row = await writeEndpoint(deps.db, p, 'team', async (existing, tx) => {
    await audit(tx, p, 'webhook.secret_set', { type: 'webhook_endpoint', id: existing?.id }, { scope: 'team', generated, rotated: Boolean(existing?.secret_ciphertext) });
    return rotatedColumns(secretsKey, existing, secret, webhook.secretOverlapMs) as Partial<EndpointRow>;
  });
  return { settings: settingsOf(row, 'team'), secret: generated ? secret : null };
}

/** Stop the team-wide webhook (the secret stays for when a URL is set again). */
export async function clearTeamWebhook(db: Knex, p: Principal): Promise<WebhookSettings> {
  requireTeamWebhookManager(p);
  const existing = await teamEndpoint(db, p.teamId);
  if (!existing?.url) return settingsOf(existing, 'team');
  const row = await writeEndpoint(db, p, 'team', async (_existing, tx) => {
    await audit(tx, p, 'webhook.url_cleared', { type: 'webhook_endpoint', id: existing.id }, { scope: 'team' });
    return { url: null, disabled_at: null, disabled_reason: null };
  });
  return settingsOf(row, 'team');
}

// ---------------------------------------------------------------------------------------------------
// Preparing the deliveries of a meeting whose transcript is ready (the worker's activity).
// ---------------------------------------------------------------------------------------------------

interface DeliveryDraft {
  target: WebhookTarget;
  url: string;
  user_id: string | null;
  endpoint_id: string | null;
  status: 'pending' | 'skipped';
  last_error: string | null;
}

/** Why a saved endpoint cannot be sent to right now, or null when it can. */
export function endpointBlocker(ep: EndpointRow, scope: 'user' | 'team', teamTier?: string): string | null {
  if (!ep.url) return scope === 'user' ? 'the saved webhook URL was cleared' : 'the team-wide webhook URL was cleared';
  if (ep.disabled_at) return `the endpoint is disabled (${ep.disabled_reason ?? 'the receiver answered 410 Gone'}); save its URL again to re-enable it`;
  if (!ep.secret_ciphertext) return 'no webhook secret is set, and a saved webhook is never sent unsigned; set a secret in developer settings';
  if (scope === 'team' && teamTier !== undefined && teamTier !== 'enterprise') return `team-wide webhooks need the Enterprise tier; the team is on ${teamTier}`;
  return null;
}

/**
 * The deliveries of a meeting whose transcript is ready: one ledger row per target (made once: a
 * retried call finds the rows it made), and the workflow to start for each one that can be sent.
 * Targets that cannot be sent (no secret, disabled, tier) are recorded `skipped` with the reason.
 */
export async function prepareDeliveries(db: Knex, config: Pick<Config, 'webhook'>, meetingId: string): Promise<PreparedDelivery[]> {
  const m = await db('meetings')
    .where({ id: meetingId })
    .first('id', 'team_id', 'organizer_email', 'uploader_id', 'upload_webhook', 'client_reference_id', 'status');
  if (!m || m.status !== 'completed') return [];
  const drafts: DeliveryDraft[] = [];

  if (m.upload_webhook) {
    const ep = m.uploader_id ? await userEndpoint(db, m.uploader_id) : undefined;
    drafts.push({ target: 'upload', url: m.upload_webhook, user_id: m.uploader_id, endpoint_id: ep?.id ?? null, status: 'pending', last_error: null });
  }

  // The owner is the user whose email is the organizer email, in the meeting's team.
  const owner = await db('users').where({ team_id: m.team_id }).whereRaw('lower(email) = lower(?)', [m.organizer_email]).first('id');
  if (owner) {
    const ep = await userEndpoint(db, owner.id);
    const sameAsUpload = m.upload_webhook && m.uploader_id === owner.id && ep?.url === m.upload_webhook;
    if (ep?.url && !sameAsUpload) {
      const blocker = endpointBlocker(ep, 'user');
      drafts.push({ target: 'owner', url: ep.url, user_id: owner.id, endpoint_id: ep.id, status: blocker ? 'skipped' : 'pending', last_error: blocker });
    }
  }

  const teamEp = await teamEndpoint(db, m.team_id);
  if (teamEp?.url) {
    const team = await db('teams').where({ id: m.team_id }).first('tier');
    const blocker = endpointBlocker(teamEp, 'team', team?.tier);
    drafts.push({ target: 'team', url: teamEp.url, user_id: null, endpoint_id: teamEp.id, status: blocker ? 'skipped' : 'pending', last_error: blocker });
  }

  if (drafts.length) {
    const payload = webhookPayload(m);
    const inserted: { status: string }[] = await db('webhook_deliveries')
      .insert(drafts.map((d) => ({ id: newId(), team_id: m.team_id, meeting_id: m.id, payload, ready_at: db.fn.now(), ...d })))
      .onConflict(['meeting_id', 'target'])
      .ignore()
      .returning(['status']);
    for (const row of inserted) if (row.status === 'skipped') webhookDeliveries.inc({ outcome: 'skipped' });
  }

  const rows: { id: string; target: WebhookTarget }[] = await db('webhook_deliveries')
    .where({ meeting_id: meetingId })
    .whereNot({ status: 'skipped' })
    .orderByRaw("array_position(array['upload','owner','team']::text[], target)")
    .select('id', 'target');
  return rows.map((r) => ({
    workflowId: webhookWorkflowId(meetingId, r.target),
    input: { deliveryId: r.id, meetingId, target: r.target, scheduleMs: config.webhook.retryScheduleMs, timeoutMs: config.webhook.timeoutMs },
  }));
}

// ---------------------------------------------------------------------------------------------------
// The ledger: deliveries with their attempts, newest first, and redelivery.
// ---------------------------------------------------------------------------------------------------

export interface WebhookAttemptRecord {
  attempt_no: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string;
}

export interface WebhookDeliveryRecord {
  id: string;
  meeting_id: string;
  target: WebhookTarget;
  url: string;
  status: DeliveryStatus;
  attempts_count: number;
  redelivery_count: number;
  /** The exact body sent (and signed) on every attempt. */
  payload: string;
  ready_at: string;
  delivered_at: string | null;
  last_error: string | null;
  created_at: string;
  /** The latest attempts (at most 50), oldest first. */
  attempts: WebhookAttemptRecord[];
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface DeliveryListArgs {
  scope?: 'user' | 'team';
  meetingId?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function encodeCursor(scope: string, after: string): string {
  return Buffer.from(JSON.stringify({ s: scope, a: after }), 'utf8').toString('base64url');
}

function decodeCursor(scope: string, raw: string): string {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { s?: unknown; a?: unknown };
    if (c.s === scope && typeof c.a === 'string' && ULID.test(c.a)) return c.a;
  } catch {
    // fall through
  }
  throw invalid('cursor', 'a next_cursor from a previous page', 'cursor must be the next_cursor of a previous page of the same scope; omit it for the first page');
}

function deliveryRecord(row: Record<string, any>, attempts: WebhookAttemptRecord[]): WebhookDeliveryRecord {
  return {
    id: row.id,
    meeting_id: row.meeting_id,
    target: row.target,
    url: row.url,
    status: row.status,
    attempts_count: Number(row.attempts_count),
    redelivery_count: Number(row.redelivery_count ?? 0),
    payload: row.payload,
    ready_at: iso(row.ready_at)!,
    delivered_at: iso(row.delivered_at),
    last_error: row.last_error ?? null,
    created_at: iso(row.created_at)!,
    attempts,
  };
}

async function attemptsOf(db: Knex, deliveryIds: string[]): Promise<Map<string, WebhookAttemptRecord[]>> {
  const out = new Map<string, WebhookAttemptRecord[]>(deliveryIds.map((id) => [id, []]));
  if (!deliveryIds.length) return out;
  const rows = await db
    .select('*')
    .from(
      db('webhook_attempts')
        .whereIn('delivery_id', deliveryIds)
        .select('delivery_id', 'attempt_no', 'status_code', 'latency_ms', 'error', 'created_at')
        .select(db.raw('row_number() over (partition by delivery_id order by attempt_no desc) as rn'))
        .as('a'),
    )
    .where('rn', '<=', LEDGER_LIMITS.attemptsShown)
    .orderBy([{ column: 'delivery_id' }, { column: 'attempt_no' }]);
  for (const r of rows) {
    out.get(r.delivery_id)!.push({
      attempt_no: r.attempt_no,
      status_code: r.status_code ?? null,
      latency_ms: r.latency_ms ?? null,
      error: r.error ?? null,
      created_at: iso(r.created_at)!,
    });
  }
  return out;
}

/**
 * The caller's deliveries, newest first: scope `user` (default) lists those of their per-upload and
 * saved webhooks; scope `team` those of the team-wide webhook (super admin, Enterprise).
 */
export async function listWebhookDeliveries(db: Knex, p: Principal, args: DeliveryListArgs = {}): Promise<WebhookDeliveryPage> {
  const scope = requireOneOf('scope', args.scope ?? 'user', ['user', 'team'] as const);
  if (scope === 'team') requireTeamWebhookManager(p);
  const limit = args.limit ?? LEDGER_LIMITS.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LEDGER_LIMITS.maxLimit) {
    throw invalid('limit', `whole number 1 to ${LEDGER_LIMITS.maxLimit}`, `limit must be a whole number from 1 to ${LEDGER_LIMITS.maxLimit}; got ${limit}`);
  }
  const status = args.status !== undefined ? requireOneOf('status', args.status, DELIVERY_STATUSES) : undefined;
  const after = args.cursor !== undefined ? decodeCursor(scope, args.cursor) : undefined;

  const q = db('webhook_deliveries as d');
  if (scope === 'user') q.where('d.user_id', p.userId).whereNot('d.target', 'team');
  else q.where('d.team_id', p.teamId).where('d.target', 'team');
  if (args.meetingId !== undefined) q.where('d.meeting_id', args.meetingId);
  if (status) q.where('d.status', status);
  if (after) q.where('d.id', '<', after);
  const rows = await q.orderBy('d.id', 'desc').limit(limit + 1).select('d.*');
  const page = rows.slice(0, limit);
  const attempts = await attemptsOf(db, page.map((r) => r.id));
  const hasMore = rows.length > limit;
  return {
    deliveries: page.map((r) => deliveryRecord(r, attempts.get(r.id)!)),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(scope, page[page.length - 1].id) : null,
  };
}

async function visibleDelivery(db: Knex, p: Principal, id: string): Promise<Record<string, any>> {
  const row = typeof id === 'string' && ULID.test(id) ? await db('webhook_deliveries as d').where('d.id', id).where(webhookDeliveryVisibleTo(p, 'd')).first('d.*') : undefined;
  if (!row) throw notFound('webhook delivery', String(id));
  return row;
}

export async function getWebhookDelivery(db: Knex, p: Principal, id: string): Promise<WebhookDeliveryRecord> {
  const row = await visibleDelivery(db, p, id);
  return deliveryRecord(row, (await attemptsOf(db, [row.id])).get(row.id)!);
}

/** An answer from Temporal within this long, or the redelivery is refused (and nothing changes). */
const START_DEADLINE_MS = 5_000;

/**
 * Send a delivery again: a new WebhookDeliveryWorkflow run with the same delivery id and the same
 * payload bytes, on the full retry schedule. A run still waiting to retry is replaced (terminated), so
 * "redeliver" also means "retry now". Saved endpoints are sent to their current URL and secret, and
 * must be sendable (URL set, not disabled, secret set).
 */
export async function redeliverWebhook(deps: WebhookDeps, p: Principal, deliveryId: string): Promise<WebhookDeliveryRecord> {
  const row = await visibleDelivery(deps.db, p, deliveryId);
  if (!deps.temporal) throw new ServiceError('feature_unavailable', 'redelivery is not available on this server: it has no Temporal connection');
  const target = row.target as WebhookTarget;
  let url: string = row.url;
  if (target !== 'upload') {
    const ep = target === 'team' ? await teamEndpoint(deps.db, row.team_id) : row.user_id ? await userEndpoint(deps.db, row.user_id) : undefined;
    const team = target === 'team' ? await deps.db('teams').where({ id: row.team_id }).first('tier') : undefined;
    const blocker = ep ? endpointBlocker(ep, target === 'team' ? 'team' : 'user', team?.tier) : 'the saved webhook no longer exists';
    if (blocker) throw invalid('deliveryId', 'the endpoint must be able to receive', `this delivery cannot be sent again: ${blocker}`);
    url = ep!.url!;
  }

  const before = { status: row.status, last_error: row.last_error, url: row.url, redelivery_count: row.redelivery_count };
  await deps.db.transaction(async (tx) => {
    await tx('webhook_deliveries')
      .where({ id: row.id })
      .update({ status: 'pending', last_error: null, url, redelivery_count: tx.raw('redelivery_count + 1') });
    await audit(tx, p, 'webhook.redelivered', { type: 'webhook_delivery', id: row.id }, { target, meeting_id: row.meeting_id, previous_status: row.status });
  });

  const input: WebhookDeliveryInput = {
    deliveryId: row.id,
    meetingId: row.meeting_id,
    target,
    scheduleMs: deps.config.webhook.retryScheduleMs,
    timeoutMs: deps.config.webhook.timeoutMs,
    redelivery: true,
  };
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal!.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue: deps.config.temporal.taskQueue,
        workflowId: webhookWorkflowId(row.meeting_id, target),
        args: [input],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
      }),
    );
  } catch (e) {
    (deps.log ?? logger).error({ err: e, deliveryId: row.id }, 'could not start a webhook redelivery');
    await deps.db('webhook_deliveries').where({ id: row.id, status: 'pending' }).update(before);
    throw new ServiceError('internal_error', 'The redelivery could not be queued right now; nothing changed. Try again in a moment.');
  }
  return getWebhookDelivery(deps.db, p, row.id);
}
