import type { Knex } from 'knex';

/**
 * The initial data model (the later migrations of this folder add to it). Ids are text (ULIDs made by the application), so a malformed id
 * from a caller is simply "not found" and never a cast error.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('tier').notNullable().defaultTo('free');
    t.specificType('feature_flags', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("tier in ('free','pro','business','enterprise')", [], 'teams_tier_check');
  });

  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('role').notNullable().defaultTo('member');
    t.text('picture');
    t.decimal('minutes_consumed', 14, 2).notNullable().defaultTo(0);
    t.jsonb('integrations').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("role in ('member','admin','super_admin')", [], 'users_role_check');
    t.index(['team_id']);
  });
  await knex.raw('create unique index users_email_unique on users (lower(email))');

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('prefix').notNullable().unique();
    t.text('hash').notNullable();
    t.text('name');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id']);
  });

  await knex.schema.createTable('user_groups', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('handle').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'handle']);
  });

  await knex.schema.createTable('user_group_members', (t) => {
    t.text('group_id').notNullable().references('user_groups.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().defaultTo('member');
    t.primary(['group_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('channels', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.boolean('is_private').notNullable().defaultTo(false);
    t.text('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id']);
  });

  await knex.schema.createTable('channel_members', (t) => {
    t.text('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().defaultTo('member');
    t.primary(['channel_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('meetings', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('organizer_id').references('users.id').onDelete('SET NULL');
    t.text('organizer_email').notNullable();
    t.text('uploader_id').references('users.id').onDelete('SET NULL');
    t.text('title').notNullable();
    t.timestamp('date', { useTz: true }).notNullable();
    t.double('duration_seconds').notNullable().defaultTo(0);
    t.text('privacy').notNullable().defaultTo('teammatesandparticipants');
    t.text('channel_id').references('channels.id').onDelete('SET NULL');
    t.text('status').notNullable().defaultTo('processing');
    t.text('failure_reason');
    t.boolean('is_live').notNullable().defaultTo(false);
    t.text('live_state');
    t.text('meeting_link');
    t.timestamp('scheduled_start', { useTz: true });
    t.timestamp('scheduled_end', { useTz: true });
    t.text('meeting_type');
    t.text('source_url');
    t.text('client_reference_id');
    t.text('custom_language');
    t.text('upload_webhook');
    t.jsonb('upload_options').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(
      "privacy in ('link','owner','participants','teammatesandparticipants','teammates')",
      [],
      'meetings_privacy_check',
    );
    t.check("status in ('processing','live','completed','failed')", [], 'meetings_status_check');
    t.check("live_state is null or live_state in ('active','paused')", [], 'meetings_live_state_check');
    t.index(['team_id', 'date']);
    t.index(['organizer_email']);
    t.index(['organizer_id']);
    t.index(['channel_id']);
  });
  await knex.raw(
    "alter table meetings add column title_tsv tsvector generated always as (to_tsvector('english', coalesce(title, ''))) stored",
  );
  await knex.raw('create index meetings_title_tsv_idx on meetings using gin (title_tsv)');
  await knex.raw('create index meetings_team_live_idx on meetings (team_id, live_state) where is_live');
  await knex.raw(
    'create unique index meetings_client_reference_unique on meetings (uploader_id, client_reference_id) where client_reference_id is not null',
  );

  await knex.schema.createTable('meeting_participants', (t) => {
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name');
    t.text('user_id').references('users.id').onDelete('SET NULL');
    t.primary(['meeting_id', 'email']);
  });
  await knex.raw('create index meeting_participants_email_idx on meeting_participants (lower(email))');

  await knex.schema.createTable('sentences', (t) => {
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.integer('idx').notNullable();
    t.text('speaker_name').notNullable();
    t.integer('speaker_id').notNullable();
    t.text('text').notNullable();
    t.text('raw_text').notNullable();
    t.double('start_time').notNullable();
    t.double('end_time').notNullable();
    t.text('chunk_id');
    t.primary(['meeting_id', 'idx']);
  });
  await knex.raw(
    "alter table sentences add column tsv tsvector generated always as (to_tsvector('english', text)) stored",
  );
  await knex.raw('create index sentences_tsv_idx on sentences using gin (tsv)');
  await knex.raw('create index sentences_chunk_idx on sentences (meeting_id, chunk_id) where chunk_id is not null');

  await knex.schema.createTable('summaries', (t) => {
    t.text('meeting_id').primary().references('meetings.id').onDelete('CASCADE');
    t.jsonb('keywords').notNullable().defaultTo('[]');
    t.jsonb('action_items').notNullable().defaultTo('[]');
    t.text('overview').notNullable().defaultTo('');
    t.text('short_summary').notNullable().defaultTo('');
    t.jsonb('topics_discussed').notNullable().defaultTo('[]');
    t.text('meeting_type');
    t.jsonb('outline').notNullable().defaultTo('[]');
    t.jsonb('notes').notNullable().defaultTo('{}');
    t.text('source').notNullable().defaultTo('extractive');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('meeting_analytics', (t) => {
    t.text('meeting_id').primary().references('meetings.id').onDelete('CASCADE');
    t.double('duration_seconds').notNullable().defaultTo(0);
    t.double('silence_seconds').notNullable().defaultTo(0);
    t.double('talk_listen_ratio');
    t.double('positive_pct').notNullable().defaultTo(0);
    t.double('neutral_pct').notNullable().defaultTo(0);
    t.double('negative_pct').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('speaker_analytics', (t) => {
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.integer('speaker_id').notNullable();
    t.text('name').notNullable();
    t.text('email');
    t.double('duration').notNullable().defaultTo(0);
    t.integer('word_count').notNullable().defaultTo(0);
    t.double('words_per_minute').notNullable().defaultTo(0);
    t.integer('filler_words').notNullable().defaultTo(0);
    t.integer('questions').notNullable().defaultTo(0);
    t.integer('monologues_count').notNullable().defaultTo(0);
    t.double('longest_monologue').notNullable().defaultTo(0);
    t.double('duration_pct').notNullable().defaultTo(0);
    t.double('positive_pct').notNullable().defaultTo(0);
    t.double('neutral_pct').notNullable().defaultTo(0);
    t.double('negative_pct').notNullable().defaultTo(0);
    t.primary(['meeting_id', 'speaker_id']);
  });
  await knex.raw('create index speaker_analytics_email_idx on speaker_analytics (lower(email))');

  await knex.schema.createTable('meeting_shares', (t) => {
    t.text('id').primary();
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('shared_by').references('users.id').onDelete('SET NULL');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['meeting_id']);
  });
  await knex.raw('create index meeting_shares_email_idx on meeting_shares (lower(email))');

  await knex.schema.createTable('soundbites', (t) => {
    t.text('id').primary();
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('owner_id').references('users.id').onDelete('SET NULL');
    t.text('name').notNullable();
    t.double('start_time').notNullable();
    t.double('end_time').notNullable();
    t.text('summary');
    t.text('media_type').notNullable().defaultTo('audio');
    t.specificType('privacies', 'text[]').notNullable().defaultTo('{team}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['meeting_id']);
    t.index(['team_id', 'created_at']);
    t.index(['owner_id']);
  });

  await knex.schema.createTable('rules', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('conditions').notNullable().defaultTo('[]');
    t.jsonb('actions').notNullable().defaultTo('[]');
    t.text('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id']);
  });

  await knex.schema.createTable('rule_executions', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('rule_id').notNullable();
    t.text('rule_name').notNullable();
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('run_key').notNullable();
    t.text('status').notNullable();
    t.jsonb('actions').notNullable().defaultTo('[]');
    t.text('error');
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.timestamp('executed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("status in ('success','partial','failed','skipped')", [], 'rule_executions_status_check');
    t.unique(['run_key', 'rule_id']);
    t.index(['team_id', 'meeting_id']);
    t.index(['team_id', 'executed_at']);
  });

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.text('id').primary();
    t.text('scope').notNullable();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('user_id').references('users.id').onDelete('CASCADE');
    t.text('url');
    t.text('secret_ciphertext');
    t.text('previous_secret_ciphertext');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("scope in ('user','team')", [], 'webhook_endpoints_scope_check');
  });
  await knex.raw(
    "create unique index webhook_endpoints_user_unique on webhook_endpoints (user_id) where scope = 'user'",
  );
  await knex.raw(
    "create unique index webhook_endpoints_team_unique on webhook_endpoints (team_id) where scope = 'team'",
  );

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('user_id').references('users.id').onDelete('SET NULL');
    t.text('endpoint_id').references('webhook_endpoints.id').onDelete('SET NULL');
    t.text('target').notNullable();
    t.text('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts_count').notNullable().defaultTo(0);
    t.timestamp('ready_at', { useTz: true }).notNullable();
    t.timestamp('delivered_at', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("target in ('upload','owner','team')", [], 'webhook_deliveries_target_check');
    t.check("status in ('pending','delivered','failed','disabled','skipped')", [], 'webhook_deliveries_status_check');
    t.index(['user_id', 'created_at']);
    t.index(['meeting_id']);
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.text('id').primary();
    t.text('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('attempt_no').notNullable();
    t.integer('status_code');
    t.integer('latency_ms');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['delivery_id']);
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.text('team_id').references('teams.id').onDelete('CASCADE');
    t.text('actor_user_id').references('users.id').onDelete('SET NULL');
    t.text('action').notNullable();
    t.text('target_type').notNullable();
    t.text('target_id');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'audit_log',
    'webhook_attempts',
    'webhook_deliveries',
    'webhook_endpoints',
    'rule_executions',
    'rules',
    'soundbites',
    'meeting_shares',
    'speaker_analytics',
    'meeting_analytics',
    'summaries',
    'sentences',
    'meeting_participants',
    'meetings',
    'channel_members',
    'channels',
    'user_group_members',
    'user_groups',
    'api_keys',
    'users',
    'teams',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
