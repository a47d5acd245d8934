/**
 * The mcp role on a real HTTP port, and the SDK's own MCP client talking to it.
 */
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Knex } from 'knex';
import { decode } from '@toon-format/toon';
import { startSession } from '../../services/core/people';
import type { Principal } from '../../services/core/access';
import type { ServiceDeps } from '../../services/core/ports';
import { createMcpApp } from '../../services/mcp/app';
import { closeServers, listen, serverUrl } from '../../services/platform/http';
import type { Config } from '../../services/platform/config';
import { testConfig } from './config';

export interface McpHarness {
  url: string;
  config: Config;
  /** A connected SDK client acting with this API key. */
  client(key: string): Promise<Client>;
  /** Call a tool and return the raw result (content + isError). */
  call(key: string, tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** Where the role serves its pages (under the path of PUBLIC_BASE_URL), without a trailing slash. */
  pages: string;
  /** A page (`/meetings/…`) as `user`'s browser gets it: with a session cookie made for them. */
  page(user: { principal: Principal }, path: string): Promise<Response>;
  close(): Promise<void>;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  /** The text decoded: JSON for format json, TOON otherwise (text format: undefined). */
  data: any;
}

/** `deps`: what the role would load at its start (the question embedder, the workflow port). */
export async function startMcp(
  db: Knex,
  env: Record<string, string> = {},
  deps: Pick<ServiceDeps, 'embedder' | 'workflows'> = {},
): Promise<McpHarness> {
  const config = testConfig(env, 'mcp');
  const app = createMcpApp({ db, config, ...deps }, [
    { name: 'database', check: async () => void (await db.raw('select 1')) },
  ]);
  const server: Server = await listen(app, 0, '127.0.0.1');
  const url = `${serverUrl(server)}/mcp`;
  const clients = new Map<string, Client>();

  const client = async (key: string) => {
    const existing = clients.get(key);
    if (existing) return existing;
    const c = new Client({ name: 'test-client', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    clients.set(key, c);
    return c;
  };

  const pages = serverUrl(server) + new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '');

  return {
    url,
    config,
    client,
    pages,
    page: async (user, path) => {
      const { token } = await startSession(db, user.principal, { method: 'api_key', apiKeyId: null, ttlMs: 600_000 });
      return fetch(`${pages}${path}`, { headers: { cookie: `mi_session=${token}` }, redirect: 'manual' });
    },
    call: async (key, tool, args = {}) => {
      const c = await client(key);
      const res = (await c.callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
      };
      const text = res.content.map((p) => p.text).join('\n');
      const format = (args.format as string | undefined) ?? 'toon';
      let data: unknown;
      if (format === 'json') data = res.isError ? tryDecode(text, true) : JSON.parse(text);
      else if (format !== 'text' || res.isError) data = tryDecode(text);
      return { isError: Boolean(res.isError), text, data };
    },
    close: async () => {
      await Promise.all([...clients.values()].map((c) => c.close()));
      await closeServers([server], 1000);
    },
  };
}

/** TOON first, then JSON; errors of a format json call are JSON, so those are read as JSON first. */
function tryDecode(text: string, jsonFirst = false): unknown {
  if (jsonFirst) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON: fall through to TOON
    }
  }
  try {
    return decode(text);
  } catch {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
}
