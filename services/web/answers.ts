/**
 * The answers page: a question asked in the meetings page's "Ask" box, answered with the moments
 * that answer it (core/meetings/question.ts), each a link to the meeting at that moment with the
 * sentences either side, so a person can check the answer where it was said.
 */
import { html } from 'hono/html';
import type { MeetingList, MomentRecord } from '../core/meetings';
import { clock, layout, searchForms, type PageContext } from './views';

type Html = ReturnType<typeof layout>;

const meetingAt = (base: string, m: MomentRecord) =>
  `${base}/meetings/${encodeURIComponent(m.meeting_id)}#t=${Math.floor(m.start_time)}`;

function answerItem(base: string, m: MomentRecord): Html {
  return html`<li>
    <a class="title" href="${meetingAt(base, m)}">${m.title ?? ''}, ${clock(m.start_time)}</a>
    <blockquote>
      ${m.before ? html`<p class="context">${m.before}</p>` : ''}
      <p><span class="speaker">${m.speaker_name}</span> ${m.text}</p>
      ${m.after ? html`<p class="context">${m.after}</p>` : ''}
    </blockquote>
  </li>`;
}

export function answersPage(ctx: PageContext, ask: string, list: MeetingList): Html {
  const b = ctx.base;
  const moments = list.moments ?? [];
  const note = list.note ? html`<p class="note" role="status">${list.note}</p>` : '';
  return layout(
    ctx,
    'Answers',
    html`<h1>Meetings</h1>
      ${searchForms(b, '', ask)} ${note}
      ${
        moments.length
          ? html`<ol class="answers">
              ${moments.map((m) => answerItem(b, m))}
            </ol>`
          : html`<p>No moment answers this question. Try other words, or search for a keyword.</p>`
      }`,
  );
}
