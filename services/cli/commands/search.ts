/**
 * `meeting-intel search status`: whether questions are answered by meaning on this deployment, and how
 * far the configured embedding model has embedded the completed meetings (the backfill's progress).
 */
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
  if (!dir) {
    ctx.out.result(
      { model: null, pgvector: vectors, by: 'words' },
      'no embedding model is configured (EMBEDDING_MODEL_DIR=off): questions are answered by their words',
    );
    return;
  }
  const { name } = readEmbeddingModelInfo(dir);
  const progress = await embeddingProgress(db, name);
  const by = vectors ? 'meaning' : 'words';
  ctx.out.result(
    { ...progress, pgvector: vectors, by },
    [
      `model ${name}; pgvector ${vectors ? 'present' : 'missing: questions are answered by their words'}`,
      `${progress.embedded} of ${progress.meetings} completed meetings embedded; ${progress.remaining} left for the backfill`,
    ].join('\n'),
  );
}
