import type { Knex } from 'knex';

/**
 * `summary_runs`: one row per summary a meeting was given (its transcription, a live meeting's end, a
 * re-summary a person asked for): who wrote it (the built-in summarizer or a chat model, which model
 * and prompt version), how long it took, how many tokens it cost, and which fields fell back to the
 * built-in summarizer. `requested_by` is the person who asked for a re-summary.
 *
 * Expand only, so release 0.1.0 runs on it: a new table 0.1.0 never reads or writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table summary_runs (
      id text primary key,
      meeting_id text not null references meetings(id) on delete cascade,
      team_id text not null references teams(id) on delete cascade,
      trigger text not null,
      requested_by text references users(id) on delete set null,
      source text not null,
      model text,
      prompt_version text,
      duration_ms integer not null default 0,
      calls integer not null default 0,
      prompt_tokens integer not null default 0,
      completion_tokens integer not null default 0,
      parts integer not null default 0,
      response_format text,
      fallback_fields jsonb not null default '[]'::jsonb,
      dropped_lines integer not null default 0,
      error text,
      created_at timestamptz not null default now(),
      constraint summary_runs_trigger_check check (trigger in ('transcription', 'live', 'resummary')),
      constraint summary_runs_source_check check (source in ('extractive', 'llm'))
    )`);
  await knex.raw('create index summary_runs_meeting_idx on summary_runs (meeting_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table summary_runs');
}
