import { UsageError } from '../args';
import type { CommandContext } from '../context';

export async function migrate(ctx: CommandContext, action = 'up'): Promise<void> {
  const db = ctx.db();
  if (action === 'up') {
    const [, applied] = await db.migrate.latest();
    ctx.out.result({ action, applied }, applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
  } else if (action === 'down') {
    const [, reverted] = await db.migrate.rollback();
    ctx.out.result({ action, reverted }, reverted.length ? `reverted: ${reverted.join(', ')}` : 'nothing to revert');
  } else if (action === 'status') {
    const [completed, pending] = await db.migrate.list();
    const done = completed.map((c: { name: string }) => c.name);
    const todo = pending.map((p: { file: string } | [string]) => (Array.isArray(p) ? p[0] : p.file));
    ctx.out.result({ action, completed: done, pending: todo }, [...done.map((n: string) => `applied  ${n}`), ...todo.map((n: string) => `pending  ${n}`)].join('\n') || 'no migrations');
  } else {
    throw new UsageError(`migrate takes up, down or status; got "${action}"`);
  }
}
