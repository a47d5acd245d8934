/**
 * The pages, server-rendered with hono's `html` template: every value interpolated into it is escaped
 * (titles, names and sentences are what people wrote), nested templates are not escaped twice. No
 * inline script or style anywhere (the Content-Security-Policy forbids them): behaviour is
 * /assets/app.js, looks are /assets/app.css, charts are SVG with presentation attributes.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { FullMeeting, MeetingList, MomentRecord, SentenceRecord, SpeakerAnalyticsRecord } from '../core/meetings';
import type { OpenedSoundbite } from '../core/soundbites';
import type { Principal } from '../core/access';
import type { ActionItemPage, ActionItemRecord } from '../core/action-items';
import { EXPORT_FORMATS } from '../core/exports';
import type { LatestSummaryRun } from '../core/summaries';
import { clock, notesByline, outlineOf, overviewOf } from './summary-lines';

export { clock } from './summary-lines';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageContext {
  /** PUBLIC_BASE_URL's path ('' at the root): every link starts with it. */
  base: string;
  viewer: Principal | null;
  /** The session's CSRF value, for the sign-out form. */
  csrf: string | null;
}

export function layout(ctx: PageContext, title: string, body: Html): Html {
  const b = ctx.base;
  const account = ctx.viewer
    ? html`<span class="who">${ctx.viewer.name}</span>
        <form method="post" action="${b}/signout" class="inline">
          <input type="hidden" name="csrf" value="${ctx.csrf ?? ''}" />
          <button type="submit" class="link">Sign out</button>
        </form>`
    : html`<a href="${b}/signin">Sign in</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title} · Meetings</title>
        <link rel="stylesheet" href="${b}/assets/app.css" />
        <script src="${b}/assets/app.js" defer></script>
      </head>
      <body>
        <header class="top">
          <nav aria-label="Main">
            <a href="${b}/meetings" class="home">Meetings</a> <a href="${b}/action-items">Action items</a>
          </nav>
          <div class="account">${account}</div>
        </header>
        <main id="main">${body}</main>
      </body>
    </html>`;
}

export function notFoundPage(ctx: PageContext): Html {
  const signIn = ctx.viewer
    ? ''
    : html`<p>If someone sent you this link, <a href="${ctx.base}/signin">sign in</a> and open it again.</p>`;
  return layout(
    ctx,
    'Not found',
    html`<h1>Not found</h1>
      <p>This page does not exist, or it is not shared with you.</p>
      ${signIn}`,
  );
}

export function errorPage(ctx: PageContext, message: string): Html {
  return layout(
    ctx,
    'Something went wrong',
    html`<h1>Something went wrong</h1>
      <p>${message}</p>`,
  );
}

