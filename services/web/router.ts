/**
 * The meeting and soundbite pages: the links the service hands out (`transcript_url`, a soundbite's
 * `share_url`) open here, on the mcp role, behind the same host as /mcp. A transport like MCP and
 * GraphQL: it signs people in, reads with core (so a person sees exactly what the tools would show
 * them; every permission is core's) and renders. See docs/architecture.md.
 */
import type { TextEmbedder } from '../core/passages';
import { answersPage } from './answers';
import { timingSafeEqual, randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { isServiceError } from '../platform/errors';
import { requestLog } from '../platform/http';
import { fetchMeeting, getTranscript, listMeetings, parseSearchQuery, sentenceIndexAt } from '../core/meetings';
import { apiKeyCredential, endSession, sessionOf, startSession, type PageSession } from '../core/people';
import { openSoundbite } from '../core/soundbites';
import { readContext, readingAs } from '../core/audit';
import { createOidcClient, type OidcClient } from '../oauth/oidc';
import { principalByEmail } from '../oauth/principal';
import { APP_CSS, APP_JS } from './assets';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGNIN_CSRF_COOKIE } from './cookies';
import {
  actionItemsPage,
  errorPage,
  layout,
  meetingPage,
  meetingsPage,
  notFoundPage,
  signInPage,
  soundbitePage,
  type PageContext,
} from './views';
import { ACTION_ITEM_LIST, listActionItems } from '../core/action-items';
import { latestSummaryRun } from '../core/summaries';
import { exportMeeting } from '../core/exports';

export interface WebDeps {
  db: Knex;
  config: Config;
  /** The question embedder of the "Ask" box (absent: questions are answered by their words). */
  embedder?: TextEmbedder | null;
}

type PageRequest = Request & { session?: PageSession };

/** Pages never sit in a shared cache, never run inline script, never load from elsewhere, never frame. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function pageHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CSP,
    'Cache-Control': 'private, no-store',
    Vary: 'Cookie',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  });
  next();
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The pages of this service only: a path under the base that is not protocol-relative. */
function safeNext(base: string, raw: unknown): string {
  const fallback = `${base}/meetings`;
  if (typeof raw !== 'string' || !raw.startsWith(`${base}/`) || raw.startsWith('//') || /[\\\r\n]/.test(raw))
    return fallback;
  return raw;
}

async function send(res: Response, status: number, page: ReturnType<typeof layout>): Promise<void> {
  res
    .status(status)
    .type('html')
    .send(String(await page));
}

