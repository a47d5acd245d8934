import type { Knex } from 'knex';

/**
 * The webhook ledger's invariants (services/core/webhooks: deliveries.ts, sender.ts, ledger.ts):
 *   - one delivery per meeting and target, so preparing the deliveries again (a retried activity)
 *     finds the rows it made instead of making new ones with new delivery ids;
 *   - attempt numbers unique within a delivery (they are allocated under the delivery's row lock);
 *   - how often a delivery was redelivered by hand;
 *   - the orders the GraphQL ledger pages in (newest first per user, and per team for team webhooks).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create unique index webhook_deliveries_meeting_target_unique on webhook_deliveries (meeting_id, target)',
  );
  await knex.raw(
    'create unique index webhook_attempts_delivery_attempt_unique on webhook_attempts (delivery_id, attempt_no)',
  );
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.integer('redelivery_count').notNullable().defaultTo(0);
  });
  await knex.raw('create index webhook_deliveries_user_id_idx on webhook_deliveries (user_id, id desc)');
  await knex.raw(
    "create index webhook_deliveries_team_id_idx on webhook_deliveries (team_id, id desc) where target = 'team'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists webhook_deliveries_team_id_idx');
  await knex.raw('drop index if exists webhook_deliveries_user_id_idx');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('redelivery_count');
  });
  await knex.raw('drop index if exists webhook_attempts_delivery_attempt_unique');
  await knex.raw('drop index if exists webhook_deliveries_meeting_target_unique');
}
