import type { Knex } from 'knex';

/**
 * Events of a meeting's life (services/core/webhooks/life.ts, docs/webhooks-v2.md): meeting.deleted,
 * transcript.updated, meeting.summarized again, action_item.updated.
 *
 * webhook_events is an outbox: a row per change that some webhook of the team subscribes to, written
 * in the writer's own transaction (so a change and its event commit or vanish together), by triggers
 * for the changes any role makes (deletion and retention, speaker names, sentences, action items: the
 * mcp and graphql roles have no Temporal to start a delivery) and by core's noteMeetingSummarized for a
 * re-summary. The worker's dispatcher workflow turns each row into ledger rows and delivery runs.
 * A row is unique per meeting, event and change key (the writing transaction's id, or the re-summary's
 * key), so a change makes one event however its writer is retried. It keeps what routing needs (the
 * upload's webhook and subscription, the organizer, the client reference) because a deleted meeting's
 * row is gone when it is dispatched; no content (title, sentences) is kept for a deletion.
 *
 * webhook_deliveries: a delivery of a life event has meeting_id null, its meeting in event_meeting_id
 * and its outbox row in event_id (unique with its target): the meeting's foreign key would delete a
 * meeting.deleted delivery with its meeting, and the (meeting_id, event_target, event) index allows
 * one delivery per meeting, target and event, where a meeting changes many times. A meeting's
 * deletion removes its other life events' deliveries and pending rows in the same transaction (they
 * may hold content: action items' text).
 *
 * Expand only: release 0.1.0 never reads the new table or columns; its ledger queries filter on
 * `target`, null for every V2 delivery, so they never see a row with meeting_id null. A trigger of
 * this migration records 0.1.0's writes too (dispatched when a newer worker runs).
 */

/** Whether some webhook of the team (or the meeting's upload) subscribes to the event. */
const WANTED = `create function webhook_events_wanted(team text, upload_events text[], ev text) returns boolean
  language sql stable as $$
    select ev = any(coalesce(upload_events, '{}'))
        or exists (select 1 from webhook_endpoints e where e.team_id = team and ev = any(coalesce(e.events, '{}')))
  $$`;

const COLUMNS =
  'team_id, meeting_id, event, change_key, details, client_reference_id, organizer_email, uploader_id, upload_webhook, upload_webhook_events';
const ROUTING = (m: string) =>
  `${m}.client_reference_id, ${m}.organizer_email, ${m}.uploader_id, ${m}.upload_webhook, ${m}.upload_webhook_events`;
/** A second write of one change (same transaction) merges its details: changed kinds, items. */
const MERGE = `on conflict (meeting_id, event, change_key) do update set details = jsonb_build_object(
  'changed', (select coalesce(jsonb_agg(distinct k order by k), '[]'::jsonb) from jsonb_array_elements_text(
     coalesce(webhook_events.details->'changed', '[]') || coalesce(excluded.details->'changed', '[]')) k),
  'action_items', coalesce(webhook_events.details->'action_items', '[]') || coalesce(excluded.details->'action_items', '[]'))
  - case when excluded.event = 'action_item.updated' then 'changed' else 'action_items' end`;

