/**
 * OAuth test support: the mcp role on a real port whose PUBLIC_BASE_URL is its own address (issuer,
 * resource and endpoints must match what clients see), a minimal browser (cookies, forms, manual
 * redirects) that plays the user on the sign-in and consent pages, and an in-memory
 * OAuthClientProvider for the SDK's own client.
 */
import { createServer, Server } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decode } from '@toon-format/toon';
import { createMcpApp } from '../../../services/mcp/app';
import { closeServers } from '../../../services/platform/http';
import type { Config } from '../../../services/platform/config';
import { registry } from '../../../services/platform/metrics';
import { testConfig } from '../../support/config';

export interface OAuthHarness {
  /** PUBLIC_BASE_URL: the issuer of the built-in server. */
  base: string;
  /** The MCP endpoint (the protected resource). */
  mcpUrl: string;
  config: Config;
  close(): Promise<void>;
}

/** Listen first, then configure: PUBLIC_BASE_URL must be the address the server really has. */
export async function startOAuthMcp(db: Knex, env: Record<string, string>): Promise<OAuthHarness> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = testConfig({ PUBLIC_BASE_URL: base, ...env }, 'mcp');
  server.on('request', createMcpApp({ db, config }, []));
  return { base, mcpUrl: `${base}/mcp`, config, close: () => closeServers([server], 1000) };
}

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

export const toolCall = (name: string, args: Record<string, unknown> = {}, id = 7) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** One raw JSON-RPC POST to /mcp with a bearer token. */
export function postMcp(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** A tool call through the SDK's client with a fixed bearer token; the TOON answer decoded. */
export async function callWithToken(url: string, token: string, tool: string, args: Record<string, unknown> = {}) {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  try {
    const res = (await client.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const text = res.content.map((c) => c.text).join('\n');
    return { isError: Boolean(res.isError), data: decode(text) as any };
  } finally {
    await client.close();
  }
}

/** Parameters of a WWW-Authenticate Bearer challenge. */
export function challengeParams(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const m of header.matchAll(/([a-z_]+)="([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

export async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = (metric?.values as { labels: Record<string, string>; value: number }[] | undefined)?.find((v) =>
    Object.entries(labels).every(([k, val]) => v.labels[k] === val),
  );
  return value?.value ?? 0;
}

// ---------------------------------------------------------------------------------------------------
// PKCE and a registered client, for tests that speak to the endpoints directly.
// ---------------------------------------------------------------------------------------------------

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://localhost:53682/callback';

export async function registerTestClient(base: string, metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Client', redirect_uris: [REDIRECT_URI], ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export function authorizationUrl(base: string, p: Record<string, string | undefined>): string {
  const u = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries(p)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

export async function tokenRequest(base: string, params: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

// ---------------------------------------------------------------------------------------------------
// The browser.
// ---------------------------------------------------------------------------------------------------

export interface HtmlForm {
  action: string;
  fields: Record<string, string>;
  /** Names of checkboxes and their values (checked ones are also in `fields` when single). */
  checkboxes: { name: string; value: string; checked: boolean }[];
}

const attr = (tag: string, name: string) => {
  const m = new RegExp(`${name}="([^"]*)"`).exec(tag);
  return m
    ? m[1]
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
    : undefined;
};

export function parseForm(html: string): HtmlForm {
  const form = /<form[^>]*>/.exec(html);
  if (!form) throw new Error(`no form in page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  const checkboxes: HtmlForm['checkboxes'] = [];
  for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
    const name = attr(tag, 'name');
    if (!name) continue;
    if (attr(tag, 'type') === 'hidden') fields[name] = attr(tag, 'value') ?? '';
    if (attr(tag, 'type') === 'checkbox')
      checkboxes.push({ name, value: attr(tag, 'value') ?? '', checked: / checked/.test(tag) });
  }
  return { action: attr(form[0], 'action')!, fields, checkboxes };
}

/** Enough of a browser for the sign-in pages: a cookie jar and redirects it does not follow by itself. */
export class TestBrowser {
  readonly cookies = new Map<string, string>();

  private remember(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  async get(url: string): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: this.cookieHeader() });
    this.remember(res);
    return res;
  }

  async post(url: string, form: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
      body,
    });
    this.remember(res);
    return res;
  }
}

export interface SignInOptions {
  decision?: 'approve' | 'deny';
  /** Scopes to leave ticked on the consent page (default: all offered). */
  scopes?: string[];
}

/**
 * Play the user: open the authorization URL, sign in with the API key, decide on the consent page.
 * Returns where the browser is finally sent (the client's redirect URI with code or error).
 */
export async function signInAndConsent(
  browser: TestBrowser,
  authUrl: string,
  apiKey: string,
  opts: SignInOptions = {},
): Promise<URL> {
  const page = await browser.get(authUrl);
  if (page.status !== 200)
    throw new Error(
      `authorization page answered ${page.status}: ${page.headers.get('location') ?? (await page.text()).slice(0, 300)}`,
    );
  const signIn = parseForm(await page.text());
  const afterSignIn = await browser.post(signIn.action, { ...signIn.fields, api_key: apiKey });
  if (afterSignIn.status !== 303) throw new Error(`sign-in answered ${afterSignIn.status}`);
  const consentPage = await browser.get(afterSignIn.headers.get('location')!);
  expect(consentPage.status).toBe(200);
  const consent = parseForm(await consentPage.text());
  const ticked = consent.checkboxes.filter((c) => !opts.scopes || opts.scopes.includes(c.value)).map((c) => c.value);
  const decided = await browser.post(consent.action, {
    ...consent.fields,
    decision: opts.decision ?? 'approve',
    scope: ticked,
  });
  expect(decided.status).toBe(303);
  return new URL(decided.headers.get('location')!);
}

/** A new client's access token (meetings:read and meetings:write) for the user of `apiKey`: the whole built-in flow. */
export async function accessTokenFor(mcp: OAuthHarness, apiKey: string): Promise<string> {
  const clientId = (await registerTestClient(mcp.base)).body.client_id as string;
  const pkce = pkcePair();
  const url = authorizationUrl(mcp.base, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    scope: 'meetings:read meetings:write',
    resource: mcp.mcpUrl,
    state: 'st',
  });
  const landed = await signInAndConsent(new TestBrowser(), url, apiKey);
  const token = await tokenRequest(mcp.base, {
    grant_type: 'authorization_code',
    code: landed.searchParams.get('code')!,
    code_verifier: pkce.verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource: mcp.mcpUrl,
  });
  return token.body.access_token as string;
}

// ---------------------------------------------------------------------------------------------------
// The SDK's client side: an OAuthClientProvider keeping everything in memory.
// ---------------------------------------------------------------------------------------------------

export class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  /** Where the SDK sent the user: the test's browser opens it. */
  authorizationUrl?: URL;
  readonly savedTokens: OAuthTokens[] = [];

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.savedTokens.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}
