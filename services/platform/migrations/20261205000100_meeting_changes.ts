import type { Knex } from 'knex';

/**
 * The change log behind "changes since a cursor" (services/core/changes, README.md there for the
 * design): one row per meeting per writing transaction, written by triggers on every table that holds
 * a meeting's content or decides who may read it, so every writer is seen (core, the workflows'
 * activities, the live_append function, release 0.1.0's code after a rollback).
 *
 * A row is keyed by its team, the id of the transaction that wrote it (xid8, pg_current_xact_id())
 * and the meeting. A reader takes only rows of transactions older than the oldest one still running
 * (pg_snapshot_xmin), in (xid, meeting_id) order: a transaction still open when a page is read has an
 * xid at or past that bound, so it is read on a later page and never skipped.
 *
 * Several writes to one meeting in one transaction make one row (on conflict: the kinds are merged).
 * A deleted meeting's row is its tombstone: `reason` deleted or expired (retention), `actor_id` who
 * asked, both from transaction-local settings core sets before deleting (mi.deletion_reason,
 * mi.actor). No foreign keys: a tombstone outlives its meeting, and a row's team is copied from the
 * meeting. Rows are pruned after CHANGES_RETENTION by the daily retention run (index on `at`).
 *
 * Expand only: a table, functions and triggers release 0.1.0 never reads; its writes are recorded too.
 */

const KINDS_UNION = `array(select distinct k from unnest(meeting_changes.kinds || excluded.kinds) k order by k)`;
const UPSERT = `on conflict (team_id, xid, meeting_id) do update set kinds = ${KINDS_UNION},
  reason = coalesce(excluded.reason, meeting_changes.reason), actor_id = coalesce(excluded.actor_id, meeting_changes.actor_id)`;

