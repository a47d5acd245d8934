/**
 * The meeting page's notes with their moments: the overview line by line and the outline's sections,
 * each starting with its time as a link to that point of the page (`#t=`), as a sentence's time does.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { FullMeeting } from '../core/meetings';
import type { LatestSummaryRun } from '../core/summaries';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** mm:ss, or h:mm:ss from an hour on: how a person reads a moment of a meeting. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** A cited line's moment: its start as a link to that point of this page, like a sentence's time. */
function momentOf(x: unknown): { start_time: number } | null {
  const r = x && typeof x === 'object' ? (x as { start_time?: unknown; index?: unknown }) : {};
  return typeof r.start_time === 'number' && typeof r.index === 'number' ? { start_time: r.start_time } : null;
}

const timeLink = (at: { start_time: number }) =>
  html`<a class="time" href="#t=${Math.floor(at.start_time)}">${clock(at.start_time)}</a> `;

/** The overview line by line, each linking to its moment (the same lines the meeting.summarized webhook sends). */
export function overviewOf(s: NonNullable<FullMeeting['summary']>): Html | string {
  const lines = s.overview_lines
    .map((l) => ({ l, at: momentOf(l) }))
    .filter((x): x is { l: { text: string }; at: { start_time: number } } => x.at !== null);
  if (!lines.length) return s.overview ? html`<p class="overview">${s.overview}</p>` : '';
  return html`<ul class="overview">
    ${lines.map(({ l, at }) => html`<li>${timeLink(at)}${String(l.text)}</li>`)}
  </ul>`;
}

export function outlineOf(outline: unknown[]): Html {
  if (!outline.length) return html`<p class="muted">none</p>`;
  return html`<ul>
    ${outline.map((o) => {
      const r = o && typeof o === 'object' ? (o as { title?: unknown; summary?: unknown }) : {};
      const at = momentOf(o);
      const title = typeof r.title === 'string' ? r.title : JSON.stringify(o);
      return html`<li>
        ${at ? timeLink(at) : ''}<strong>${title}</strong>${typeof r.summary === 'string' && r.summary ? html`: ${r.summary}` : ''}
      </li>`;
    })}
  </ul>`;
}

/**
 * Who wrote the notes and when: the chat model (and which fields are the built-in summarizer's), or
 * the built-in summarizer (and why not the model, where one was asked and failed).
 */
export function notesByline(run: LatestSummaryRun | null | undefined): Html | string {
  if (!run) return '';
  const when = html`<time datetime="${run.created_at.toISOString()}"
    >${run.created_at.toISOString().slice(0, 16).replace('T', ' ')} UTC</time
  >`;
  const how = run.trigger === 'resummary' ? 'written again' : 'written';
  if (run.source === 'llm')
    return html`<p class="muted notes-by">
      Notes ${how} by the chat model <code>${run.model ?? 'unnamed'}</code>,
      ${when}${
        run.fallback_fields.length
          ? html`; the built-in summarizer's for ${run.fallback_fields.join(', ').replace(/_/g, ' ')}`
          : ''
      }.
    </p>`;
  return html`<p class="muted notes-by">
    Notes ${how} by the built-in summarizer,
    ${when}${
      run.model
        ? html`; the chat model <code>${run.model}</code> gave none usable${run.error ? html` (${run.error})` : ''}`
        : ''
    }.
  </p>`;
}
