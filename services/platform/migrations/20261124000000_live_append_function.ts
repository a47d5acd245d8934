import type { Knex } from 'knex';

/**
 * live_append(meeting, sentences): one live append in ONE statement (services/core/live/store.ts).
 *
 * An append must run under the meeting's row lock: new chunks take the next indices, so two appends of
 * one meeting must not interleave. Done from Node, the lock was held across seven round trips (begin,
 * lock, read chunks, read count, insert, update, commit), each of them also waiting its turn in a busy
 * API pod's event loop; with 50 meetings appending five times a second, a short hiccup left appends
 * queued behind each other's locks for most of a second (services/platform/README.md, "Live appends").
 * In a function the lock is held only for the database's own work.
 *
 * Semantics (as before, and as the tests state): sentences in the order given; a chunk id stored
 * before (or earlier in this call) keeps its index and takes the new content, rewritten only when the
 * content changed; new chunks take the next indices; speaker ids are small integers in order of first
 * appearance, kept in upload_options.live_speakers; the meeting's duration grows to the latest end
 * time, and updated_at records the activity (the idle end reads it).
 *
 * Input: a JSON array of {speaker_name, text (clean), raw_text, start_time, end_time, chunk_id},
 * validated by the caller. Output: {state, appended, replaced, sentence_count}, or
 * {error: 'not_found'} / {error: 'not_live', status}.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function live_append(p_meeting text, p_sentences jsonb) returns jsonb
    language plpgsql as $$
    declare
      m record;
      s jsonb;
      old record;
      next_idx int;
      speakers jsonb;
      next_speaker int;
      speakers_changed boolean := false;
      sid int;
      appended int := 0;
      replaced int := 0;
      last_end float8 := 0;
    begin
      select id, is_live, status, live_state, coalesce(upload_options->'live_speakers', '{}'::jsonb) as live_speakers
        into m from meetings where id = p_meeting for update;
      if not found then return jsonb_build_object('error', 'not_found'); end if;
      if not m.is_live then return jsonb_build_object('error', 'not_live', 'status', m.status); end if;

      select coalesce(max(idx) + 1, 0) into next_idx from sentences where meeting_id = p_meeting;
      speakers := m.live_speakers;
      select coalesce(max(value::int) + 1, 0) into next_speaker from jsonb_each_text(speakers);

      for s in select value from jsonb_array_elements(p_sentences) loop
        sid := (speakers ->> (s ->> 'speaker_name'))::int;
        if sid is null then
          sid := next_speaker;
          next_speaker := next_speaker + 1;
          speakers := speakers || jsonb_build_object(s ->> 'speaker_name', sid);
          speakers_changed := true;
        end if;
        last_end := greatest(last_end, (s ->> 'end_time')::float8);

        select idx, speaker_name, speaker_id, text, raw_text, start_time, end_time into old
          from sentences where meeting_id = p_meeting and chunk_id = s ->> 'chunk_id';
        if found then
          replaced := replaced + 1;
          if (old.speaker_name, old.speaker_id, old.text, old.raw_text, old.start_time, old.end_time)
             is distinct from (s ->> 'speaker_name', sid, s ->> 'text', s ->> 'raw_text', (s ->> 'start_time')::float8, (s ->> 'end_time')::float8) then
            update sentences set speaker_name = s ->> 'speaker_name', speaker_id = sid, text = s ->> 'text', raw_text = s ->> 'raw_text',
                   start_time = (s ->> 'start_time')::float8, end_time = (s ->> 'end_time')::float8
             where meeting_id = p_meeting and idx = old.idx;
          end if;
        else
          insert into sentences (meeting_id, idx, speaker_name, speaker_id, text, raw_text, start_time, end_time, chunk_id)
          values (p_meeting, next_idx, s ->> 'speaker_name', sid, s ->> 'text', s ->> 'raw_text',
                  (s ->> 'start_time')::float8, (s ->> 'end_time')::float8, s ->> 'chunk_id');
          next_idx := next_idx + 1;
          appended := appended + 1;
        end if;
      end loop;

      update meetings
         set duration_seconds = greatest(duration_seconds, last_end),
             upload_options = case when speakers_changed then upload_options || jsonb_build_object('live_speakers', speakers) else upload_options end,
             updated_at = now()
       where id = p_meeting;
      return jsonb_build_object('state', coalesce(m.live_state, 'active'), 'appended', appended, 'replaced', replaced,
                                'sentence_count', next_idx);
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function if exists live_append(text, jsonb)');
}
