/**
 * The schema guard. Every role checks, at start and in /readyz, that it runs on a schema it knows:
 *  - a migration of this release not applied yet: refuse, naming `meeting-intel migrate up`;
 *  - a migration applied that this release does not know (a newer release migrated): run only if
 *    each such migration declared, when it was applied, that this release runs on it (an expand
 *    migration); otherwise refuse, naming this release and the schema's.
 * `migrate up|down|status` go through here too: up records each migration's declarations, down
 * refuses a migration that cannot be undone, status says whether this release runs on the schema.
 */
import type { Knex } from 'knex';
import { MIGRATIONS, MigrationEntry, migrationSourceOf } from './migrations';
import { compareReleases, RELEASE } from './release';

/** Why a role or `migrate` refuses the schema it found; the message says what to do. */
export class SchemaError extends Error {
  constructor(
    readonly code: 'schema_behind' | 'schema_ahead' | 'schema_irreversible',
    message: string,
  ) {
    super(message);
    this.name = 'SchemaError';
  }
}

/** A migration applied by a release newer than this code. */
export interface AheadMigration {
  name: string;
  release: string | null;
  runsWith: string | null;
}

export interface SchemaState {
  /** This code's release. */
  release: string;
  /** The newest release among the applied migrations; null when none is applied. */
  schemaRelease: string | null;
  applied: string[];
  /** Migrations of this release not applied yet. */
  pending: string[];
  /** Applied migrations this release does not know. */
  ahead: AheadMigration[];
  /** Why this release cannot run on the schema; null when it can. */
  problem: SchemaError | null;
}

export const MIGRATIONS_TABLE = 'knex_migrations';

async function appliedRows(db: Knex): Promise<{ name: string; release: string | null; runs_with: string | null }[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return [];
  const hasReleases = await db.schema.hasColumn(MIGRATIONS_TABLE, 'release');
  const columns = hasReleases
    ? ['name', 'release', 'runs_with']
    : ['name', db.raw('null as release'), db.raw('null as runs_with')];
  return db(MIGRATIONS_TABLE).select(columns).orderBy('id');
}

/** What the database holds against what this code knows, and whether this code runs on it. */
export async function inspectSchema(
  db: Knex,
  catalog: MigrationEntry[] = MIGRATIONS,
  release: string = RELEASE,
): Promise<SchemaState> {
  const rows = await appliedRows(db);
  const known = new Map(catalog.map((m) => [m.name, m]));
  const applied = rows.map((r) => r.name);
  const appliedSet = new Set(applied);
  const pending = catalog.filter((m) => !appliedSet.has(m.name)).map((m) => m.name);
  const ahead: AheadMigration[] = rows
    .filter((r) => !known.has(r.name))
    .map((r) => ({ name: r.name, release: r.release, runsWith: r.runs_with }));
  const releases = rows.map((r) => known.get(r.name)?.release ?? r.release).filter((r): r is string => !!r);
  const schemaRelease = releases.length ? releases.reduce((a, b) => (compareReleases(a, b) >= 0 ? a : b)) : null;

  let problem: SchemaError | null = null;
  const undeclared = ahead.find((m) => !m.release || !m.runsWith);
  const tooNew = ahead.find((m) => m.runsWith && compareReleases(m.runsWith, release) > 0);
  if (undeclared) {
    problem = new SchemaError(
      'schema_ahead',
      `the database has migration ${undeclared.name}, which release ${release} does not know and which declares no release it runs with: deploy the release that applied it`,
    );
  } else if (tooNew) {
    problem = new SchemaError(
      'schema_ahead',
      `the database schema is at release ${schemaRelease}, and its migration ${tooNew.name} (release ${tooNew.release}) runs only with release ${tooNew.runsWith} or later; this is release ${release}: deploy release ${schemaRelease}, or restore the backup taken before the upgrade`,
    );
  } else if (pending.length) {
    const what = applied.length
      ? `lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} of release ${release} (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', ...' : ''})`
      : `has no schema yet (release ${release})`;
    problem = new SchemaError('schema_behind', `the database ${what}: run \`meeting-intel migrate up\``);
  }
  return { release, schemaRelease, applied, pending, ahead, problem };
}

/** Throws the SchemaError that says why this release cannot run on the database's schema. */
export async function requireSchema(
  db: Knex,
  catalog: MigrationEntry[] = MIGRATIONS,
  release: string = RELEASE,
): Promise<SchemaState> {
  const state = await inspectSchema(db, catalog, release);
  if (state.problem) throw state.problem;
  return state;
}

/**
 * Apply this release's pending migrations and record what each declares. A schema ahead of this
 * release is left alone: nothing to apply when this release runs on it, a refusal when it does not.
 */
export async function migrateUp(
  db: Knex,
  catalog: MigrationEntry[] = MIGRATIONS,
  release: string = RELEASE,
): Promise<{ applied: string[]; state: SchemaState }> {
  const before = await inspectSchema(db, catalog, release);
  if (before.problem?.code === 'schema_ahead') throw before.problem;
  const [, applied] = (await db.migrate.latest({
    migrationSource: migrationSourceOf(catalog),
    disableMigrationsListValidation: true,
  })) as [number, string[]];
  if (await db.schema.hasColumn(MIGRATIONS_TABLE, 'release')) {
    for (const m of catalog)
      await db(MIGRATIONS_TABLE)
        .where({ name: m.name })
        .whereNull('release')
        .update({ release: m.release, runs_with: m.runsWith });
  }
  return { applied, state: await inspectSchema(db, catalog, release) };
}

/**
 * Revert the last batch of migrations. Refuses a schema ahead of this release (the release that
 * applied those migrations holds their `down`) and a batch with a migration that cannot be undone.
 */
export async function migrateDown(
  db: Knex,
  catalog: MigrationEntry[] = MIGRATIONS,
  release: string = RELEASE,
): Promise<string[]> {
  const state = await inspectSchema(db, catalog, release);
  if (state.ahead.length)
    throw new SchemaError(
      'schema_ahead',
      `the database schema is at release ${state.schemaRelease}, ahead of this release ${release}: only release ${state.schemaRelease} can revert its migrations (${state.ahead.map((m) => m.name).join(', ')})`,
    );
  if (!state.applied.length) return [];
  const batch = await db(MIGRATIONS_TABLE).max({ b: 'batch' }).first();
  const last = (await db(MIGRATIONS_TABLE).where({ batch: batch?.b }).pluck('name')) as string[];
  const known = new Map(catalog.map((m) => [m.name, m]));
  const stuck = last.map((n) => known.get(n)!).find((m) => m.irreversible || !m.migration.down);
  if (stuck)
    throw new SchemaError(
      'schema_irreversible',
      `migration ${stuck.name} cannot be undone: ${stuck.irreversible ?? 'it has no down'}; restore the backup taken before it instead`,
    );
  const [, reverted] = (await db.migrate.rollback({
    migrationSource: migrationSourceOf(catalog),
    disableMigrationsListValidation: true,
  })) as [number, string[]];
  return reverted;
}
