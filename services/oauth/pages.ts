/**
 * The built-in server's pages: sign-in, consent and error. Server-rendered, no script, every value
 * HTML-escaped (client names come from anonymous registrations), and headers that forbid framing
 * (clickjacking a consent button) and caching.
 */
import type { Response } from 'express';
import { SCOPE_DESCRIPTIONS, Scope } from './scopes';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.35rem}.muted{color:#555;font-size:.9rem}.error{background:#fdecea;border:1px solid #f5c2c0;padding:.6rem .8rem;border-radius:6px}
label{display:block;margin:.6rem 0}input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{padding:.55rem 1.2rem;font-size:1rem;margin-right:.6rem;cursor:pointer}ul{padding-left:0;list-style:none}li{margin:.5rem 0}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

/**
 * Send a page. `formTargets` are the origins (or schemes) a form on it may lead to: browsers apply
 * CSP form-action to the redirect that follows a form post, so the consent page must allow the
 * client's redirect target.
 */
export function sendPage(res: Response, status: number, html: string, formTargets: string[] = []): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Content-Security-Policy':
        `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${formTargets.join(' ')}`.trim(),
    })
    .send(html);
}

export interface ClientView {
  name: string;
  /** Where the browser goes afterwards: shown so the user can tell who is really asking. */
  redirectTarget: string;
}

function clientLine(c: ClientView): string {
  return `<p><strong>${escapeHtml(c.name)}</strong> wants to use your meetings through the Meeting Intelligence MCP server.
<span class="muted">Afterwards you are sent to <code>${escapeHtml(c.redirectTarget)}</code>. Only continue if you started this from that app.</span></p>`;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

export function signInPage(p: {
  action: string;
  requestId: string;
  csrf: string;
  client: ClientView;
  error?: string;
}): string {
  return layout(
    'Sign in',
    `<h1>Sign in to Meeting Intelligence</h1>
${clientLine(p.client)}
${p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
<form method="post" action="${escapeHtml(p.action)}">
${hidden('request', p.requestId)}${hidden('csrf', p.csrf)}
<label>Your API key<input type="password" name="api_key" autocomplete="off" required></label>
<p class="muted">Sign in with one of your API keys (it is checked, never stored or shown to the app). An admin can create one with
<code>meeting-intel apikey create --email you@example.com</code>.</p>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(p: {
  action: string;
  requestId: string;
  csrf: string;
  client: ClientView;
  email: string;
  scopes: Scope[];
}): string {
  const items = p.scopes
    .map(
      (s) =>
        `<li><label><input type="checkbox" name="scope" value="${s}" checked> <code>${s}</code>: ${escapeHtml(SCOPE_DESCRIPTIONS[s])}</label></li>`,
    )
    .join('\n');
  return layout(
    'Allow access?',
    `<h1>Allow access to your meetings?</h1>
${clientLine(p.client)}
<p>Signed in as <strong>${escapeHtml(p.email)}</strong>. The app will be able to:</p>
<form method="post" action="${escapeHtml(p.action)}">
${hidden('request', p.requestId)}${hidden('csrf', p.csrf)}
<ul>
${items}
</ul>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
