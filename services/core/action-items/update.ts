/**
 * What a person changes on an action item: its status (open, done), its owner, its due date. The
 * meeting's write rule decides (access/rules.ts writableBy: its organizer, its participants, members of its
 * channel, a team admin), and writing presupposes reading: an item of a meeting the caller may not
 * read is not found. What is set here is marked as set by the caller, so a later summary keeps it.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { forbidden, invalid, notFound } from '../../platform/errors';
import { visibleTo, writableBy, type Principal } from '../access';
import { audit } from '../audit';
import { isCalendarDate } from '../meetings';
import { isEmail, required } from '../input';
import {
  ACTION_ITEM_STATUSES,
  toActionItemRecord,
  type ActionItemRecord,
  type ActionItemRow,
  type ActionItemStatus,
} from './records';
import { OWNER_MAX } from './list';

export interface ActionItemChange {
  id: string;
  status?: string;
  /** The new owner's email; null clears the owner. */
  owner?: string | null;
  /** Their name as shown; default: the name the meeting knows for the email. */
  ownerName?: string | null;
  /** YYYY-MM-DD; null clears the due date. */
  dueDate?: string | null;
}

function checkChange(c: ActionItemChange) {
  if (c.status === undefined && c.owner === undefined && c.dueDate === undefined && c.ownerName === undefined) {
    throw required('status', 'at least one of status, owner, ownerName, dueDate to change');
  }
  if (c.status !== undefined && !(ACTION_ITEM_STATUSES as readonly string[]).includes(c.status)) {
    throw invalid(
      'status',
      `one of ${ACTION_ITEM_STATUSES.join(', ')}`,
      `status must be one of ${ACTION_ITEM_STATUSES.join(', ')}; got ${JSON.stringify(c.status)}`,
    );
  }
  if (c.owner !== undefined && c.owner !== null && !isEmail(c.owner.trim())) {
    throw invalid(
      'owner',
      'an email address like name@example.com',
      `owner must be an email address like name@example.com; got ${JSON.stringify(c.owner)}`,
    );
  }
  if (
    c.ownerName !== undefined &&
    c.ownerName !== null &&
    (!c.ownerName.trim() || [...c.ownerName].length > OWNER_MAX)
  ) {
    throw invalid('ownerName', `1 to ${OWNER_MAX} characters`, `ownerName must be 1 to ${OWNER_MAX} characters`);
  }
  if (c.dueDate !== undefined && c.dueDate !== null && !isCalendarDate(c.dueDate)) {
    throw invalid(
      'dueDate',
      'a calendar date YYYY-MM-DD',
      `dueDate must be a calendar date YYYY-MM-DD, or null to clear it; got ${JSON.stringify(c.dueDate)}`,
    );
  }
}

export async function updateActionItem(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  c: ActionItemChange,
): Promise<ActionItemRecord> {
  checkChange(c);
  return db.transaction(async (tx) => {
    const item: (ActionItemRow & { meeting_title: string }) | undefined = await tx('action_items as ai')
      .join('meetings as m', 'm.id', 'ai.meeting_id')
      .modify(visibleTo(p, 'm'))
      .where('ai.id', c.id)
      .forUpdate('ai')
      .first('ai.*', 'm.title as meeting_title');
    if (!item) throw notFound('action item', c.id);
    const writable = await tx('meetings as m').modify(writableBy(p, 'm')).where('m.id', item.meeting_id).first('m.id');
    if (!writable) {
      throw forbidden(
        `you may not change action items of meeting ${JSON.stringify(item.meeting_id)}: only its organizer, its participants, members of its channel or a team admin may`,
      );
    }
    const change: Record<string, unknown> = {};
    if (c.status !== undefined)
      Object.assign(change, { status: c.status as ActionItemStatus, status_set_by: p.userId });
    if (c.owner !== undefined || c.ownerName !== undefined) {
      const email = c.owner === undefined ? item.owner_email : c.owner === null ? null : c.owner.trim().toLowerCase();
      let name =
        c.ownerName === undefined ? (c.owner === undefined ? item.owner_name : null) : (c.ownerName?.trim() ?? null);
      if (email && name === null) {
        const known = await tx('meeting_participants')
          .where({ meeting_id: item.meeting_id })
          .whereRaw('lower(email) = ?', [email])
          .first('name');
        const user = known?.name
          ? undefined
          : await tx('users').where({ team_id: item.team_id }).whereRaw('lower(email) = ?', [email]).first('name');
        name = known?.name ?? user?.name ?? null;
      }
      Object.assign(change, { owner_email: email, owner_name: name, owner_set_by: p.userId });
    }
    if (c.dueDate !== undefined) Object.assign(change, { due_date: c.dueDate, due_set_by: p.userId });
    const [row] = await tx('action_items')
      .where({ id: item.id })
      .update({ ...change, updated_at: tx.fn.now() })
      .returning('*');
    const fields = Object.keys(change).filter((k) => !k.endsWith('_set_by'));
    await audit(
      tx,
      p,
      'action_item.updated',
      { type: 'action_item', id: item.id, teamId: item.team_id },
      { meeting_id: item.meeting_id, fields },
    );
    return toActionItemRecord(config, { ...(row as ActionItemRow), meeting_title: item.meeting_title });
  });
}
