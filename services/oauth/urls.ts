/**
 * Every URL the OAuth surface names, derived from PUBLIC_BASE_URL in one place: the MCP resource
 * (RFC 9728 / RFC 8707 resource indicator), its metadata, and the built-in server's endpoints.
 */
import type { Config } from '../platform/config';

type C = Pick<Config, 'publicBaseUrl'>;

/** The MCP endpoint as a resource identifier: what clients send as `resource` and what PRM names. */
export function resourceUrl(config: C): string {
  return `${config.publicBaseUrl}/mcp`;
}

/**
 * RFC 9728 §3.1: the metadata URL inserts /.well-known/oauth-protected-resource between the host and
 * the resource's path (https://host/mcp → https://host/.well-known/oauth-protected-resource/mcp).
 */
export function resourceMetadataUrl(config: C): string {
  const u = new URL(resourceUrl(config));
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname === '/' ? '' : u.pathname}`;
}

/** Paths this app answers PRM on: the bare well-known path and the path-suffixed one. */
export function resourceMetadataPaths(config: C): string[] {
  const path = new URL(resourceUrl(config)).pathname;
  return [
    ...new Set([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      `/.well-known/oauth-protected-resource${path}`,
    ]),
  ];
}

/** The built-in server's issuer identifier: PUBLIC_BASE_URL, without a trailing slash. */
export function builtinIssuer(config: C): string {
  return config.publicBaseUrl;
}

/** RFC 8414 §3: metadata at /.well-known/oauth-authorization-server, plus the issuer's path when it has one. */
export function authorizationServerMetadataPaths(config: C): string[] {
  const path = new URL(builtinIssuer(config)).pathname.replace(/\/+$/, '');
  return [...new Set(['/.well-known/oauth-authorization-server', `/.well-known/oauth-authorization-server${path}`])];
}

/** Endpoints of the built-in server; the app serves them at these paths, the metadata names them under PUBLIC_BASE_URL. */
export const AS_PATHS = {
  authorize: '/oauth/authorize',
  signIn: '/oauth/sign-in',
  consent: '/oauth/consent',
  callback: '/oauth/callback',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  register: '/oauth/register',
  jwks: '/oauth/jwks',
} as const;

export function asUrl(config: C, path: string): string {
  return `${config.publicBaseUrl}${path}`;
}
