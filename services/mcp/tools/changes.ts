/**
 * Changes since a cursor: svc_get_changes, for applications and agents that keep a copy of the team's
 * meetings (services/core/changes; docs/changes.md: how a mirror stays exact).
 */
import { z } from 'zod';
import { CHANGES_LIMIT_DEFAULT, CHANGES_LIMIT_MAX, ChangesPage, CURSOR_MAX, getChanges } from '../../core/changes';
import { changesOutput } from '../output';
import { defineTool, ToolDef } from '../tool';

const getChangesTool = defineTool({
  name: 'svc_get_changes',
  title: 'Meetings changed since a cursor',
  description:
    'To keep a copy of meetings exact: those you can read that were created, changed or deleted after a cursor, oldest first. ' +
    'Without a cursor: every meeting (phase snapshot), then changes. changed lists the kinds; removed true (deleted, expired, not_visible): ' +
    'drop it from your copy. At the end (has_more false) keep next_cursor and call later; re-read only what changed. A cursor older than ' +
    'retention_days is refused: start again without one.',
  input: {
    cursor: z
      .string()
      .min(1, 'must not be empty; omit it to start from every meeting you can read')
      .max(CURSOR_MAX, `at most ${CURSOR_MAX} characters; pass next_cursor exactly as returned`)
      .optional()
      .describe('next_cursor of the previous call.'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(CHANGES_LIMIT_MAX, `at most ${CHANGES_LIMIT_MAX}; page with next_cursor for more`)
      .optional()
      .describe(`Default ${CHANGES_LIMIT_DEFAULT}.`),
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
