import { MIGRATIONS } from '../../platform/migrations';
import { compareReleases, RELEASE } from '../../platform/release';
import { migrateDown, migrateUp, inspectSchema, SchemaState } from '../../platform/schema';
import { UsageError } from '../args';
import type { CommandContext } from '../context';

export async function migrate(ctx: CommandContext, action = 'up', release?: string): Promise<void> {
  if (release !== undefined && action !== 'status') throw new UsageError('--release goes with migrate status only');
  const db = ctx.db();
  if (action === 'up') {
    const { applied, state } = await migrateUp(db);
    ctx.out.result(
      { action, applied, ...summary(state) },
      applied.length
        ? `applied: ${applied.join(', ')}`
        : state.ahead.length
          ? `nothing to apply: ${verdict(state)}`
          : 'already up to date',
    );
  } else if (action === 'down') {
    const reverted = await migrateDown(db);
    ctx.out.result({ action, reverted }, reverted.length ? `reverted: ${reverted.join(', ')}` : 'nothing to revert');
  } else if (action === 'status') {
    const state = await inspectSchema(db, ...asRelease(release));
    const lines = [
      ...state.applied.filter((n) => !state.ahead.some((a) => a.name === n)).map((n) => `applied  ${n}`),
      ...state.ahead.map(
        (a) => `ahead    ${a.name}  (release ${a.release ?? 'unknown'}, runs with ${a.runsWith ?? 'unknown'} or later)`,
      ),
      ...state.pending.map((n) => `pending  ${n}`),
    ];
    ctx.out.result(
      { action, completed: state.applied, pending: state.pending, ...summary(state) },
      [...lines, verdict(state)].join('\n'),
    );
  } else {
    throw new UsageError(`migrate takes up, down or status; got "${action}"`);
  }
}

function summary(state: SchemaState) {
  return {
    release: state.release,
    schemaRelease: state.schemaRelease,
    ahead: state.ahead,
    runs: !state.problem,
    problem: state.problem?.message ?? null,
  };
}

/** One line: the schema's release, this code's, and whether this code runs on it. */
function verdict(state: SchemaState): string {
  const head = `schema release ${state.schemaRelease ?? 'none'}, this release ${state.release}`;
  return state.problem ? `${head}: cannot run: ${state.problem.message}` : `${head}: runs`;
}

/**
 * The catalog and release to judge the schema as: this release, or an older one (what a rollback would
 * run). An older release knew the migrations up to its own; the later ones are judged by what they
 * declared when applied, exactly as that release's guard would judge them.
 */
function asRelease(release: string | undefined): [typeof MIGRATIONS, string] {
  if (release === undefined) return [MIGRATIONS, RELEASE];
  if (!/^\d+\.\d+\.\d+$/.test(release))
    throw new UsageError(`--release must be a release like 0.1.0; got "${release}"`);
  if (compareReleases(release, RELEASE) > 0)
    throw new UsageError(`--release must be this release (${RELEASE}) or an older one; got "${release}"`);
  return [MIGRATIONS.filter((m) => compareReleases(m.release, release) <= 0), release];
}
