/**
 * OAuth for the MCP endpoint (docs/oauth.md). OAUTH_MODE=none: nothing (API keys only).
 * external: protected-resource metadata and token verification against OAUTH_ISSUER.
 * builtin: the same, plus this service's own authorization server, issuer PUBLIC_BASE_URL.
 */
import { Router } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { authorizeRouter } from './authorize';
import { endpointsRouter } from './endpoints';
import { metadataRouter } from './metadata';
import { createResourceServer, ResourceServer } from './resource-server';

export interface OAuthSurface {
  /** Discovery documents and, in builtin mode, the authorization server; mount at the app root. */
  router: Router;
  resourceServer: ResourceServer;
}

export function createOAuth(db: Knex, config: Config): OAuthSurface | undefined {
  if (config.oauth.mode === 'none') return undefined;
  const router = Router();
  router.use(metadataRouter(config));
  if (config.oauth.mode === 'builtin') {
    router.use(endpointsRouter(db, config));
    router.use(authorizeRouter(db, config));
  }
  return { router, resourceServer: createResourceServer(db, config) };
}

export type { ResourceServer } from './resource-server';
export { rotateSigningKey, publishedJwks } from './keys';
