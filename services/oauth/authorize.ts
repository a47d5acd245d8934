/**
 * The authorization endpoint and the pages behind it (built-in server):
 *
 *   GET  /oauth/authorize  checks the request; shows the sign-in page (or goes to the OIDC provider)
 *   POST /oauth/sign-in    API-key sign-in                      → 303 to the consent page
 *   GET  /oauth/callback   return from the OIDC provider        → 303 to the consent page
 *   GET  /oauth/consent    the consent page
 *   POST /oauth/consent    allow (a code) or deny               → 303 to the client's redirect URI
 *
 * Until the client and its exact, registered redirect URI are known, errors are shown as a page, never
 * redirected (that would make this an open redirector); after that they go back to the client.
 */
import express, { NextFunction, Request, Response, Router } from 'express';
import type { Knex } from 'knex';
import { apiKeyCredential } from '../core/people';
import { audit } from '../core/audit';
import { isServiceError } from '../platform/errors';
import type { Principal } from '../core/access';
import type { Config } from '../platform/config';
import { logger } from '../platform/logger';
import { oauthSignIns } from '../platform/metrics';
import {
  codeRedirect,
  ensureBrowserSecret,
  browserSecret,
  errorRedirect,
  formTarget,
  redirectTargetLabel,
} from './browser';
import { checkAuthorizeRequest, one, registeredRedirectUri } from './authorize-request';
import { ClientRow, findClient } from './clients';
import { issueCode } from './codes';
import { sha256 } from './crypto';
import { countRefusal, isOAuthError, OAuthError } from './errors';
import { limitPerAddress } from './http';
import { createOidcClient, SignInFailed } from './oidc';
import { consentPage, errorPage, sendPage, signInPage } from './pages';
import { principalByEmail, principalById } from './principal';
import {
  completePendingRequest,
  createPendingRequest,
  csrfFor,
  findByOidcState,
  openPendingRequest,
  PendingRequest,
  recordFailedSignIn,
  setSignedInUser,
  startOidcSignIn,
} from './requests';
import { grantableScopes, type Scope } from './scopes';
import { AS_PATHS, asUrl, builtinIssuer, resourceUrl } from './urls';

type Handler = (req: Request, res: Response) => Promise<void>;

/** Refusals become a page naming what to do; anything else a page without details (logged). */
function page(fn: Handler) {
  return (req: Request, res: Response, _next: NextFunction) => {
    fn(req, res).catch((e) => {
      if (isOAuthError(e)) {
        countRefusal(e.reason);
        return sendPage(res, e.status, errorPage('Sign-in stopped', e.message));
      }
      logger.error({ err: e }, 'oauth page failed');
      sendPage(
        res,
        500,
        errorPage('Something went wrong', 'The sign-in could not be completed. Start again from your MCP client.'),
      );
    });
  };
}

const clientView = (client: ClientRow, redirectUri: string) => ({
  name: client.client_name?.trim() || 'An unnamed app',
  redirectTarget: redirectTargetLabel(redirectUri),
});

