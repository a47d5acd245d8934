/**
 * The pure parts of webhook delivery: signatures (against GitHub's published x-hub-signature example),
 * the headers of one attempt, the schedule's waits (jitter, Retry-After, the cap), and the
 * post-processing list of delivery children.
 */
import {
  hubSignature,
  standardSignature,
  verifyHubSignature,
  verifyStandardSignature,
  webhookHeaders,
} from '../../../../services/core/webhooks/signing';
import { webhookPayload } from '../../../../services/core/webhooks/deliveries';
import { delayBefore, withJitter } from '../../../../workflows/webhook-delivery';
import { postProcessingChildren, webhookDeliveryChildren } from '../../../../workflows/post-processing';

describe('webhook signing', () => {
  it('matches the published HMAC-SHA256 example (GitHub webhooks docs), as lowercase hex without prefix', () => {
    expect(hubSignature("It's a Secret to Everybody", 'Hello, World!')).toBe(
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
    expect(
      verifyHubSignature(
        "It's a Secret to Everybody",
        Buffer.from('Hello, World!'),
        '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      ),
    ).toBe(true);
    expect(
      verifyHubSignature(
        "It's a Secret to Everybody",
        Buffer.from('Hello, World?'),
        '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      ),
    ).toBe(false);
    expect(verifyHubSignature("It's a Secret to Everybody", 'Hello, World!', 'abc')).toBe(false);
    expect(verifyHubSignature("It's a Secret to Everybody", 'Hello, World!', undefined)).toBe(false);
  });

  it('builds the headers of one attempt: unsigned without a secret, both signatures during an overlap', () => {
    const body = webhookPayload({ id: '01JD4Q9C3V6F2M8B0X1T5R7K9H', client_reference_id: null });
    expect(body).toBe('{"meetingId":"01JD4Q9C3V6F2M8B0X1T5R7K9H","eventType":"Transcription completed"}');
    const unsigned = webhookHeaders({ deliveryId: 'D1', attemptNo: 2, timestamp: 1_800_000_000, body });
    expect(unsigned).toEqual({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^meeting-intelligence-webhooks\//),
      'x-delivery-id': 'D1',
      'x-delivery-timestamp': '1800000000',
      'x-delivery-attempt': '2',
    });

    const h = webhookHeaders({
      deliveryId: 'D1',
      attemptNo: 1,
      timestamp: 1_800_000_000,
      body,
      secrets: { current: 'new-secret-00000000', previous: 'old-secret-00000000' },
    });
    expect(h['x-hub-signature']).toBe(hubSignature('new-secret-00000000', body));
    expect(h['x-hub-signature-previous']).toBe(hubSignature('old-secret-00000000', body));
    expect(h['webhook-id']).toBe('D1');
    expect(h['webhook-timestamp']).toBe('1800000000');
    expect(h['webhook-signature']).toBe(
      `v1,${standardSignature('new-secret-00000000', 'D1', 1_800_000_000, body)} v1,${standardSignature('old-secret-00000000', 'D1', 1_800_000_000, body)}`,
    );
    expect(verifyStandardSignature('old-secret-00000000', 'D1', '1800000000', body, h['webhook-signature'])).toBe(true);
    expect(verifyStandardSignature('new-secret-00000000', 'D1', '1800000001', body, h['webhook-signature'])).toBe(
      false,
    );
    expect(verifyStandardSignature('other-secret-000000', 'D1', '1800000000', body, h['webhook-signature'])).toBe(
      false,
    );
  });
});

describe('the schedule', () => {
  const schedule = [0, 5_000, 300_000, 1_800_000];

  it('adds up to 10% jitter, never to an immediate attempt', () => {
    expect(withJitter(0, () => 0.99)).toBe(0);
    expect(withJitter(5_000, () => 0)).toBe(5_000);
    expect(withJitter(5_000, () => 0.999)).toBe(5_500);
    expect(withJitter(5_000, () => 1)).toBe(5_500);
  });

  it('waits longer when the receiver asks (Retry-After), never shorter, and at most the longest delay', () => {
    const r = () => 0;
    expect(delayBefore(0, schedule, 60_000, r)).toBe(0);
    expect(delayBefore(1, schedule, null, r)).toBe(5_000);
    expect(delayBefore(1, schedule, 1_000, r)).toBe(5_000);
    expect(delayBefore(1, schedule, 60_000, r)).toBe(60_000);
    expect(delayBefore(1, schedule, 1_799_999, r)).toBe(1_799_999);
    expect(delayBefore(1, schedule, 1_800_001, r)).toBe(1_800_000);
    expect(delayBefore(2, schedule, 24 * 3_600_000, r)).toBe(1_800_000);
  });
});

describe('post-processing list', () => {
  it('has one WebhookDeliveryWorkflow per prepared delivery, after the other children', () => {
    const input = (deliveryId: string, target: 'upload' | 'team') => ({
      deliveryId,
      meetingId: 'M',
      target,
      scheduleMs: [0],
      timeoutMs: 1000,
    });
    const webhooks = [
      { workflowId: 'webhook-M-upload', input: input('D1', 'upload') },
      { workflowId: 'webhook-M-team', input: input('D2', 'team') },
    ];
    expect(webhookDeliveryChildren({ meetingId: 'M', webhooks })).toEqual([
      { workflowType: 'WebhookDeliveryWorkflow', workflowId: 'webhook-M-upload', args: [input('D1', 'upload')] },
      { workflowType: 'WebhookDeliveryWorkflow', workflowId: 'webhook-M-team', args: [input('D2', 'team')] },
    ]);
    expect(webhookDeliveryChildren({ meetingId: 'M' })).toEqual([]);
    const all = postProcessingChildren({ meetingId: 'M', webhooks });
    expect(all.slice(-2).map((c) => c.workflowId)).toEqual(['webhook-M-upload', 'webhook-M-team']);
  });
});