export function createWebRouter(deps: WebDeps): Router {
  const { db, config } = deps;
  const base = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '');
  const router = express.Router();
  const ctxOf = (req: PageRequest): PageContext => ({
    base,
    viewer: req.session?.principal ?? null,
    csrf: req.session?.csrf ?? null,
  });
  const oidc: OidcClient | undefined = config.oauth.oidc
    ? createOidcClient(config.oauth.oidc, `${config.publicBaseUrl}/signin/callback`, config.oauth.clockSkewMs)
    : undefined;

  router.get('/assets/app.js', (_req, res) => {
    res
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(APP_JS);
  });
  router.get('/assets/app.css', (_req, res) => {
    res
      .set({
        'Content-Type': 'text/css; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(APP_CSS);
  });

  const pages = router;
  const PAGE_PATHS = ['/signin', '/signout', '/meetings', '/soundbites', '/action-items'];
  pages.use(PAGE_PATHS, pageHeaders, async (req: PageRequest, _res, next) => {
    try {
      req.session = await sessionOf(db, readCookie(req, SESSION_COOKIE));
      next();
    } catch (e) {
      next(e);
    }
  });

  const signInFirst = (req: PageRequest, res: Response) =>
    res.redirect(303, `${base}/signin?${new URLSearchParams({ next: `${base}${req.originalUrl}` })}`);

  // -------------------------------------------------------------------------------------------------
  // Sign-in and sign-out
  // -------------------------------------------------------------------------------------------------

  const signInForm = async (req: PageRequest, res: Response, status = 200, error?: string) => {
    let csrf = readCookie(req, SIGNIN_CSRF_COOKIE);
    if (!csrf || !/^[A-Za-z0-9_-]{43}$/.test(csrf)) {
      csrf = randomBytes(32).toString('base64url');
      setCookie(res, config, SIGNIN_CSRF_COOKIE, csrf, 3_600_000);
    }
    const next = safeNext(base, (req.body as Record<string, unknown> | undefined)?.next ?? req.query.next);
    await send(res, status, signInPage(ctxOf(req), { csrf, next, error, oidc: Boolean(oidc) }));
  };

  pages.get('/signin', (req, res, next) => signInForm(req, res).catch(next));

  pages.post('/signin', express.urlencoded({ extended: false, limit: '16kb' }), async (req: PageRequest, res, next) => {
    try {
      const body = req.body as Record<string, unknown>;
      const cookie = readCookie(req, SIGNIN_CSRF_COOKIE);
      if (!cookie || typeof body.csrf !== 'string' || !sameSecret(cookie, body.csrf)) {
        return await signInForm(req, res, 403, 'The form expired. Sign in again.');
      }
      let credential;
      try {
        credential = await apiKeyCredential(db, typeof body.api_key === 'string' ? body.api_key.trim() : undefined);
      } catch (e) {
        if (isServiceError(e) && e.code === 'auth_failed')
          return await signInForm(req, res, 401, 'That API key is unknown or revoked.');
        throw e;
      }
      const { token } = await startSession(db, credential.principal, {
        method: 'api_key',
        apiKeyId: credential.keyId,
        ttlMs: config.webSessionTtlMs,
      });
      setCookie(res, config, SESSION_COOKIE, token, config.webSessionTtlMs);
      clearCookie(res, config, SIGNIN_CSRF_COOKIE);
      res.redirect(303, safeNext(base, body.next));
    } catch (e) {
      next(e);
    }
  });

  if (oidc) {
    const OIDC_COOKIE = 'mi_signin_oidc';
    pages.get('/signin/oidc', async (req: PageRequest, res, next) => {
      try {
        const start = await oidc.start();
        const remembered = {
          state: start.state,
          nonce: start.nonce,
          verifier: start.verifier,
          next: safeNext(base, req.query.next),
        };
        setCookie(res, config, OIDC_COOKIE, Buffer.from(JSON.stringify(remembered)).toString('base64url'), 600_000);
        res.redirect(303, start.url);
      } catch (e) {
        next(e);
      }
    });
    pages.get('/signin/callback', async (req: PageRequest, res, next) => {
      try {
        const raw = readCookie(req, OIDC_COOKIE);
        clearCookie(res, config, OIDC_COOKIE);
        let remembered: { state: string; nonce: string; verifier: string; next: string } | undefined;
        try {
          remembered = raw ? JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) : undefined;
        } catch {
          remembered = undefined;
        }
        if (
          !remembered ||
          typeof req.query.state !== 'string' ||
          !sameSecret(remembered.state, req.query.state) ||
          typeof req.query.code !== 'string'
        ) {
          return await signInForm(req, res, 400, 'The sign-in expired or did not come from this browser. Try again.');
        }
        let email: string;
        try {
          email = await oidc.finish(req.query.code, remembered);
        } catch (e) {
          return await signInForm(req, res, 401, (e as Error).message);
        }
        const principal = await principalByEmail(db, email);
        if (!principal) return await signInForm(req, res, 403, `${email} is not a user of this service.`);
        const { token } = await startSession(db, principal, {
          method: 'oidc',
          apiKeyId: null,
          ttlMs: config.webSessionTtlMs,
        });
        setCookie(res, config, SESSION_COOKIE, token, config.webSessionTtlMs);
        res.redirect(303, safeNext(base, remembered.next));
      } catch (e) {
        next(e);
      }
    });
  }

  pages.post('/signout', express.urlencoded({ extended: false, limit: '4kb' }), async (req: PageRequest, res, next) => {
    try {
      const csrf = (req.body as Record<string, unknown>).csrf;
      if (req.session) {
        if (typeof csrf !== 'string' || !sameSecret(req.session.csrf, csrf))
          return await send(res, 403, errorPage(ctxOf(req), 'The form expired. Reload the page and sign out again.'));
        await endSession(db, req.session);
      }
      clearCookie(res, config, SESSION_COOKIE);
      res.redirect(303, `${base}/signin`);
    } catch (e) {
      next(e);
    }
  });

  // -------------------------------------------------------------------------------------------------
  // Meetings
  // -------------------------------------------------------------------------------------------------

  const PAGE_SIZE = 20;
  /**
   * A transcript part's budget, in the tools' token estimate: about 70 sentences, a few minutes of
   * talk. A three-hour meeting's page stays quick to read and render; the script loads the next part
   * as the reader gets there (and `#t=` the part it links to).
   */
  const PART_TOKENS = 4_000;

  pages.get('/meetings', async (req: PageRequest, res, next) => {
    try {
      if (!req.session) return signInFirst(req, res);
      const p = req.session.principal;
      const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
      const ask = typeof req.query.ask === 'string' ? req.query.ask.trim() : '';
      if (ask) return await answer(req, res, ask);
      const skip = Math.max(0, Math.min(100_000, Number.parseInt(String(req.query.skip ?? '0'), 10) || 0));
      let filters;
      try {
        filters = q ? parseSearchQuery(q) : {};
      } catch (e) {
        if (!isServiceError(e)) throw e;
        return await send(
          res,
          400,
          meetingsPage(ctxOf(req), {
            q,
            skip,
            list: { meetings: [], has_more: false, next_skip: null },
            error: e.message,
          }),
        );
      }
      const list = await listMeetings(db, config, readingAs(p, 'page:/meetings'), {
        ...filters,
        skip: filters.skip ?? skip,
        limit: filters.limit ?? PAGE_SIZE,
      });
      await send(res, 200, meetingsPage(ctxOf(req), { q, skip, list }));
    } catch (e) {
      next(e);
    }
  });

  /** The "Ask" box: the moments that answer a question, or the question's error beside the box. */
  async function answer(req: PageRequest, res: Response, ask: string): Promise<void> {
    const reader = readingAs(req.session!.principal, 'page:/meetings');
    try {
      const list = await listMeetings(db, config, reader, { question: ask, limit: 10 }, deps.embedder);
      await send(res, 200, answersPage(ctxOf(req), ask, list));
    } catch (e) {
      if (!isServiceError(e)) throw e;
      const list = { meetings: [], has_more: false, next_skip: null, note: e.message };
      await send(res, 400, answersPage(ctxOf(req), ask, list));
    }
  }

  pages.get('/meetings/:id', async (req: PageRequest, res, next) => {
    try {
      if (!req.session) return signInFirst(req, res);
      const from = Math.max(0, Number.parseInt(String(req.query.from ?? '0'), 10) || 0);
      const reader = readingAs(req.session.principal, 'page:/meetings/:id');
      const meeting = await fetchMeeting(db, config, reader, String(req.params.id), {
        fromIndex: from,
        rawText: 'when-different',
        maxTokens: PART_TOKENS,
      });
      const items = await listActionItems(db, config, reader, {
        meetingId: meeting.id,
        limit: ACTION_ITEM_LIST.maxLimit,
      });
      const run = await latestSummaryRun(db, reader, meeting.id);
      await send(res, 200, meetingPage(ctxOf(req), meeting, from, items.action_items, run));
    } catch (e) {
      next(e);
    }
  });

  /** A download of the meeting (exports): the same read as the page, recorded as `page:/meetings/:id/export`. */
  pages.get('/meetings/:id/export.:format', async (req: PageRequest, res, next) => {
    try {
      if (!req.session) return signInFirst(req, res);
      const file = await exportMeeting(
        db,
        config,
        readingAs(req.session.principal, 'page:/meetings/:id/export'),
        String(req.params.id),
        String(req.params.format),
      );
      res
        .set({ 'Content-Type': file.contentType, 'Content-Disposition': `attachment; filename="${file.filename}"` })
        .send(file.body);
    } catch (e) {
      next(e);
    }
  });

  /** A person's open action items across the meetings they may read, newest meeting first. */
  pages.get('/action-items', async (req: PageRequest, res, next) => {
    try {
      if (!req.session) return signInFirst(req, res);
      const cursor = typeof req.query.cursor === 'string' && req.query.cursor ? req.query.cursor : undefined;
      const page = await listActionItems(db, config, readingAs(req.session.principal, 'page:/action-items'), {
        mine: true,
        status: 'open',
        limit: PAGE_SIZE,
        cursor,
      });
      const nextHref = page.next_cursor
        ? `${base}/action-items?${new URLSearchParams({ cursor: page.next_cursor })}`
        : null;
      await send(res, 200, actionItemsPage(ctxOf(req), page, nextHref));
    } catch (e) {
      next(e);
    }
  });

  /** The transcript in parts, for the page's script: `from` an index, or the part `at` a moment. */
  pages.get('/meetings/:id/sentences', async (req: PageRequest, res, next) => {
    try {
      if (!req.session) return void res.status(401).json({ error: 'sign in first' });
      const p = req.session.principal;
      const at = req.query.at === undefined ? undefined : Number(req.query.at);
      let from = Math.max(0, Number.parseInt(String(req.query.from ?? '0'), 10) || 0);
      if (at !== undefined && Number.isFinite(at))
        from = Math.max(0, (await sentenceIndexAt(db, p, String(req.params.id), at)) - 5);
      const page = await getTranscript(
        db,
        config,
        readingAs(p, 'page:/meetings/:id/sentences'),
        String(req.params.id),
        { fromIndex: from, rawText: 'when-different', maxTokens: PART_TOKENS },
      );
      res.json({
        from,
        sentences: page.sentences,
        next_index: page.next_index,
        has_more: page.has_more,
        is_live: page.is_live,
        status: page.status,
      });
    } catch (e) {
      if (isServiceError(e) && (e.code === 'object_not_found' || e.code === 'invalid_arguments'))
        return void res.status(404).json({ error: 'not found' });
      next(e);
    }
  });

  // -------------------------------------------------------------------------------------------------
  // Soundbites: public ones open without signing in
  // -------------------------------------------------------------------------------------------------

  pages.get('/soundbites/:id', async (req: PageRequest, res, next) => {
    try {
      const reads = readContext('page:/soundbites/:id');
      const viewer = req.session ? readingAs(req.session.principal, reads) : null;
      const sb = await openSoundbite(db, config, viewer, String(req.params.id), reads);
      await send(res, 200, soundbitePage(ctxOf(req), sb));
    } catch (e) {
      next(e);
    }
  });

  // Anything else under the pages, and anything a page may not show: the same not-found page.
  pages.use(['/meetings', '/soundbites', '/action-items'], async (req: PageRequest, res) => {
    await send(res, 404, notFoundPage(ctxOf(req)));
  });
  pages.use(PAGE_PATHS, async (err: unknown, req: PageRequest, res: Response, _next: NextFunction) => {
    try {
      if (
        isServiceError(err) &&
        (err.code === 'object_not_found' || err.code === 'invalid_arguments' || err.code === 'args_required')
      ) {
        return await send(res, 404, notFoundPage(ctxOf(req)));
      }
      requestLog(res).error({ err }, 'page failed');
      await send(
        res,
        500,
        errorPage(ctxOf(req), 'The page could not be shown right now; it has been logged. Try again in a moment.'),
      );
    } catch {
      if (!res.headersSent) res.status(500).end();
    }
  });

  return router;
}
