/**
 * Discovery documents: the protected-resource metadata of /mcp (RFC 9728), served whenever OAuth is
 * enabled, and the built-in server's authorization server metadata (RFC 8414).
 */
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Router } from 'express';
import type { Config } from '../platform/config';
import { openCors } from './http';
import { SCOPES } from './scopes';
import {
  AS_PATHS,
  asUrl,
  authorizationServerMetadataPaths,
  builtinIssuer,
  resourceMetadataPaths,
  resourceUrl,
} from './urls';

export function protectedResourceMetadata(config: Config): OAuthProtectedResourceMetadata {
  return {
    resource: resourceUrl(config),
    authorization_servers: config.oauth.issuer ? [config.oauth.issuer] : [],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Meeting Intelligence MCP server',
  };
}

export function authorizationServerMetadata(config: Config): OAuthMetadata {
  return {
    issuer: builtinIssuer(config),
    authorization_endpoint: asUrl(config, AS_PATHS.authorize),
    token_endpoint: asUrl(config, AS_PATHS.token),
    registration_endpoint: asUrl(config, AS_PATHS.register),
    revocation_endpoint: asUrl(config, AS_PATHS.revoke),
    revocation_endpoint_auth_methods_supported: ['none'],
    jwks_uri: asUrl(config, AS_PATHS.jwks),
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    // Public clients only: every client proves itself with PKCE, never with a secret.
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
  } as OAuthMetadata;
}

/** GET routes for the discovery documents of the enabled mode. */
export function metadataRouter(config: Config): Router {
  const router = Router();
  const serve = (paths: string[], doc: object) => {
    for (const path of paths) {
      router.options(path, openCors);
      router.get(path, openCors, (_req, res) => void res.set('Cache-Control', 'max-age=300').json(doc));
    }
  };
  serve(resourceMetadataPaths(config), protectedResourceMetadata(config));
  if (config.oauth.mode === 'builtin')
    serve(authorizationServerMetadataPaths(config), authorizationServerMetadata(config));
  return router;
}
