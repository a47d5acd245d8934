import type { Knex } from 'knex';

/**
 * Action items as records (services/core/action-items), and webhook events beside the V1 payload
 * (services/core/webhooks).
 *
 * action_items: one row per commitment a summary found, kept across summaries. `item_key` is the
 * item's words folded (case and spacing), unique within the meeting, so a summary run again updates
 * the rows it made instead of adding new ones. What a person set (status, owner, due date) is marked by
 * the `*_set_by` columns and never overwritten by a later summary. The meeting's date is copied onto
 * the row: the list pages newest meeting first by it, from the team's index, without reading meetings
 * first; a meeting's date never changes.
 *
 * webhook_endpoints.events: the events a saved webhook subscribes to; null means the V1 event alone,
 * as every endpoint saved before events existed. webhook_deliveries.event: which event a delivery
 * carries; the ledger keeps one delivery per meeting, target and event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('action_items', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.timestamp('meeting_date', { useTz: true }).notNullable();
    t.text('item_key').notNullable();
    t.text('text').notNullable();
    t.integer('sentence_index').notNullable();
    t.double('start_time').notNullable();
    t.text('speaker_name');
    t.text('owner_name');
    t.text('owner_email');
    t.text('due_phrase');
    t.date('due_date');
    t.text('status').notNullable().defaultTo('open');
    t.text('status_set_by');
    t.text('owner_set_by');
    t.text('due_set_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("status in ('open','done')", [], 'action_items_status_check');
    t.unique(['meeting_id', 'item_key'], { indexName: 'action_items_meeting_key_unique' });
  });
  await knex.raw(
    'create index action_items_team_order_idx on action_items (team_id, meeting_date desc, meeting_id desc, sentence_index, id)',
  );
  await knex.raw(
    'create index action_items_owner_idx on action_items (lower(owner_email), meeting_date desc, meeting_id desc, sentence_index, id) where owner_email is not null',
  );

  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.specificType('events', 'text[]');
  });
  await knex.schema.alterTable('meetings', (t) => {
    t.specificType('upload_webhook_events', 'text[]');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.text('event').notNullable().defaultTo('Transcription completed');
  });
  await knex.raw('drop index if exists webhook_deliveries_meeting_target_unique');
  await knex.raw(
    'create unique index webhook_deliveries_meeting_target_event_unique on webhook_deliveries (meeting_id, target, event)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists webhook_deliveries_meeting_target_event_unique');
  await knex.raw("delete from webhook_deliveries where event <> 'Transcription completed'");
  await knex.raw(
    'create unique index webhook_deliveries_meeting_target_unique on webhook_deliveries (meeting_id, target)',
  );
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('event');
  });
  await knex.schema.alterTable('meetings', (t) => {
    t.dropColumn('upload_webhook_events');
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('events');
  });
  await knex.schema.dropTable('action_items');
}
