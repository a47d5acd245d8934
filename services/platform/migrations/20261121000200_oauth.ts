import type { Knex } from 'knex';

/**
 * The built-in OAuth authorization server (OAUTH_MODE=builtin, services/oauth): registered clients,
 * pending authorization requests (between the sign-in page and the consent page), authorization codes,
 * grants (one per consented sign-in; the family of its refresh tokens), refresh tokens and signing keys.
 * Codes, refresh tokens and browser secrets are stored as SHA-256 hashes only; private keys sealed
 * with SECRETS_KEY.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.text('id').primary();
    t.text('client_name');
    t.specificType('redirect_uris', 'text[]').notNullable();
    t.text('scope');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('oauth_requests', (t) => {
    t.text('id').primary();
    t.text('client_id').notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    t.text('state');
    t.text('code_challenge').notNullable();
    t.text('resource').notNullable();
    t.text('browser_hash').notNullable();
    t.text('csrf_hash').notNullable();
    t.text('user_id').references('users.id').onDelete('CASCADE');
    t.integer('failed_sign_ins').notNullable().defaultTo(0);
    t.text('oidc_state_hash');
    t.text('oidc_nonce');
    t.text('oidc_verifier');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });
  await knex.raw(
    'create unique index oauth_requests_oidc_state_unique on oauth_requests (oidc_state_hash) where oidc_state_hash is not null',
  );

  await knex.schema.createTable('oauth_grants', (t) => {
    t.text('id').primary();
    t.text('client_id').notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.specificType('scopes', 'text[]').notNullable();
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
    t.index(['user_id']);
  });

  await knex.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.text('client_id').notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    t.text('code_challenge').notNullable();
    t.text('resource').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.text('grant_id').references('oauth_grants.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });

  await knex.schema.createTable('oauth_refresh_tokens', (t) => {
    t.text('token_hash').primary();
    t.text('grant_id').notNullable().references('oauth_grants.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['grant_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('oauth_signing_keys', (t) => {
    t.text('kid').primary();
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('private_jwk_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retired_at', { useTz: true });
    t.check("alg in ('ES256','RS256')", [], 'oauth_signing_keys_alg_check');
  });
  // At most one key signs at a time; pods racing to create the first one converge on it.
  await knex.raw(
    'create unique index oauth_signing_keys_one_active on oauth_signing_keys ((true)) where retired_at is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'oauth_signing_keys',
    'oauth_refresh_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_requests',
    'oauth_clients',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
