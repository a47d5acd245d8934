/**
 * The graphql role on a real HTTP port with a real Temporal client, and a plain HTTP client for it
 * (fetch, JSON body, Authorization: Bearer), as an application would call it.
 */
import type { ServiceDeps } from '../../services/core/ports';
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { Client, Connection } from '@temporalio/client';
import { createGraphqlApp } from '../../services/graphql/app';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import type { Config } from '../../services/platform/config';
import { createTemporalClient } from '../../services/platform/temporal';
import { testConfig } from './config';

export interface GraphqlResponse {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[] };
}

export interface GraphqlHarness {
  url: string;
  config: Config;
  temporal: Client;
  /** POST one operation with this API key (undefined: no Authorization header). */
  request(
    key: string | undefined,
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphqlResponse>;
  close(): Promise<void>;
}

/** `deps`: what the role would load at its start (the question embedder). */
export async function startGraphql(
  db: Knex,
  env: Record<string, string> = {},
  deps: Pick<ServiceDeps, 'embedder'> = {},
): Promise<GraphqlHarness> {
  const config = testConfig(env, 'graphql');
  const { client, connection }: { client: Client; connection: Connection } = createTemporalClient(config);
  const { app, stop } = await createGraphqlApp({ db, config, temporal: client, ...deps }, [
    { name: 'database', check: async () => void (await db.raw('select 1')) },
  ]);
  const server: Server = await listen(app, 0, '127.0.0.1');
  const url = `${serverUrl(server)}/graphql`;
  return {
    url,
    config,
    temporal: client,
    request: async (key, query, variables, headers = {}) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      let body: GraphqlResponse['body'];
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`not JSON (HTTP ${res.status}): ${text.slice(0, 300)}`);
      }
      return { status: res.status, headers: res.headers, body };
    },
    close: async () => {
      await closeServers([server], 1000);
      await stop();
      await connection.close();
    },
  };
}

export const UPLOAD_AUDIO = /* GraphQL */ `
  mutation UploadAudio($input: AudioUploadInput!) {
    uploadAudio(input: $input) {
      success
      title
      message
      meetingId
      clientReferenceId
      status
    }
  }
`;

export const TRANSCRIPT = /* GraphQL */ `
  query Transcript($id: ID!) {
    transcript(id: $id) {
      id
      title
      status
      participants
      organizer_email
      duration
      meeting_info {
        summary_status
        message
      }
      sentences {
        index
        speaker_name
        speaker_id
        text
        start_time
        end_time
      }
      analytics {
        speaker_id
        name
        word_count
        duration
      }
      meeting_analytics {
        duration_seconds
      }
      has_more
      summary {
        summary_status
        keywords
        overview
        meeting_type
        action_items {
          text
        }
      }
    }
  }
`;
