/**
 * The built-in server's machine endpoints: dynamic client registration (RFC 7591), the token
 * endpoint (authorization_code with PKCE, refresh_token with rotation), revocation (RFC 7009) and the
 * published signing keys (JWKS). All answer JSON with RFC 6749 error bodies.
 */
import express, { Request, Router } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { findClient, registerClient } from './clients';
import { invalidRequest, OAuthError } from './errors';
import { grantIsActive, revokeByRefreshToken, revokeGrantOfClient } from './grants';
import { jsonErrors, limitPerAddress, noStore, openCors, param, sendJsonError } from './http';
import { databaseKeySet, publishedJwks } from './keys';
import { exchangeAuthorizationCode, exchangeRefreshToken } from './tokens';
import { AS_PATHS } from './urls';
import { createTokenVerifier } from './verify';

/**
 * Clients are public, so the client id is all that identifies them: from the body, or from HTTP Basic
 * for clients that always use it (the password part is ignored: no client has a secret).
 */
function clientIdOf(req: Request, body: Record<string, unknown>): string | undefined {
  const fromBody = param(body, 'client_id');
  if (fromBody) return fromBody;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.header('authorization') ?? '');
  if (!m) return undefined;
  const [id] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
  try {
    return id ? decodeURIComponent(id) : undefined;
  } catch {
    return undefined;
  }
}

export function endpointsRouter(db: Knex, config: Config): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const requireClient = async (req: Request) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const clientId = clientIdOf(req, body);
    const client = await findClient(db, clientId);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'unknown client_id; register the client first (dynamic client registration)',
        'invalid_client',
        401,
      );
    return { body, client };
  };

  for (const path of [AS_PATHS.register, AS_PATHS.token, AS_PATHS.revoke, AS_PATHS.jwks, '/.well-known/jwks.json'])
    router.options(path, openCors);

  router.post(
    AS_PATHS.register,
    openCors,
    noStore,
    limitPerAddress('register', 30),
    express.json({ limit: '64kb' }),
    async (req, res) => {
      try {
        res.status(201).json(await registerClient(db, req.body));
      } catch (e) {
        sendJsonError(res, e);
      }
    },
  );

  router.post(AS_PATHS.token, openCors, noStore, limitPerAddress('token', 300), form, async (req, res) => {
    try {
      const { body, client } = await requireClient(req);
      const grantType = param(body, 'grant_type');
      if (grantType === 'authorization_code') {
        const code = param(body, 'code');
        if (!code) throw invalidRequest('code is required');
        res.json(
          await exchangeAuthorizationCode(db, config, {
            clientId: client.id,
            code,
            codeVerifier: param(body, 'code_verifier'),
            redirectUri: param(body, 'redirect_uri'),
            resource: param(body, 'resource'),
          }),
        );
      } else if (grantType === 'refresh_token') {
        const refreshToken = param(body, 'refresh_token');
        if (!refreshToken) throw invalidRequest('refresh_token is required');
        res.json(
          await exchangeRefreshToken(db, config, {
            clientId: client.id,
            refreshToken,
            scope: param(body, 'scope'),
            resource: param(body, 'resource'),
          }),
        );
      } else {
        throw new OAuthError(
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
          'unsupported_grant_type',
        );
      }
    } catch (e) {
      sendJsonError(res, e);
    }
  });

  // Access tokens are revoked through their grant; the verifier only reads the grant id of our own tokens.
  const verify = createTokenVerifier({
    issuer: config.oauth.issuer!,
    audience: config.oauth.audience,
    userClaim: 'email',
    clockSkewMs: config.oauth.clockSkewMs,
    keys: databaseKeySet(db, config),
    typ: 'at+jwt',
  });
  router.post(AS_PATHS.revoke, openCors, noStore, limitPerAddress('token', 300), form, async (req, res) => {
    try {
      const { body, client } = await requireClient(req);
      const token = param(body, 'token');
      if (!token) throw invalidRequest('token is required');
      if (token.startsWith('mirt_')) await revokeByRefreshToken(db, token, client.id);
      else {
        const grantId = (await verify(token).catch(() => undefined))?.grantId;
        if (grantId && (await grantIsActive(db, grantId))) await revokeGrantOfClient(db, grantId, client.id);
      }
      res.status(200).json({});
    } catch (e) {
      sendJsonError(res, e);
    }
  });

  for (const path of [AS_PATHS.jwks, '/.well-known/jwks.json']) {
    router.get(path, openCors, async (_req, res) => {
      try {
        res.set('Cache-Control', 'max-age=300').json(await publishedJwks(db, config));
      } catch (e) {
        sendJsonError(res, e);
      }
    });
  }

  router.use(jsonErrors);
  return router;
}