/** Child tables whose rows belong to a meeting (meeting_id), and the kind a write to them is. */
const CHILD_TRIGGERS: { table: string; kind: string; ops: ('insert' | 'update' | 'delete')[] }[] = [
  { table: 'sentences', kind: 'transcript', ops: ['insert', 'delete'] },
  { table: 'summaries', kind: 'summary', ops: ['insert', 'update', 'delete'] },
  { table: 'action_items', kind: 'action_items', ops: ['insert', 'update', 'delete'] },
  { table: 'meeting_shares', kind: 'sharing', ops: ['insert', 'update', 'delete'] },
  { table: 'meeting_participants', kind: 'sharing', ops: ['insert', 'delete'] },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table meeting_changes (
      team_id text not null,
      xid xid8 not null default pg_current_xact_id(),
      meeting_id text not null,
      kinds text[] not null,
      reason text,
      actor_id text,
      at timestamptz not null default now(),
      primary key (team_id, xid, meeting_id),
      constraint meeting_changes_reason_check check (reason is null or reason in ('deleted', 'expired'))
    )`);
  await knex.raw('create index meeting_changes_at_idx on meeting_changes using brin (at)');
  await knex.raw('create index meeting_changes_tombstone_idx on meeting_changes (meeting_id) where reason is not null');

  // The meeting row itself: created, its visible fields changed, deleted.
  await knex.raw(`
    create function meeting_changes_of_meeting() returns trigger language plpgsql as $$
    declare kinds text[] := '{}';
    begin
      if tg_op = 'INSERT' then
        kinds := array['created'];
      elsif tg_op = 'DELETE' then
        insert into meeting_changes (team_id, meeting_id, kinds, reason, actor_id)
        values (old.team_id, old.id, array['deleted'],
                coalesce(nullif(current_setting('mi.deletion_reason', true), ''), 'deleted'),
                nullif(current_setting('mi.actor', true), ''))
        ${UPSERT};
        return null;
      else
        if old.title is distinct from new.title then kinds := array_append(kinds, 'title'); end if;
        if old.privacy is distinct from new.privacy then kinds := array_append(kinds, 'sharing'); end if;
        if old.channel_id is distinct from new.channel_id then kinds := array_append(kinds, 'channel'); end if;
        if old.status is distinct from new.status or old.failure_reason is distinct from new.failure_reason
           or old.is_live is distinct from new.is_live or old.live_state is distinct from new.live_state then
          kinds := array_append(kinds, 'status');
        end if;
        if old.date is distinct from new.date or old.duration_seconds is distinct from new.duration_seconds
           or old.organizer_email is distinct from new.organizer_email or old.meeting_type is distinct from new.meeting_type then
          kinds := array_append(kinds, 'details');
        end if;
        if cardinality(kinds) = 0 then return null; end if;
      end if;
      insert into meeting_changes (team_id, meeting_id, kinds) values (new.team_id, new.id, kinds) ${UPSERT};
      return null;
    end $$`);
  await knex.raw(
    'create trigger meeting_changes_insert after insert on meetings for each row execute function meeting_changes_of_meeting()',
  );
  await knex.raw(
    'create trigger meeting_changes_delete after delete on meetings for each row execute function meeting_changes_of_meeting()',
  );
  // Only updates of what a reader sees: the search sets and progress are written far more often.
  await knex.raw(`
    create trigger meeting_changes_update after update on meetings for each row
    when (old.title is distinct from new.title or old.privacy is distinct from new.privacy
       or old.channel_id is distinct from new.channel_id or old.status is distinct from new.status
       or old.failure_reason is distinct from new.failure_reason or old.is_live is distinct from new.is_live
       or old.live_state is distinct from new.live_state or old.date is distinct from new.date
       or old.duration_seconds is distinct from new.duration_seconds
       or old.organizer_email is distinct from new.organizer_email or old.meeting_type is distinct from new.meeting_type)
    execute function meeting_changes_of_meeting()`);

  // A statement's rows of a child table (transition table changed_rows), one change per meeting still
  // there: a cascade of a meeting's deletion finds it gone and adds nothing to its tombstone. The
  // meetings are probed by key (= any(array(...))): joined to the transition table, whose size the
  // planner cannot know, they were read whole.
  await knex.raw(`
    create function meeting_changes_of_rows() returns trigger language plpgsql as $$
    begin
      insert into meeting_changes (team_id, meeting_id, kinds)
      select m.team_id, m.id, array[tg_argv[0]] from meetings m
      where m.id = any(array(select distinct meeting_id from changed_rows))
      ${UPSERT};
      return null;
    end $$`);
  for (const { table, kind, ops } of CHILD_TRIGGERS) {
    for (const op of ops) {
      const ref = op === 'delete' ? 'old table as changed_rows' : 'new table as changed_rows';
      await knex.raw(
        `create trigger meeting_changes_${op} after ${op} on ${table} referencing ${ref}
         for each statement execute function meeting_changes_of_rows('${kind}')`,
      );
    }
  }

  // Sentences changed in place: a speaker named (speakers) or the words corrected (transcript).
  await knex.raw(`
    create function meeting_changes_of_sentences() returns trigger language plpgsql as $$
    begin
      insert into meeting_changes (team_id, meeting_id, kinds)
      select m.team_id, m.id, d.kinds from (
        select n.meeting_id,
               array_remove(array[case when bool_or(o.speaker_name is distinct from n.speaker_name) then 'speakers' end,
                                  case when bool_or(o.text is distinct from n.text or o.start_time is distinct from n.start_time
                                                    or o.end_time is distinct from n.end_time) then 'transcript' end], null) as kinds
        from new_rows n join old_rows o on o.meeting_id = n.meeting_id and o.idx = n.idx
        group by n.meeting_id) d
      cross join lateral (select team_id, id from meetings where id = d.meeting_id offset 0) m
      where cardinality(d.kinds) > 0
      ${UPSERT};
      return null;
    end $$`);
  await knex.raw(`
    create trigger meeting_changes_update after update on sentences
    referencing old table as old_rows new table as new_rows
    for each statement execute function meeting_changes_of_sentences()`);

  // Channel membership opens and closes the channel's meetings (access.visibleToSql).
  await knex.raw(`
    create function meeting_changes_of_channel_members() returns trigger language plpgsql as $$
    begin
      insert into meeting_changes (team_id, meeting_id, kinds)
      select m.team_id, m.id, array['sharing'] from meetings m
      where m.channel_id = any(array(select distinct channel_id from changed_rows))
      ${UPSERT};
      return null;
    end $$`);
  for (const op of ['insert', 'delete'] as const) {
    const ref = op === 'delete' ? 'old table as changed_rows' : 'new table as changed_rows';
    await knex.raw(
      `create trigger meeting_changes_${op} after ${op} on channel_members referencing ${ref}
       for each statement execute function meeting_changes_of_channel_members()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'delete'])
    await knex.raw(`drop trigger if exists meeting_changes_${op} on channel_members`);
  await knex.raw('drop trigger if exists meeting_changes_update on sentences');
  for (const { table, ops } of CHILD_TRIGGERS)
    for (const op of ops) await knex.raw(`drop trigger if exists meeting_changes_${op} on ${table}`);
  for (const op of ['insert', 'update', 'delete'])
    await knex.raw(`drop trigger if exists meeting_changes_${op} on meetings`);
  await knex.raw('drop function if exists meeting_changes_of_channel_members()');
  await knex.raw('drop function if exists meeting_changes_of_sentences()');
  await knex.raw('drop function if exists meeting_changes_of_rows()');
  await knex.raw('drop function if exists meeting_changes_of_meeting()');
  await knex.raw('drop table if exists meeting_changes');
}
