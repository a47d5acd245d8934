/**
 * What the core functions that reach past the database (workflows, logging) take from their caller,
 * whichever transport that is: one shape, so the transports pass their own deps straight through.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { WorkflowPort } from './workflows';
import type { TextEmbedder } from '../passages';

export interface ServiceDeps {
  db: Knex;
  config: Config;
  /** Absent where the role runs no workflows (the mcp role); core refuses what needs one. */
  workflows?: WorkflowPort;
  /** The question embedder (search by meaning); absent where no model is configured or loaded. */
  embedder?: TextEmbedder | null;
  /** The request's logger (its lines carry the request id); the process logger when absent. */
  log?: Logger;
}
