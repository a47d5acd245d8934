/**
 * Keeping a meeting's action items when its summary is written (called by core/ingest inside the
 * transaction that stores the transcript and summary).
 *
 * An item is known again by its words folded (case, spacing: `item_key`), else by the sentence it was
 * said in (a chat model words the same commitment differently each run), so a summary run again
 * updates the rows it made rather than adding new ones. What a person set stays: the status always
 * (a summary only ever finds open items), the owner and due date once a person changed them. An item
 * the new summary no longer finds goes, unless a person touched it: their decision outlives the
 * words that were found.
 */
import type { Knex } from 'knex';
import type { ActionItem } from '../../intelligence/summarize/types';
import type { Sentence } from '../../intelligence/types';
import { newId } from '../input';

export interface ActionItemsOfMeeting {
  meetingId: string;
  teamId: string;
  meetingDate: Date;
  items: readonly ActionItem[];
  sentences: readonly Pick<Sentence, 'index' | 'speaker_name' | 'start_time'>[];
  /** Person's name (any case) → email, from the meeting's participants and speakers. */
  emails: ReadonlyMap<string, string>;
}

export interface SyncedActionItems {
  /** Ids of the items this summary found for the first time. */
  created: string[];
  kept: number;
  removed: number;
}

/** The words of an item folded for recognition: lower case, one space, no trailing punctuation. */
export function itemKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?,;:]+$/, '')
    .trim();
}

/** The sentence an item was said in: the one starting at its time (by its speaker when several do), else the last one begun by then. */
function sentenceOf(
  item: ActionItem,
  sentences: ActionItemsOfMeeting['sentences'],
): { index: number; start_time: number } {
  const same = (t: number) => Math.abs(t - item.start_time) < 1e-6;
  const at = sentences.filter((s) => same(s.start_time));
  const exact = at.find((s) => s.speaker_name === item.speaker_name) ?? at[0];
  if (exact) return exact;
  let before: { index: number; start_time: number } | undefined;
  for (const s of sentences) if (s.start_time <= item.start_time) before = s;
  return before ?? { index: 0, start_time: item.start_time };
}

export async function syncActionItems(tx: Knex.Transaction, m: ActionItemsOfMeeting): Promise<SyncedActionItems> {
  const byKey = new Map<string, ActionItem>();
  for (const it of m.items) {
    const key = itemKey(it.text);
    if (key && !byKey.has(key)) byKey.set(key, it);
  }
  const existing: { id: string; item_key: string; sentence_index: number; touched: boolean }[] = await tx(
    'action_items',
  )
    .where({ meeting_id: m.meetingId })
    .select(
      'id',
      'item_key',
      'sentence_index',
      tx.raw('(status_set_by is not null or owner_set_by is not null or due_set_by is not null) as touched'),
    );
  const known = new Map(existing.map((e) => [e.item_key, e]));

  const created: string[] = [];
  let kept = 0;
  for (const [key, it] of byKey) {
    const at = sentenceOf(it, m.sentences);
    const ownerEmail = it.assignee ? (m.emails.get(it.assignee.toLowerCase()) ?? null) : null;
    const found = {
      text: it.text,
      sentence_index: at.index,
      start_time: it.start_time,
      speaker_name: it.speaker_name,
      due_phrase: it.due,
    };
    // Known by its words, else by its moment: a chat model words the same item differently each time.
    const prior =
      known.get(key) ?? [...known.values()].find((e) => e.sentence_index === at.index && !byKey.has(e.item_key));
    if (prior) {
      kept++;
      // The moment and words follow the new transcript; the owner and due date unless a person set them.
      await tx('action_items')
        .where({ id: prior.id })
        .update({
          ...found,
          item_key: key,
          owner_name: tx.raw('case when owner_set_by is null then ? else owner_name end', [it.assignee]),
          owner_email: tx.raw('case when owner_set_by is null then ? else owner_email end', [ownerEmail]),
          due_date: tx.raw('case when due_set_by is null then ?::date else due_date end', [it.due_date]),
          updated_at: tx.fn.now(),
        });
      known.delete(prior.item_key);
      continue;
    }
    const id = newId();
    await tx('action_items').insert({
      id,
      team_id: m.teamId,
      meeting_id: m.meetingId,
      meeting_date: m.meetingDate,
      item_key: key,
      ...found,
      owner_name: it.assignee,
      owner_email: ownerEmail,
      due_date: it.due_date,
    });
    created.push(id);
  }
  const gone = [...known.values()].filter((e) => !e.touched).map((e) => e.id);
  if (gone.length) await tx('action_items').whereIn('id', gone).delete();
  return { created, kept, removed: gone.length };
}
