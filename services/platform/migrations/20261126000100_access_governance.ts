import type { Knex } from 'knex';

/**
 * Access governance (services/core/people/apikeys.ts, services/core/people/signins.ts):
 *   - API keys carry scopes and an optional expiry; keys made before this migration keep every scope;
 *   - an OAuth sign-in remembers the API key it was made with (through the pending request, the code
 *     and the grant), so revoking the key ends the grant;
 *   - a code remembers whether its authorization request named the redirect URI (RFC 6749 §4.1.3);
 *   - users can be deactivated, which ends every key, grant and page session they hold.
 */
const ALL_SCOPES = "'{meetings:read,meetings:write,admin}'::text[]";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table api_keys add column scopes text[] not null default ${ALL_SCOPES}`);
  // New keys name their scopes; the default above only gave the existing ones every scope.
  await knex.raw('alter table api_keys alter column scopes drop default');
  await knex.raw('alter table api_keys add column expires_at timestamptz');
  await knex.raw('alter table users add column deactivated_at timestamptz');
  for (const table of ['oauth_requests', 'oauth_codes', 'oauth_grants']) {
    await knex.raw(`alter table ${table} add column api_key_id text references api_keys (id) on delete cascade`);
  }
  // RFC 6749 §4.1.3: a code whose authorization request named its redirect_uri needs it at the token endpoint too.
  for (const table of ['oauth_requests', 'oauth_codes']) {
    await knex.raw(`alter table ${table} add column redirect_uri_given boolean not null default true`);
  }
  await knex.raw('create index oauth_grants_api_key_id_idx on oauth_grants (api_key_id) where api_key_id is not null');
  await knex.raw('create index web_sessions_api_key_id_idx on web_sessions (api_key_id) where api_key_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists web_sessions_api_key_id_idx');
  await knex.raw('drop index if exists oauth_grants_api_key_id_idx');
  for (const table of ['oauth_codes', 'oauth_requests'])
    await knex.raw(`alter table ${table} drop column redirect_uri_given`);
  for (const table of ['oauth_grants', 'oauth_codes', 'oauth_requests'])
    await knex.raw(`alter table ${table} drop column api_key_id`);
  await knex.raw('alter table users drop column deactivated_at');
  await knex.raw('alter table api_keys drop column expires_at');
  await knex.raw('alter table api_keys drop column scopes');
}
