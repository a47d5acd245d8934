/**
 * `meeting-intel search status`: whether questions are answered by meaning on this deployment, how
 * far the configured embedding model has embedded the completed meetings (the backfill's progress),
 * and how many meetings wait for their language's index.
 * `meeting-intel search reindex`: index those meetings' words with their language (resumable), after
 * creating the configurations of languages whose dictionary files were added to the server since.
 */
import { installDictionaries, reindexProgress, reindexStep } from '../../core/languages';
import { embeddingProgress, vectorTablesExist } from '../../core/passages';
import { readEmbeddingModelInfo } from '../../intelligence/embeddings';
import type { Parsed } from '../args';
import { UsageError } from '../args';
import type { CommandContext } from '../context';

export async function searchStatus(ctx: CommandContext, p: Parsed): Promise<void> {
  if (p.positionals.length) throw new UsageError(`search status takes no arguments; got ${p.positionals.join(' ')}`);
  const dir = ctx.config().embeddingModelDir;
  const db = ctx.db();
  const vectors = await vectorTablesExist(db);
  const languages = await reindexProgress(db);
  const languageLine = `${languages.remaining} meetings wait for their language's index (meeting-intel search reindex)`;
  if (!dir) {
    ctx.out.result(
      { model: null, pgvector: vectors, by: 'words', languages },
      `no embedding model is configured (EMBEDDING_MODEL_DIR=off): questions are answered by their words\n${languageLine}`,
    );
    return;
  }
  const { name } = readEmbeddingModelInfo(dir);
  const progress = await embeddingProgress(db, name);
  const by = vectors ? 'meaning' : 'words';
  ctx.out.result(
    { ...progress, pgvector: vectors, by, languages },
    [
      `model ${name}; pgvector ${vectors ? 'present' : 'missing: questions are answered by their words'}`,
      `${progress.embedded} of ${progress.meetings} completed meetings embedded; ${progress.remaining} left for the backfill`,
      languageLine,
    ].join('\n'),
  );
}

/** Meetings a reindex step takes unless --batch says otherwise. */
const REINDEX_BATCH = 50;

/**
 * Index the words of meetings not indexed with their language's configuration (uploaded with a
 * language before meetings had one, or indexed word for word before their language's dictionary was
 * added), a batch at a time (each batch one transaction), printing progress after each; stopped
 * anywhere, run it again. The languages whose dictionary files the server lacks are named in one line.
 */
export async function searchReindex(ctx: CommandContext, p: Parsed): Promise<void> {
  if (p.positionals.length) throw new UsageError(`search reindex takes no arguments; got ${p.positionals.join(' ')}`);
  const raw = p.values.batch as string | undefined;
  const batch = raw === undefined ? REINDEX_BATCH : Number(raw);
  if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) {
    throw new UsageError(`--batch must be a whole number of meetings from 1 to 10000; got ${raw}`);
  }
  const db = ctx.db();
  const missing = await installDictionaries(db);
  if (missing.length) {
    process.stderr.write(
      `no dictionary files on the server for ${missing.join(', ')}: those languages are searched as written (docs/search.md, "Languages")\n`,
    );
  }
  const started = Date.now();
  let meetings = 0;
  let sentences = 0;
  for (;;) {
    const step = await reindexStep(db, batch);
    meetings += step.meetings;
    sentences += step.sentences;
    if (step.done) break;
    const { remaining } = await reindexProgress(db);
    process.stderr.write(`reindexed ${meetings} meetings (${sentences} sentences); ${remaining} left\n`);
  }
  const seconds = (Date.now() - started) / 1000;
  ctx.out.result(
    { meetings, sentences, seconds },
    `reindexed ${meetings} meetings (${sentences} sentences) in ${seconds.toFixed(1)} s; none left`,
  );
}
