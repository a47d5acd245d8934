/**
 * `meeting-intel search status`: whether questions are answered by meaning on this deployment, how
 * far the configured embedding model has embedded the completed meetings (the backfill's progress),
 * and how many meetings wait for their language's index (and where the re-index is).
 * `meeting-intel search reindex`: index those meetings' words with their language, after creating the
 * configurations of languages whose dictionary files were added to the server since: by the
 * workers' LanguageReindexWorkflow (started, or joined when it runs, and followed), or with --direct
 * in this process.
 */
import { installDictionaries, reindexProgress, reindexStep } from '../../core/languages';
import type { LanguageReindexState } from '../../../workflows/client';
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
  const languages = { ...(await reindexProgress(db)), workflow: await reindexWorkflow(ctx) };
  const languageLine =
    `${languages.remaining} meetings wait for their language's index (meeting-intel search reindex);` +
    ` the re-index: ${workflowWords(languages.workflow, ctx.config().temporal.address)}`;
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

/**
 * The Temporal SDK and the workflow client, loaded when a command talks to the re-index workflow:
 * every role runs this CLI (`serve mcp` too), and the mcp role must not load the SDK it never uses.
 */
function reindexWorkflows() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on use (above) */
  return {
    ...(require('../../platform/temporal') as typeof import('../../platform/temporal')),
    ...(require('../../../workflows/client') as typeof import('../../../workflows/client')),
    ...(require('../../../workflows/contracts') as typeof import('../../../workflows/contracts')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** Where the re-index workflow is: its state, or 'unknown' when Temporal does not answer. */
async function reindexWorkflow(ctx: CommandContext): Promise<LanguageReindexState | { status: 'unknown' }> {
  const config = ctx.config();
  const { createTemporalClient, pingTemporal, languageReindexState } = reindexWorkflows();
  const { client, connection } = createTemporalClient(config);
  try {
    await pingTemporal(connection);
    return await languageReindexState(client, config.temporal.taskQueue);
  } catch {
    return { status: 'unknown' };
  } finally {
    await connection.close();
  }
}

function workflowWords(w: LanguageReindexState | { status: 'unknown' }, address: string): string {
  if (w.status === 'unknown') return `unknown (Temporal at ${address} does not answer)`;
  if (w.status === 'running' && 'progress' in w && w.progress)
    return `running (${w.progress.meetings} meetings, ${w.progress.sentences} sentences so far)`;
  return w.status === 'none' ? 'never run' : `last run ${w.status}`;
}

/** How often `search reindex` prints the progress while it follows the workflow. */
const FOLLOW_EVERY_MS = 2000;

/**
 * Index the words of meetings not indexed with their language's configuration (uploaded with a
 * language before meetings had one, or indexed word for word before their language's dictionary was
 * added). By default the workers' LanguageReindexWorkflow does it (started here, or the running one
 * joined), and this command follows it until it ends, printing progress; --detach returns once it
 * runs. --direct does it in this process instead, a batch a transaction (for a deployment whose
 * workers are not running); stopped anywhere, run it again. The languages whose dictionary files the
 * server lacks are named in one line.
 */
export async function searchReindex(ctx: CommandContext, p: Parsed): Promise<void> {
  if (p.positionals.length) throw new UsageError(`search reindex takes no arguments; got ${p.positionals.join(' ')}`);
  const raw = p.values.batch as string | undefined;
  const batch = raw === undefined ? reindexWorkflows().LANGUAGE_REINDEX_BATCH : Number(raw);
  if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) {
    throw new UsageError(`--batch must be a whole number of meetings from 1 to 10000; got ${raw}`);
  }
  if (p.values.direct && p.values.detach) throw new UsageError('--direct and --detach cannot be used together');
  const db = ctx.db();
  const missing = await installDictionaries(db);
  if (missing.length) {
    process.stderr.write(
      `no dictionary files on the server for ${missing.join(', ')}: those languages are searched as written (docs/search.md, "Languages")\n`,
    );
  }
  if (p.values.direct) return reindexHere(ctx, batch);
  const config = ctx.config();
  const queue = config.temporal.taskQueue;
  const { connectTemporal } = require('../temporal') as typeof import('../temporal');
  const { ensureLanguageReindex, languageReindexResult } = reindexWorkflows();
  const temporal = await connectTemporal(config);
  try {
    const started = Date.now();
    const workflow = await ensureLanguageReindex(temporal.client, queue, raw === undefined ? {} : { batchSize: batch });
    process.stderr.write(
      workflow === 'started'
        ? `started the re-index (LanguageReindexWorkflow) on task queue ${queue}\n`
        : `the re-index runs already on task queue ${queue}${raw === undefined ? '' : ' (with its own batch size)'}\n`,
    );
    if (p.values.detach) {
      ctx.out.result(
        { workflow, taskQueue: queue },
        `the re-index ${workflow}; meeting-intel search status shows its progress`,
      );
      return;
    }
    const result = languageReindexResult(temporal.client, queue);
    let ended = false;
    void result.then(
      () => (ended = true),
      () => (ended = true),
    );
    while (!ended) {
      await new Promise((r) => setTimeout(r, FOLLOW_EVERY_MS));
      if (ended) break;
      const { remaining } = await reindexProgress(db);
      process.stderr.write(`${remaining} meetings left (a worker on task queue ${queue} re-indexes them)\n`);
    }
    const { meetings, sentences, remaining } = await result;
    const seconds = (Date.now() - started) / 1000;
    ctx.out.result(
      { workflow, meetings, sentences, remaining, seconds },
      `the re-index ended: ${meetings} meetings (${sentences} sentences) re-indexed; ${remaining} left`,
    );
  } finally {
    await temporal.close();
  }
}

/** The re-index in this process, a batch a transaction, printing progress after each. */
async function reindexHere(ctx: CommandContext, batch: number): Promise<void> {
  const db = ctx.db();
  const started = Date.now();
  let meetings = 0;
  let sentences = 0;
  let afterId = '';
  for (;;) {
    const step = await reindexStep(db, batch, afterId);
    meetings += step.meetings;
    sentences += step.sentences;
    afterId = step.lastId;
    if (step.done) break;
    const { remaining } = await reindexProgress(db);
    process.stderr.write(`reindexed ${meetings} meetings (${sentences} sentences); ${remaining} left\n`);
  }
  const { remaining } = await reindexProgress(db);
  const seconds = (Date.now() - started) / 1000;
  ctx.out.result(
    { meetings, sentences, remaining, seconds },
    `reindexed ${meetings} meetings (${sentences} sentences) in ${seconds.toFixed(1)} s; ${remaining} left`,
  );
}
