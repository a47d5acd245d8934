/**
 * Saved webhooks: a user's developer settings (scope user) and the team-wide webhook (scope team),
 * with their secrets (secrets.ts). Who is sent what when a transcript is ready is deliveries.ts.
 */
import type { Knex } from 'knex';
import { requireTeamWebhookManager, type Principal } from '../access';
import { audit } from '../audit';
import { newId } from '../input';
import { chooseSecret, rotatedColumns, type SecretColumns } from './secrets';
import type { WebhookDeps } from './types';
import { validateWebhookUrl } from './url';
import { checkWebhookEvents, subscribedEvents } from './events';

export interface EndpointRow extends SecretColumns {
  id: string;
  scope: 'user' | 'team';
  team_id: string;
  user_id: string | null;
  url: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  /** The events it subscribes to (events.ts); null: the V1 event alone. */
  events: string[] | null;
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
  /** The events it is sent: the V1 `Transcription completed` unless chosen otherwise. */
  events: string[];
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
  const overlapping =
    row?.previous_secret_ciphertext && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now;
  let notice: string | null = null;
  if (!row?.url)
    notice =
      scope === 'user'
        ? 'No webhook URL is saved; per-upload webhooks still fire.'
        : 'No team-wide webhook URL is set.';
  else if (row.disabled_at)
    notice = `Disabled: ${row.disabled_reason ?? 'the receiver answered 410 Gone'}. Save the URL again to re-enable it.`;
  else if (!row.secret_ciphertext)
    notice = 'No secret is set: deliveries to the saved webhook are skipped (never sent unsigned) until you set one.';
  return {
    url: row?.url ?? null,
    secret_set: Boolean(row?.secret_ciphertext),
    previous_secret_expires_at: overlapping ? iso(row!.previous_secret_expires_at) : null,
    disabled_at: iso(row?.disabled_at),
    disabled_reason: row?.disabled_reason ?? null,
    updated_at: iso(row?.updated_at),
    events: subscribedEvents(row?.events),
    notice,
  };
}

export async function userEndpoint(
  db: Knex | Knex.Transaction,
  userId: string,
  forUpdate = false,
): Promise<EndpointRow | undefined> {
  const q = db('webhook_endpoints').where({ scope: 'user', user_id: userId });
  if (forUpdate) q.forUpdate();
  return q.first();
}

export async function teamEndpoint(
  db: Knex | Knex.Transaction,
  teamId: string,
  forUpdate = false,
): Promise<EndpointRow | undefined> {
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
  change: (
    existing: EndpointRow | undefined,
    tx: Knex.Transaction,
  ) => Promise<Partial<EndpointRow>> | Partial<EndpointRow>,
  retried = false,
): Promise<EndpointRow> {
  try {
    return await db.transaction(async (tx) => {
      const existing =
        scope === 'user' ? await userEndpoint(tx, p.userId, true) : await teamEndpoint(tx, p.teamId, true);
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
    if ((e as { code?: string }).code === UNIQUE_VIOLATION && !retried)
      return writeEndpoint(db, p, scope, change, true);
    throw e;
  }
}

const hostOf = (url: string) => new URL(url).host;

// --- a user's developer settings --------------------------------------------------------------------

export async function getDeveloperSettings(db: Knex, p: Principal): Promise<WebhookSettings> {
  return settingsOf(await userEndpoint(db, p.userId), 'user');
}

/** Save the caller's webhook URL (it re-enables an endpoint a 410 disabled), and its events when given. */
export async function saveWebhookUrl(
  deps: Pick<WebhookDeps, 'db' | 'config'>,
  p: Principal,
  rawUrl: unknown,
  rawEvents?: unknown,
): Promise<WebhookSettings> {
  const url = validateWebhookUrl('url', rawUrl, deps.config);
  const events = checkWebhookEvents('events', rawEvents);
  const row = await writeEndpoint(deps.db, p, 'user', async (_existing, tx) => {
    await audit(
      tx,
      p,
      'webhook.url_saved',
      { type: 'webhook_endpoint' },
      { scope: 'user', host: hostOf(url), ...(events ? { events } : {}) },
    );
    return { url, disabled_at: null, disabled_reason: null, ...(events ? { events } : {}) };
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
    await audit(
      tx,
      p,
      'webhook.secret_set',
      { type: 'webhook_endpoint', id: existing?.id },
      { scope: 'user', generated, rotated: Boolean(existing?.secret_ciphertext) },
    );
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
  args: { url: unknown; secret?: string | null; events?: unknown },
): Promise<SecretAnswer> {
  requireTeamWebhookManager(p);
  const url = validateWebhookUrl('url', args.url, deps.config);
  const events = checkWebhookEvents('events', args.events);
  const custom =
    args.secret !== undefined && args.secret !== null ? chooseSecret({ secret: args.secret }).secret : undefined;
  const { secretsKey, webhook } = deps.config;
  let generated: string | null = null;
  const row = await writeEndpoint(deps.db, p, 'team', async (existing, tx) => {
    let secretColumns: Partial<EndpointRow> = {};
    if (custom !== undefined)
      secretColumns = rotatedColumns(secretsKey, existing, custom, webhook.secretOverlapMs) as Partial<EndpointRow>;
    else if (!existing?.secret_ciphertext) {
      generated = chooseSecret({ generate: true }).secret;
      secretColumns = rotatedColumns(secretsKey, existing, generated, webhook.secretOverlapMs) as Partial<EndpointRow>;
    }
    await audit(
      tx,
      p,
      'webhook.url_saved',
      { type: 'webhook_endpoint', id: existing?.id },
      {
        scope: 'team',
        host: hostOf(url),
        secret: custom !== undefined ? 'custom' : generated ? 'generated' : 'kept',
        ...(events ? { events } : {}),
      },
    );
    return { url, disabled_at: null, disabled_reason: null, ...secretColumns, ...(events ? { events } : {}) };
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
    await audit(
      tx,
      p,
      'webhook.secret_set',
      { type: 'webhook_endpoint', id: existing?.id },
      { scope: 'team', generated, rotated: Boolean(existing?.secret_ciphertext) },
    );
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