export function authorizeRouter(db: Knex, config: Config): Router {
  const router = Router();
  const issuer = builtinIssuer(config);
  const resource = resourceUrl(config);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const oidc = config.oauth.oidc
    ? createOidcClient(config.oauth.oidc, asUrl(config, AS_PATHS.callback), config.oauth.clockSkewMs)
    : undefined;
  const consentUrl = (id: string) => `${asUrl(config, AS_PATHS.consent)}?request=${encodeURIComponent(id)}`;

  async function signedIn(
    pending: PendingRequest,
    principal: Principal,
    method: 'api_key' | 'oidc',
    key?: { id: string; scopes: Scope[] },
  ): Promise<void> {
    await db.transaction(async (tx) => {
      await setSignedInUser(tx, pending.id, principal.userId, key);
      await audit(tx, principal, 'oauth.sign_in', { type: 'oauth_client', id: pending.client_id }, { method });
    });
    oauthSignIns.inc({ outcome: 'ok' });
  }

  function showSignIn(
    res: Response,
    r: { id: string; csrf: string; redirectUri: string },
    client: ClientRow,
    status = 200,
    error?: string,
  ): void {
    sendPage(
      res,
      status,
      signInPage({
        action: asUrl(config, AS_PATHS.signIn),
        requestId: r.id,
        csrf: r.csrf,
        client: clientView(client, r.redirectUri),
        error,
      }),
    );
  }

  async function requestClient(pending: PendingRequest): Promise<ClientRow> {
    const client = await findClient(db, pending.client_id);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'The app of this sign-in is no longer registered. Reconnect it from the app.',
        'invalid_client',
      );
    return client;
  }

  router.get(
    AS_PATHS.authorize,
    limitPerAddress('authorize', 120),
    page(async (req, res) => {
      const q = req.query as Record<string, unknown>;
      const client = await findClient(db, one(q.client_id));
      if (!client)
        throw new OAuthError(
          'invalid_client',
          'This app is not registered with this server (unknown client_id). Reconnect it from the app.',
          'invalid_client',
        );
      const redirectUri = registeredRedirectUri(client, one(q.redirect_uri));
      const state = one(q.state);
      try {
        const { challenge, scopes } = checkAuthorizeRequest(q, client, resource);

        const browser = ensureBrowserSecret(req, res, config);
        const { id, csrf } = await createPendingRequest(
          db,
          {
            clientId: client.id,
            redirectUri,
            redirectUriGiven: one(q.redirect_uri) !== undefined,
            scopes,
            state,
            codeChallenge: challenge,
            resource,
          },
          browser,
        );
        if (!oidc) return showSignIn(res, { id, csrf, redirectUri }, client);
        const start = await oidc.start();
        await startOidcSignIn(db, id, { stateHash: sha256(start.state), nonce: start.nonce, verifier: start.verifier });
        res.redirect(303, start.url);
      } catch (e) {
        if (e instanceof SignInFailed) {
          oauthSignIns.inc({ outcome: e.outcome });
          return void res.redirect(
            303,
            errorRedirect(redirectUri, issuer, 'temporarily_unavailable', e.message, state),
          );
        }
        if (!isOAuthError(e)) throw e;
        countRefusal(e.reason);
        res.redirect(303, errorRedirect(redirectUri, issuer, e.error, e.message, state));
      }
    }),
  );

  router.post(
    AS_PATHS.signIn,
    limitPerAddress('sign-in', 60),
    form,
    page(async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const pending = await openPendingRequest(db, b.request, {
        browserSecret: browserSecret(req),
        csrf: b.csrf,
        post: true,
      });
      if (oidc)
        throw new OAuthError(
          'invalid_request',
          'Sign-in with an API key is turned off here; sign in through your organisation instead.',
          'invalid_request',
        );
      if (pending.user_id) return void res.redirect(303, consentUrl(pending.id));
      const client = await requestClient(pending);
      let principal: Principal;
      let keyId: string;
      try {
        ({ principal, keyId } = await apiKeyCredential(db, one(b.api_key)?.trim()));
      } catch (e) {
        if (!isServiceError(e) || e.code !== 'auth_failed') throw e;
        oauthSignIns.inc({ outcome: 'bad_credentials' });
        if (await recordFailedSignIn(db, pending.id)) {
          return sendPage(
            res,
            401,
            errorPage(
              'Too many attempts',
              'Too many wrong API keys for this sign-in. Start again from your MCP client.',
            ),
          );
        }
        const csrf = await csrfFor(db, pending);
        return showSignIn(
          res,
          { id: pending.id, csrf, redirectUri: pending.redirect_uri },
          client,
          401,
          'That API key is unknown or revoked. Check it and try again.',
        );
      }
      // The sign-in obtains at most what the key may do: the app's scopes the key carries.
      const scopes = pending.scopes.filter((s) => principal.scopes?.includes(s) ?? true);
      if (!scopes.length) {
        const csrf = await csrfFor(db, pending);
        const error = `That API key does not carry ${pending.scopes.join(' or ')}, which the app asks for. Use a key that does.`;
        return showSignIn(res, { id: pending.id, csrf, redirectUri: pending.redirect_uri }, client, 403, error);
      }
      await signedIn(pending, principal, 'api_key', { id: keyId, scopes });
      res.redirect(303, consentUrl(pending.id));
    }),
  );

  router.get(
    AS_PATHS.callback,
    limitPerAddress('sign-in', 60),
    page(async (req, res) => {
      if (!oidc)
        return sendPage(
          res,
          404,
          errorPage('Not found', 'Sign-in through an identity provider is not configured here.'),
        );
      const q = req.query as Record<string, unknown>;
      const found = await findByOidcState(db, q.state);
      if (!found)
        throw new OAuthError(
          'invalid_request',
          'This sign-in has expired or was already completed. Start again from your MCP client.',
          'request_expired',
        );
      const pending = await openPendingRequest(db, found.id, { browserSecret: browserSecret(req), post: false });
      if (pending.user_id) return void res.redirect(303, consentUrl(pending.id));
      if (one(q.error) !== undefined || !pending.oidc_nonce || !pending.oidc_verifier) {
        oauthSignIns.inc({ outcome: 'provider_error' });
        await completePendingRequest(db, pending.id);
        return void res.redirect(
          303,
          errorRedirect(
            pending.redirect_uri,
            issuer,
            'access_denied',
            'sign-in at the identity provider did not succeed',
            pending.state,
          ),
        );
      }
      let email: string;
      try {
        email = await oidc.finish(one(q.code) ?? '', { nonce: pending.oidc_nonce, verifier: pending.oidc_verifier });
      } catch (e) {
        if (!(e instanceof SignInFailed)) throw e;
        oauthSignIns.inc({ outcome: e.outcome });
        return sendPage(res, 401, errorPage('Sign-in failed', e.message));
      }
      const principal = await principalByEmail(db, email);
      if (!principal) {
        oauthSignIns.inc({ outcome: 'unknown_user' });
        return sendPage(
          res,
          403,
          errorPage(
            'Not a user here',
            `${email} is not a user of this service. Ask an admin of your team to add you, then start again.`,
          ),
        );
      }
      await signedIn(pending, principal, 'oidc');
      res.redirect(303, consentUrl(pending.id));
    }),
  );

  router.get(
    AS_PATHS.consent,
    page(async (req, res) => {
      const pending = await openPendingRequest(db, (req.query as Record<string, unknown>).request, {
        browserSecret: browserSecret(req),
        post: false,
      });
      const principal = pending.user_id ? await principalById(db, pending.user_id) : undefined;
      if (!principal)
        throw new OAuthError('invalid_request', 'Sign in first. Start again from your MCP client.', 'invalid_request');
      const client = await requestClient(pending);
      const csrf = await csrfFor(db, pending);
      sendPage(
        res,
        200,
        consentPage({
          action: asUrl(config, AS_PATHS.consent),
          requestId: pending.id,
          csrf,
          client: clientView(client, pending.redirect_uri),
          email: principal.email,
          scopes: grantableScopes(pending.scopes, principal),
        }),
        [formTarget(pending.redirect_uri)],
      );
    }),
  );

  router.post(
    AS_PATHS.consent,
    form,
    page(async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const pending = await openPendingRequest(db, b.request, {
        browserSecret: browserSecret(req),
        csrf: b.csrf,
        post: true,
      });
      const principal = pending.user_id ? await principalById(db, pending.user_id) : undefined;
      if (!principal)
        throw new OAuthError('invalid_request', 'Sign in first. Start again from your MCP client.', 'invalid_request');
      const ticked = Array.isArray(b.scope) ? b.scope : [b.scope];
      const granted = grantableScopes(pending.scopes, principal).filter((s) => ticked.includes(s));
      const approved = one(b.decision) === 'approve' && granted.length > 0;
      if (!(await completePendingRequest(db, pending.id))) {
        throw new OAuthError(
          'invalid_request',
          'This sign-in was already completed. Start again from your MCP client.',
          'request_expired',
        );
      }
      const target = { type: 'oauth_client', id: pending.client_id };
      if (!approved) {
        await audit(db, principal, 'oauth.consent', target, { decision: 'deny', scopes: [] });
        countRefusal('access_denied');
        const why = one(b.decision) === 'approve' ? 'no scope was granted' : 'the user denied access';
        return void res.redirect(303, errorRedirect(pending.redirect_uri, issuer, 'access_denied', why, pending.state));
      }
      const code = await db.transaction(async (tx) => {
        const c = await issueCode(tx, {
          clientId: pending.client_id,
          userId: principal.userId,
          redirectUri: pending.redirect_uri,
          redirectUriGiven: pending.redirect_uri_given,
          apiKeyId: pending.api_key_id,
          scopes: granted,
          codeChallenge: pending.code_challenge,
          resource: pending.resource,
        });
        await audit(tx, principal, 'oauth.consent', target, { decision: 'approve', scopes: granted });
        return c;
      });
      res.redirect(303, codeRedirect(pending.redirect_uri, issuer, code, pending.state));
    }),
  );

  // Rate limits and unreadable forms, as pages too.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (isOAuthError(err)) {
      countRefusal(err.reason);
      if (err.status === 429) res.set('Retry-After', '60');
      return sendPage(res, err.status, errorPage('Sign-in stopped', err.message));
    }
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500)
      return sendPage(
        res,
        status,
        errorPage('Sign-in stopped', 'The form could not be read. Start again from your MCP client.'),
      );
    logger.error({ err }, 'oauth page failed');
    sendPage(
      res,
      500,
      errorPage('Something went wrong', 'The sign-in could not be completed. Start again from your MCP client.'),
    );
  });
  return router;
}
