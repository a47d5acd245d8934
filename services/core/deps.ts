/**
 * What the core functions that reach past the database (Temporal, logging) take from their caller,
 * whichever transport that is: one shape, so the transports pass their own deps straight through.
 */
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';

export interface ServiceDeps {
  db: Knex;
  config: Config;
  /** Absent where the role runs no workflows (the mcp role); core refuses what needs one. */
  temporal?: Client;
  /** The request's logger (its lines carry the request id); the process logger when absent. */
  log?: Logger;
}
