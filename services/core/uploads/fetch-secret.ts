/**
 * The download instructions of an upload (its URL, which may be pre-signed, and download_auth): sealed
 * with SECRETS_KEY into meetings.upload_options at upload time and opened only by the worker's fetch
 * step. They never travel through Temporal history, logs or a plain column.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { openJson } from '../../platform/sealing';
import type { UploadOptions } from './types';

/** What the fetch step needs and nobody else may read: sealed at rest, opened only by the worker. */
export interface FetchSecret {
  url: string;
  auth:
    | { type: 'none' }
    | { type: 'bearer_token'; token: string }
    | { type: 'basic_auth'; username: string; password: string };
}

/** A size cap an admin's bypass_size_check still cannot lift: the worker holds the file in memory. */
export const MEDIA_HARD_CEILING_BYTES = 2 * 1024 * 1024 * 1024;

/** The sealed download instructions of a meeting still being processed (worker only). */
export async function readFetchSecret(
  db: Knex,
  config: Pick<Config, 'secretsKey'>,
  meetingId: string,
): Promise<FetchSecret | undefined> {
  const row = await db('meetings').where({ id: meetingId }).first('upload_options');
  const sealed = (row?.upload_options as UploadOptions | undefined)?.fetch_secret;
  return sealed ? openJson<FetchSecret>(config.secretsKey, sealed) : undefined;
}
