import type { Knex } from 'knex';
import { REBUILD_WITH_MOMENTS } from './20261201000000_best_moments';

/**
 * A statement that updates sentences may rebuild their meetings' lexeme sets and best moments itself,
 * in the same transaction, instead of the sentence trigger rebuilding them.
 *
 * The trigger rebuilds them with an UPDATE of the meetings whose sentences changed: a new version
 * of each meeting's row, whose lexeme and pair sets go into their full-text indexes again, word by
 * word. The language re-index writes each meeting's language right after its sentences, a second
 * new version of the row with every word indexed a second time. Set with SET LOCAL around its
 * sentences UPDATE, SETS_BY_STATEMENT lets the re-index write the sets in the same UPDATE as the
 * language (services/core/languages/reindex.ts), with the same functions the trigger uses: one new
 * version of the row instead of two, and the same sets and moments.
 *
 * Only updates are left to the statement (a deletion still rebuilds here), and only while the setting
 * is on in the transaction that updates; nothing else sets it. Expand-only: the previous release
 * never sets it, so its writes rebuild as before.
 */

/** The setting (a custom one, off unless set) under which a sentences UPDATE leaves the rebuild to its own transaction. */
export const SETS_BY_STATEMENT = 'mi.sentence_sets_by_statement';

const SKIPPING = REBUILD_WITH_MOMENTS.replace(
  '  begin\n',
  `  begin\n    if tg_op = 'UPDATE' and current_setting('${SETS_BY_STATEMENT}', true) = 'on' then return null; end if;\n`,
);

export async function up(knex: Knex): Promise<void> {
  if (SKIPPING === REBUILD_WITH_MOMENTS)
    throw new Error('sentence_sets_by_statement: the rebuild function changed shape');
  await knex.raw(SKIPPING);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(REBUILD_WITH_MOMENTS);
}
