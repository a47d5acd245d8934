/** Webhook events: what a subscription may name, what none means, and the V2 payload's exact bytes. */
import {
  checkWebhookEvents,
  isV2Event,
  subscribedEvents,
  v2Payload,
  WEBHOOK_EVENTS,
} from '../../../services/core/webhooks';

describe('webhook events', () => {
  it("a subscription names 1 to 8 distinct known events, kept in the events' own order", () => {
    expect(checkWebhookEvents('events', [...WEBHOOK_EVENTS].reverse())).toEqual([...WEBHOOK_EVENTS]);
    expect(checkWebhookEvents('events', ['meeting.summarized'])).toEqual(['meeting.summarized']);
    expect(checkWebhookEvents('events', null)).toBeNull();
    expect(checkWebhookEvents('events', undefined)).toBeNull();
    expect(() => checkWebhookEvents('events', [])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'events' }) }),
    );
    expect(() => checkWebhookEvents('events', [...WEBHOOK_EVENTS, 'meeting.summarized'])).toThrow(
      /1 to 8 distinct events/,
    );
    expect(() => checkWebhookEvents('events', ['meeting.summarized', 'meeting.summarized'])).toThrow(
      /names an event twice/,
    );
    expect(() => checkWebhookEvents('webhook_events', ['meeting.summarized', 'Meeting.Transcribed'])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'webhook_events.1' }) }),
    );
    expect(() => checkWebhookEvents('events', 'meeting.summarized')).toThrow(/must be a list/);
  });

  it('no subscription is the V1 event alone; V2 events are told apart from it', () => {
    expect(subscribedEvents(null)).toEqual(['Transcription completed']);
    expect(subscribedEvents([])).toEqual(['Transcription completed']);
    expect(subscribedEvents(['action_items.created', 'meeting.transcribed'])).toEqual([
      'meeting.transcribed',
      'action_items.created',
    ]);
    expect([isV2Event('Transcription completed'), isV2Event(undefined), isV2Event('meeting.summarized')]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("the V2 payload is Fireflies' fields in their order, client_reference_id null when none was set", () => {
    expect(v2Payload('meeting.transcribed', { id: 'M1', client_reference_id: null }, 1710876543210)).toBe(
      '{"event":"meeting.transcribed","timestamp":1710876543210,"meeting_id":"M1","client_reference_id":null}',
    );
    expect(
      JSON.parse(v2Payload('action_items.created', { id: 'M1', client_reference_id: 'r' }, 1, { action_items: [] })),
    ).toEqual({
      event: 'action_items.created',
      timestamp: 1,
      meeting_id: 'M1',
      client_reference_id: 'r',
      action_items: [],
    });
    expect(
      v2Payload('meeting.failed', { id: 'M1', client_reference_id: null }, 2, { reason: 'the file was not found' }),
    ).toBe(
      '{"event":"meeting.failed","timestamp":2,"meeting_id":"M1","client_reference_id":null,"reason":"the file was not found"}',
    );
  });
});
