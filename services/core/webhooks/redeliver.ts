/** Sending a delivery again, on an admin's or its owner's request. */
import { audit } from '../audit';
import { invalid, ServiceError } from '../../platform/errors';
import type { Principal } from '../access';
import { logger } from '../../platform/logger';
import { endpointBlocker } from './deliveries';
import { getWebhookDelivery, visibleDelivery, type WebhookDeliveryRecord } from './ledger';
import { teamEndpoint, userEndpoint } from './settings';
import type { WebhookDeliveryInput, WebhookDeps, WebhookEvent, WebhookTarget } from './types';
import { isV2Event } from './events';

/**
 * Send a delivery again: a new WebhookDeliveryWorkflow run with the same delivery id and the same
 * payload bytes, on the full retry schedule. A run still waiting to retry is replaced (terminated), so
 * "redeliver" also means "retry now". Saved endpoints are sent to their current URL and secret, and
 * must be sendable (URL set, not disabled, secret set).
 */
export async function redeliverWebhook(
  deps: WebhookDeps,
  p: Principal,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  const row = await visibleDelivery(deps.db, p, deliveryId);
  if (!deps.workflows)
    throw new ServiceError(
      'feature_unavailable',
      'redelivery is not available on this server: it has no Temporal connection',
    );
  const target = row.target as WebhookTarget;
  let url: string = row.url;
  if (target !== 'upload') {
    const ep =
      target === 'team'
        ? await teamEndpoint(deps.db, row.team_id)
        : row.user_id
          ? await userEndpoint(deps.db, row.user_id)
          : undefined;
    const team = target === 'team' ? await deps.db('teams').where({ id: row.team_id }).first('tier') : undefined;
    const blocker = ep
      ? endpointBlocker(ep, target === 'team' ? 'team' : 'user', team?.tier)
      : 'the saved webhook no longer exists';
    if (blocker)
      throw invalid(
        'deliveryId',
        'the endpoint must be able to receive',
        `this delivery cannot be sent again: ${blocker}`,
      );
    url = ep!.url!;
  }

  const before = {
    status: row.status,
    last_error: row.last_error,
    url: row.url,
    redelivery_count: row.redelivery_count,
  };
  await deps.db.transaction(async (tx) => {
    await tx('webhook_deliveries')
      .where({ id: row.id })
      .update({ status: 'pending', last_error: null, url, redelivery_count: tx.raw('redelivery_count + 1') });
    await audit(
      tx,
      p,
      'webhook.redelivered',
      { type: 'webhook_delivery', id: row.id },
      { target, meeting_id: row.meeting_id, previous_status: row.status },
    );
  });

  const input: WebhookDeliveryInput = {
    deliveryId: row.id,
    meetingId: row.meeting_id,
    target,
    ...(isV2Event(row.event) ? { event: row.event as WebhookEvent } : {}),
    ...(row.event_id ? { eventId: row.event_id as string } : {}),
    scheduleMs: deps.config.webhook.retryScheduleMs,
    timeoutMs: deps.config.webhook.timeoutMs,
    redelivery: true,
  };
  try {
    await deps.workflows.redeliverWebhook(input);
  } catch (e) {
    (deps.log ?? logger).error({ err: e, deliveryId: row.id }, 'could not start a webhook redelivery');
    await deps.db('webhook_deliveries').where({ id: row.id, status: 'pending' }).update(before);
    throw new ServiceError(
      'internal_error',
      'The redelivery could not be queued right now; nothing changed. Try again in a moment.',
    );
  }
  return getWebhookDelivery(deps.db, p, row.id);
}