export function signInPage(
  ctx: PageContext,
  opts: { csrf: string; next: string; error?: string; oidc: boolean },
): Html {
  const b = ctx.base;
  const error = opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : '';
  const oidc = opts.oidc
    ? html`<p>
          <a class="button" href="${b}/signin/oidc?next=${encodeURIComponent(opts.next)}"
            >Sign in with your organization</a
          >
        </p>
        <p class="muted">or with one of your API keys:</p>`
    : '';
  return layout(
    ctx,
    'Sign in',
    html`<h1>Sign in</h1>
      ${error}${oidc}
      <form method="post" action="${b}/signin" class="signin">
        <input type="hidden" name="csrf" value="${opts.csrf}" />
        <input type="hidden" name="next" value="${opts.next}" />
        <label for="api_key">API key</label>
        <input id="api_key" name="api_key" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">Create a key with <code>meeting-intel apikey create --email you@example.com</code>.</p>`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Meetings
// ---------------------------------------------------------------------------------------------------

const meetingHref = (base: string, id: string) => `${base}/meetings/${encodeURIComponent(id)}`;

/** A moment's text with its matched words (marked `**word**` by core) as <mark>, everything escaped. */
function markedText(text: string): Html {
  const parts = text.split('**');
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : html`${part}`))}`;
}

function momentItems(base: string, meetingId: string, moments: MomentRecord[]): Html {
  if (!moments.length) return html``;
  return html`<ol class="moments">
    ${moments.map(
      (mo) =>
        html`<li>
          <a class="time" href="${meetingHref(base, meetingId)}#t=${Math.floor(mo.start_time)}"
            >${clock(mo.start_time)}</a
          >
          <span class="speaker">${mo.speaker_name}</span> ${markedText(mo.text)}
        </li>`,
    )}
  </ol>`;
}

/** The meetings page's two boxes: a question in one's own words, and the search grammar. */
export function searchForms(base: string, q: string, ask: string): Html {
  return html`<form method="get" action="${base}/meetings" role="search" class="search">
      <label for="ask">Ask</label>
      <input id="ask" name="ask" type="search" value="${ask}" placeholder="What did we decide about the pilot?" />
      <button type="submit">Ask</button>
    </form>
    <form method="get" action="${base}/meetings" role="search" class="search">
      <label for="q">Search</label>
      <input id="q" name="q" type="search" value="${q}" placeholder="keyword:budget from:2026-01-01 scope:sentences" />
      <button type="submit">Search</button>
    </form>`;
}

export function meetingsPage(
  ctx: PageContext,
  opts: { q: string; list: MeetingList; skip: number; error?: string },
): Html {
  const b = ctx.base;
  const moments = opts.list.moments ?? [];
  const rows = opts.list.meetings.map(
    (m) =>
      html`<li>
        <a href="${meetingHref(b, m.id)}" class="title">${m.title}</a>
        <span class="meta"
          ><time datetime="${m.dateString}">${m.dateString.slice(0, 10)}</time> · ${m.duration}
          min${m.is_live ? html` · <span class="badge">live</span>` : ''}</span
        >
        ${m.summary ? html`<p class="summary">${m.summary}</p>` : ''}
        ${momentItems(
          b,
          m.id,
          moments.filter((mo) => mo.meeting_id === m.id),
        )}
      </li>`,
  );
  const qs = (skip: number) => `?${new URLSearchParams({ ...(opts.q ? { q: opts.q } : {}), skip: String(skip) })}`;
  const prev =
    opts.skip > 0
      ? html`<a href="${qs(Math.max(0, opts.skip - opts.list.meetings.length || 0))}" rel="prev">Newer</a>`
      : '';
  const next =
    opts.list.next_skip !== null && opts.list.next_skip !== undefined
      ? html`<a href="${qs(opts.list.next_skip)}" rel="next">Older</a>`
      : '';
  const error = opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : '';
  return layout(
    ctx,
    'Meetings',
    html`<h1>Meetings</h1>
      ${searchForms(b, opts.q, '')} ${error}
      ${
        rows.length
          ? html`<ul class="meetings">
              ${rows}
            </ul>`
          : html`<p>No meetings match.</p>`
      }
      <nav class="pager" aria-label="Pages">${prev} ${next}</nav>`,
  );
}

function speakerChart(analytics: SpeakerAnalyticsRecord[]): Html {
  if (!analytics.length) return html``;
  const rowH = 28;
  const height = analytics.length * rowH + 24;
  const bars = analytics.map((a, i) => {
    const y = 20 + i * rowH;
    const talk = Math.max(0, Math.min(100, a.duration_pct));
    const pos = Math.max(0, a.positive_pct);
    const neu = Math.max(0, a.neutral_pct);
    const neg = Math.max(0, a.negative_pct);
    const total = pos + neu + neg || 1;
    const w = (v: number) => ((v / total) * 30).toFixed(2);
    return html`<g>
      <text x="0" y="${y + 14}" class="label">${a.name}</text>
      <rect x="30%" y="${y}" height="18" width="${(talk * 0.35).toFixed(2)}%" class="talk"
        ><title>${a.name}: ${talk.toFixed(1)}% of the talk time (${clock(a.duration)})</title></rect
      >
      <rect x="68%" y="${y}" height="18" width="${w(pos)}%" class="positive"
        ><title>${a.name}: ${pos.toFixed(0)}% positive</title></rect
      >
      <rect x="${(68 + Number(w(pos))).toFixed(2)}%" y="${y}" height="18" width="${w(neu)}%" class="neutral"
        ><title>${a.name}: ${neu.toFixed(0)}% neutral</title></rect
      >
      <rect
        x="${(68 + Number(w(pos)) + Number(w(neu))).toFixed(2)}%"
        y="${y}"
        height="18"
        width="${w(neg)}%"
        class="negative"
        ><title>${a.name}: ${neg.toFixed(0)}% negative</title></rect
      >
    </g>`;
  });
  const table = analytics.map(
    (a) =>
      html`<tr>
        <th scope="row">${a.name}</th>
        <td>${a.duration_pct.toFixed(1)}%</td>
        <td>${clock(a.duration)}</td>
        <td>${a.positive_pct.toFixed(0)}% / ${a.neutral_pct.toFixed(0)}% / ${a.negative_pct.toFixed(0)}%</td>
      </tr>`,
  );
  return html`<section aria-labelledby="speakers-h">
    <h2 id="speakers-h">Speakers</h2>
    <svg class="chart" role="img" aria-labelledby="chart-title" width="100%" height="${height}">
      <title id="chart-title">Talk time and sentiment per speaker</title>
      <text x="30%" y="12" class="axis">talk time</text>
      <text x="68%" y="12" class="axis">sentiment (positive, neutral, negative)</text>
      ${bars}
    </svg>
    <table class="speakers">
      <caption>
        Talk time and sentiment
      </caption>
      <thead>
        <tr>
          <th scope="col">Speaker</th>
          <th scope="col">Share</th>
          <th scope="col">Talk time</th>
          <th scope="col">Positive / neutral / negative</th>
        </tr>
      </thead>
      <tbody>
        ${table}
      </tbody>
    </table>
  </section>`;
}

function summarySection(m: FullMeeting, items?: ActionItemRecord[], run?: LatestSummaryRun | null): Html {
  const s = m.summary;
  if (!s)
    return html`<section aria-labelledby="summary-h">
      <h2 id="summary-h">Summary</h2>
      <p class="muted">${m.meeting_info.message ?? 'No summary yet.'}</p>
    </section>`;
  const list = (items: unknown) =>
    Array.isArray(items) && items.length
      ? html`<ul>
          ${items.map((x) => html`<li>${typeof x === 'string' ? x : JSON.stringify(x)}</li>`)}
        </ul>`
      : html`<p class="muted">none</p>`;
  return html`<section aria-labelledby="summary-h">
    <h2 id="summary-h">Summary</h2>
    ${notesByline(run)} ${s.meeting_type ? html`<p><span class="badge">${s.meeting_type}</span></p>` : ''}
    ${overviewOf(s)}
    <h3>Action items</h3>
    ${items ? actionItemList(m.id, items) : list(s.action_items)}
    <h3>Keywords</h3>
    ${list(s.keywords)}
    <h3>Topics</h3>
    ${list(s.topics_discussed)}
    <h3>Outline</h3>
    ${outlineOf(s.outline)}
  </section>`;
}

export function sentenceItems(sentences: SentenceRecord[]): Html {
  return html`${sentences.map(
    (s) =>
      html`<li id="s-${s.index}" data-start="${s.start_time}">
        <a class="time" href="#t=${Math.floor(s.start_time)}">${clock(s.start_time)}</a>
        <span class="speaker">${s.speaker_name}</span>
        <p>${s.text}</p>
      </li>`,
  )}`;
}

export function meetingPage(
  ctx: PageContext,
  m: FullMeeting,
  from: number,
  items?: ActionItemRecord[],
  run?: LatestSummaryRun | null,
): Html {
  const b = ctx.base;
  const state =
    m.status === 'processing'
      ? html`<p class="notice" role="status">
          This meeting is still being processed; the transcript and summary appear here when it is done.
        </p>`
      : m.status === 'failed'
        ? html`<p class="error" role="status">
            Processing this meeting failed: ${m.meeting_info.message ?? 'unknown reason'}
          </p>`
        : m.is_live
          ? html`<p class="notice" role="status">
              <span class="badge">live</span> This meeting is in progress; new sentences appear as they are said.
            </p>`
          : '';
  const next =
    m.has_more && m.next_index !== null
      ? html`<a id="more" href="${meetingHref(b, m.id)}?from=${m.next_index}">Later sentences</a>`
      : '';
  const earlier = from > 0 ? html`<a href="${meetingHref(b, m.id)}">From the start</a>` : '';
  return layout(
    ctx,
    m.title,
    html`<h1>${m.title}</h1>
      ${state}
      <dl class="facts">
        <dt>Date</dt>
        <dd><time datetime="${m.dateString}">${m.dateString.slice(0, 16).replace('T', ' ')} UTC</time></dd>
        <dt>Duration</dt>
        <dd>${m.duration} min</dd>
        <dt>Participants</dt>
        <dd>${m.participants || 'none listed'}</dd>
        <dt>Privacy</dt>
        <dd>${m.privacy}</dd>
      </dl>
      ${summarySection(m, items, run)} ${m.status === 'completed' || m.is_live ? downloads(b, m.id) : ''}
      ${speakerChart(m.analytics)}
      <section aria-labelledby="transcript-h">
        <h2 id="transcript-h">Transcript</h2>
        ${earlier}
        <ol
          class="transcript"
          id="transcript"
          data-meeting="${m.id}"
          data-base="${b}"
          data-next="${m.next_index ?? ''}"
          data-live="${m.is_live ? 'true' : 'false'}"
          data-count="${from + m.sentences.length}"
        >
          ${sentenceItems(m.sentences)}
        </ol>
        ${next}
      </section>`,
  );
}

export function soundbitePage(ctx: PageContext, sb: OpenedSoundbite): Html {
  const moment = sb.meeting_url ? html`<p><a href="${sb.meeting_url}">Open this moment in the meeting</a></p>` : '';
  return layout(
    ctx,
    sb.name,
    html`<h1>${sb.name}</h1>
      <p class="meta">From “${sb.meeting_title}”, ${clock(sb.start_time)}–${clock(sb.end_time)}</p>
      ${sb.summary ? html`<p class="overview">${sb.summary}</p>` : ''}
      <ol class="transcript">
        ${sentenceItems(sb.sentences)}
      </ol>
      ${moment}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Action items and downloads
