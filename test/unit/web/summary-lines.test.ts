import { outlineOf, overviewOf } from '../../../services/web/summary-lines';
import type { FullMeeting } from '../../../services/core/meetings';

type Summary = NonNullable<FullMeeting['summary']>;

const summary = (over: Partial<Summary>): Summary => ({
  keywords: [],
  action_items: [],
  overview: 'Planning meeting with Ada, 5 min.\nNext: Ben: send the deck by Friday.',
  overview_lines: [],
  short_summary: '',
  topics_discussed: [],
  meeting_type: 'planning',
  outline: [],
  notes: {},
  ...over,
});

const render = async (h: unknown) => String(await h);

describe("the meeting page's notes", () => {
  it('shows each overview line with its time, linking to its moment on the page', async () => {
    const out = await render(
      overviewOf(
        summary({
          overview_lines: [
            { text: 'Planning meeting with Ada, 5 min.', index: 0, start_time: 0, link: 'x#t=0' },
            { text: 'Next: Ben: send the deck by Friday.', index: 7, start_time: 64.8, link: 'x#t=64' },
          ],
        }),
      ),
    );
    expect(out).toContain('<a class="time" href="#t=0">0:00</a> Planning meeting with Ada, 5 min.');
    expect(out).toContain('<a class="time" href="#t=64">1:04</a> Next: Ben: send the deck by Friday.');
  });

  it('shows a summary stored before citations as its overview text', async () => {
    expect(await render(overviewOf(summary({})))).toBe(
      '<p class="overview">Planning meeting with Ada, 5 min.\nNext: Ben: send the deck by Friday.</p>',
    );
  });

  it('escapes what the lines say and links each outline section to its moment', async () => {
    const out = await render(
      overviewOf(summary({ overview_lines: [{ text: '<b>Decided</b>', index: 2, start_time: 5, link: 'x#t=5' }] })),
    );
    expect(out).toContain('&lt;b&gt;Decided&lt;/b&gt;');
    const outline = await render(outlineOf([{ title: 'Pricing', summary: 'We agreed.', index: 3, start_time: 125 }]));
    expect(outline).toContain('<a class="time" href="#t=125">2:05</a> <strong>Pricing</strong>: We agreed.');
  });
});
