/**
 * Changes since a cursor: svc_get_changes, for applications and agents that keep a copy of the team's
 * meetings (services/core/changes; docs/changes.md: how a mirror stays exact).
 */
import { z } from 'zod';
import {
  CHANGE_KINDS,
  CHANGES_LIMIT_DEFAULT,
  CHANGES_LIMIT_MAX,
  ChangesPage,
  CURSOR_MAX,
  getChanges,
} from '../../core/changes';
import { changesOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getChangesTool = defineTool({
  name: 'svc_get_changes',
  title: 'Meetings changed since a cursor',
  description:
    'For keeping a copy of meetings up to date: the meetings of your team you can read that were created, changed or deleted ' +
    'after a cursor, oldest change first. Without a cursor, first every meeting you can read (phase snapshot), then the changes ' +
    'since. Returns {changes, phase, has_more, next_cursor, retention_days}; each change has meeting_id, changed (comma-separated: ' +
    `${CHANGE_KINDS.join(', ')}), changed_at, removed, reason, and for a meeting you can read its current title, dateString, status, ` +
    'privacy, channel_id, organizer_email, duration (minutes) and is_live (its page: transcript_url of svc_get_transcript). removed true (reason deleted, expired ' +
    'or not_visible) means drop it from your copy; nothing else about it is given. Call again with next_cursor while has_more is ' +
    'true; when false, keep next_cursor and call later. Re-read content only for what changed: svc_get_transcript for ' +
    'transcript or speakers, svc_get_summary for summary, svc_get_action_items for action_items. A cursor is honoured for ' +
    'retention_days; an older one is refused: start again without a cursor.',
  input: {
    cursor: z
      .string()
      .min(1, 'must not be empty; omit it to start from every meeting you can read')
      .max(CURSOR_MAX, `at most ${CURSOR_MAX} characters; pass next_cursor exactly as returned`)
      .optional()
      .describe('next_cursor of the previous call; omit to start with every meeting you can read.'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(CHANGES_LIMIT_MAX, `at most ${CHANGES_LIMIT_MAX}; page with next_cursor for more`)
      .optional()
      .describe(`Changes read per page, 1 to ${CHANGES_LIMIT_MAX} (default ${CHANGES_LIMIT_DEFAULT}).`),
  },
  formats: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  output: changesOutput,
  scope: 'meetings:read',
  run: ({ cursor, limit }, { principal, deps }) => getChanges(deps.db, deps.config, principal, { cursor, limit }),
  text: (r: ChangesPage) => changesText(r),
  // Titles are full of commas, as are the kinds of change: a tab keeps cells unquoted.
  toonDelimiter: '\t',
});

function changesText(r: ChangesPage): string {
  const lines = r.changes.map((c) =>
    c.removed
      ? `${c.changed_at} · ${c.meeting_id} · removed (${c.reason})`
      : `${c.changed_at} · ${c.meeting_id} · ${c.changed} · ${c.title} · ${c.status} · privacy ${c.privacy}` +
        ` · channel ${c.channel_id ?? '(none)'}`,
  );
  if (!lines.length) lines.push(r.phase === 'snapshot' ? 'No meetings to list.' : 'No changes since this cursor.');
  lines.push(
    r.has_more
      ? `More now: call again with cursor: ${r.next_cursor}`
      : `At the end; call later with cursor: ${r.next_cursor} (honoured for ${r.retention_days} days).`,
  );
  return lines.join('\n');
}

export const changesTools: ToolDef[] = [getChangesTool];