// ---------------------------------------------------------------------------------------------------

const EXPORT_LABELS: Record<(typeof EXPORT_FORMATS)[number], string> = {
  vtt: 'Subtitles (WebVTT)',
  srt: 'Subtitles (SRT)',
  txt: 'Transcript (text)',
  md: 'Notes (Markdown)',
  docx: 'Notes (Word)',
};

function downloads(base: string, meetingId: string): Html {
  return html`<section aria-labelledby="downloads-h">
    <h2 id="downloads-h">Download</h2>
    <ul class="downloads">
      ${EXPORT_FORMATS.map((f) => html`<li><a href="${meetingHref(base, meetingId)}/export.${f}" download>${EXPORT_LABELS[f]}</a></li>`)}
    </ul>
  </section>`;
}

/** One item: its status, words, owner and due date, and the moment it was said. */
function actionItemEntry(a: ActionItemRecord, href: string, withMeeting: boolean): Html {
  const who = [a.owner_name ?? a.owner_email, a.due_date ? `due ${a.due_date}` : a.due ? `due ${a.due}` : null]
    .filter(Boolean)
    .join(' · ');
  return html`<li class="action-item" data-status="${a.status}">
    <span class="badge">${a.status}</span> ${a.text} ${who ? html`<span class="meta">${who}</span>` : ''}
    <a class="time" href="${href}#t=${Math.floor(a.start_time)}"
      >${withMeeting ? html`${a.meeting_title}, ` : ''}${clock(a.start_time)}</a
    >
  </li>`;
}

function actionItemList(meetingId: string, items: ActionItemRecord[]): Html {
  if (!items.length) return html`<p class="muted">none</p>`;
  return html`<ul class="action-items">
    ${items.map((a) => actionItemEntry(a, '', false))}
  </ul>`;
}

export function actionItemsPage(ctx: PageContext, page: ActionItemPage, nextHref: string | null): Html {
  const b = ctx.base;
  const rows = page.action_items.map((a) => actionItemEntry(a, meetingHref(b, a.meeting_id), true));
  return layout(
    ctx,
    'Action items',
    html`<h1>Your open action items</h1>
      ${
        rows.length
          ? html`<ul class="action-items">
              ${rows}
            </ul>`
          : html`<p>Nothing open for you.</p>`
      }
      <nav class="pager" aria-label="Pages">${nextHref ? html`<a href="${nextHref}" rel="next">More</a>` : ''}</nav>`,
  );
}
