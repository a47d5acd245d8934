import type { NextFunction, Request, Response } from 'express';
import { authenticateApiKey } from '../core/apikeys';
import { isServiceError } from '../core/errors';
import type { Principal } from '../core/principal';
import type { Deps } from './tool';

export interface AuthedRequest extends Request {
  principal?: Principal;
}

export function bearerToken(req: Request): string | undefined {
  const h = req.header('authorization');
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

/**
 * Resolve the caller before any tool runs. A missing, unknown or revoked credential gets 401 with a
 * WWW-Authenticate challenge, as OAuth-aware MCP clients expect.
 */
export function requireAuth(deps: Deps) {
  return async (req: AuthedRequest, res: Response, next: NextFunction) => {
    try {
      req.principal = await authenticateApiKey(deps.db, bearerToken(req));
      next();
    } catch (e) {
      if (!isServiceError(e) || e.code !== 'auth_failed') return next(e);
      const error = bearerToken(req) ? 'invalid_token' : 'invalid_request';
      res
        .status(401)
        .set('WWW-Authenticate', `Bearer realm="meeting-intelligence", error="${error}", error_description="${e.message}"`)
        .json({ jsonrpc: '2.0', error: { code: -32001, message: `Unauthorized: ${e.message}` }, id: null });
    }
  };
}