/** A meeting whose life events fire: completed, not live, not being deleted in this transaction. */
const LIVING = `m.status = 'completed' and not m.is_live and coalesce(current_setting('mi.deletion_reason', true), '') = ''`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhook_events (
      id bigint generated always as identity primary key,
      team_id text not null,
      meeting_id text not null,
      event text not null,
      change_key text not null,
      details jsonb not null default '{}',
      client_reference_id text,
      organizer_email text,
      uploader_id text,
      upload_webhook text,
      upload_webhook_events text[],
      created_at timestamptz not null default now(),
      dispatched_at timestamptz,
      constraint webhook_events_change_unique unique (meeting_id, event, change_key)
    )`);
  await knex.raw('create index webhook_events_pending_idx on webhook_events (id) where dispatched_at is null');
  await knex.raw('create index webhook_events_dispatched_idx on webhook_events using brin (dispatched_at)');

  await knex.raw('alter table webhook_deliveries alter column meeting_id drop not null');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.text('event_meeting_id');
    t.bigInteger('event_id');
  });
  await knex.raw(
    'create unique index webhook_deliveries_event_target_unique on webhook_deliveries (event_id, event_target)',
  );
  await knex.raw(
    'create index webhook_deliveries_event_meeting_idx on webhook_deliveries (event_meeting_id) where event_meeting_id is not null',
  );
  await knex.raw(
    `alter table webhook_deliveries add constraint webhook_deliveries_event_meeting_check check (
       (meeting_id is not null and event_id is null and event_meeting_id is null)
       or (meeting_id is null and event_id is not null and event_meeting_id is not null))`,
  );

  await knex.raw(WANTED);

  // A deleted meeting: its tombstone event (reason and who asked, from noteDeletion's settings), and
  // its other life events, which may hold content, gone with it.
  await knex.raw(`
    create function webhook_events_of_deletion() returns trigger language plpgsql as $$
    begin
      delete from webhook_deliveries where event_meeting_id = old.id and event <> 'meeting.deleted';
      delete from webhook_events where meeting_id = old.id and event <> 'meeting.deleted';
      if webhook_events_wanted(old.team_id, old.upload_webhook_events, 'meeting.deleted') then
        insert into webhook_events (${COLUMNS})
        values (old.team_id, old.id, 'meeting.deleted', pg_current_xact_id()::text,
                jsonb_build_object('reason', coalesce(nullif(current_setting('mi.deletion_reason', true), ''), 'deleted'),
                                   'deleted_by', nullif(current_setting('mi.actor', true), '')),
                ${ROUTING('old')})
        on conflict (meeting_id, event, change_key) do nothing;
      end if;
      return null;
    end $$`);
  await knex.raw(
    'create trigger webhook_events_delete after delete on meetings for each row execute function webhook_events_of_deletion()',
  );

  // Sentences changed in place: a speaker named, or words or times corrected.
  await knex.raw(`
    create function webhook_events_of_sentence_updates() returns trigger language plpgsql as $$
    begin
      insert into webhook_events (${COLUMNS})
      select m.team_id, m.id, 'transcript.updated', pg_current_xact_id()::text, jsonb_build_object('changed', d.changed),
             ${ROUTING('m')}
      from (
        select n.meeting_id,
               to_jsonb(array_remove(array[
                 case when bool_or(o.speaker_name is distinct from n.speaker_name) then 'speakers' end,
                 case when bool_or(o.text is distinct from n.text or o.start_time is distinct from n.start_time
                                   or o.end_time is distinct from n.end_time) then 'sentences' end], null)) as changed
        from new_rows n join old_rows o on o.meeting_id = n.meeting_id and o.idx = n.idx
        group by n.meeting_id) d
      cross join lateral (select * from meetings where id = d.meeting_id offset 0) m
      where jsonb_array_length(d.changed) > 0 and ${LIVING}
        and webhook_events_wanted(m.team_id, m.upload_webhook_events, 'transcript.updated')
      ${MERGE};
      return null;
    end $$`);
  await knex.raw(`
    create trigger webhook_events_update after update on sentences
    referencing old table as old_rows new table as new_rows
    for each statement execute function webhook_events_of_sentence_updates()`);

  // Sentences of a meeting already transcribed removed: its transcript is being replaced
  // (re-transcribed: persistTranscript deletes the old sentences first). Sentences added without a
  // removal are a first transcript or a live meeting's, not a change; a deletion's own removal of
  // the sentences is told apart by noteDeletion's setting (LIVING).
  await knex.raw(`
    create function webhook_events_of_sentence_removal() returns trigger language plpgsql as $$
    begin
      insert into webhook_events (${COLUMNS})
      select m.team_id, m.id, 'transcript.updated', pg_current_xact_id()::text, '{"changed":["retranscribed"]}'::jsonb,
             ${ROUTING('m')}
      from meetings m
      where m.id = any(array(select distinct meeting_id from changed_rows)) and ${LIVING}
        and webhook_events_wanted(m.team_id, m.upload_webhook_events, 'transcript.updated')
      ${MERGE};
      return null;
    end $$`);
  await knex.raw(
    `create trigger webhook_events_delete after delete on sentences referencing old table as changed_rows
     for each statement execute function webhook_events_of_sentence_removal()`,
  );

  // Action items whose status, owner or due date changed, each with its values after the change.
  await knex.raw(`
    create function webhook_events_of_action_items() returns trigger language plpgsql as $$
    begin
      insert into webhook_events (${COLUMNS})
      select m.team_id, m.id, 'action_item.updated', pg_current_xact_id()::text,
             jsonb_build_object('action_items', d.items), ${ROUTING('m')}
      from (
        select n.meeting_id, jsonb_agg(jsonb_build_object(
                 'id', n.id, 'text', n.text, 'status', n.status, 'owner_name', n.owner_name,
                 'owner_email', n.owner_email, 'due_date', n.due_date::text,
                 'changed', to_jsonb(array_remove(array[
                   case when o.status is distinct from n.status then 'status' end,
                   case when o.owner_name is distinct from n.owner_name or o.owner_email is distinct from n.owner_email then 'owner' end,
                   case when o.due_date is distinct from n.due_date then 'due_date' end], null))) order by n.sentence_index, n.id) as items
        from new_rows n join old_rows o on o.id = n.id
        where o.status is distinct from n.status or o.owner_name is distinct from n.owner_name
           or o.owner_email is distinct from n.owner_email or o.due_date is distinct from n.due_date
        group by n.meeting_id) d
      cross join lateral (select * from meetings where id = d.meeting_id offset 0) m
      where ${LIVING} and webhook_events_wanted(m.team_id, m.upload_webhook_events, 'action_item.updated')
      ${MERGE};
      return null;
    end $$`);
  await knex.raw(`
    create trigger webhook_events_update after update on action_items
    referencing old table as old_rows new table as new_rows
    for each statement execute function webhook_events_of_action_items()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists webhook_events_update on action_items');
  for (const op of ['delete', 'update']) await knex.raw(`drop trigger if exists webhook_events_${op} on sentences`);
  await knex.raw('drop trigger if exists webhook_events_delete on meetings');
  await knex.raw('drop function if exists webhook_events_of_action_items()');
  await knex.raw('drop function if exists webhook_events_of_sentence_removal()');
  await knex.raw('drop function if exists webhook_events_of_sentence_updates()');
  await knex.raw('drop function if exists webhook_events_of_deletion()');
  await knex.raw('drop function if exists webhook_events_wanted(text, text[], text)');
  await knex.raw('delete from webhook_deliveries where event_id is not null');
  await knex.raw('alter table webhook_deliveries drop constraint if exists webhook_deliveries_event_meeting_check');
  await knex.raw('drop index if exists webhook_deliveries_event_meeting_idx');
  await knex.raw('drop index if exists webhook_deliveries_event_target_unique');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('event_id');
    t.dropColumn('event_meeting_id');
  });
  await knex.raw('alter table webhook_deliveries alter column meeting_id set not null');
  await knex.raw('drop table if exists webhook_events');
}
