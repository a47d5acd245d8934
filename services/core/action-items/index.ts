/** Action items as records: kept when a meeting is summarized, listed across meetings, changed by people. What other layers may import of this domain. */
export { ACTION_ITEM_STATUSES, ACTION_ITEM_TEXT_MAX, momentLink, toActionItemRecord } from './records';
export type { ActionItemRecord, ActionItemRow, ActionItemStatus } from './records';
export { itemKey, syncActionItems } from './store';
export type { ActionItemsOfMeeting, SyncedActionItems } from './store';
export {
  ACTION_ITEM_LIST,
  ACTION_ITEM_TOKENS,
  CURSOR_MAX,
  OWNER_MAX,
  listActionItems,
  resolveActionItemFilters,
} from './list';
export type { ActionItemFilters, ActionItemPage } from './list';
export { updateActionItem } from './update';
export type { ActionItemChange } from './update';
