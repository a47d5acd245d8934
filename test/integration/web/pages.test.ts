/**
 * The meeting and soundbite pages in a real browser: Debian's chromium driven by playwright-core
 * against the mcp role (which serves the pages) on a real port, over a real PostgreSQL.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { createSoundbite } from '../../../services/core/soundbites';
import { appendLiveSentences } from '../../../services/core/live';
import { revokeApiKey } from '../../../services/core/people';
import { browserPath, CHROMIUM_ARGS } from '../../support/browser';
import { testEmbedder } from '../../support/embedder';
import { embedMeeting } from '../../../services/core/passages';

// Evaluated through the DevTools protocol: the pages' CSP rightly refuses an injected inline script.
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** Screenshots for docs/pages.md: written when SCREENSHOTS=1 (`SCREENSHOTS=1 npx jest test/integration/web`). */
const SHOTS = process.env.SCREENSHOTS === '1' ? join(__dirname, '../../../docs/screenshots') : undefined;

describe('meeting and soundbite pages', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let base: string;
  let browser: Browser;
  let olivia: TestUser;
  let pat: TestUser;
  let tom: TestUser;
  let outsider: TestUser;
  let roadmap: { id: string };
  let secret: { id: string };
  let live: { id: string };
  let clips: Record<'public' | 'team' | 'participants', string>;

  const sentences = Array.from({ length: 120 }, (_, i) => ({
    speaker: i % 3 === 0 ? 'Olivia' : i % 3 === 1 ? 'Pat' : 'Guest <b>',
    text:
      i === 77
        ? 'We decided the budget is 40k for the launch.'
        : `Point number ${i} about the roadmap & <script>alert(1)</script> plans.`,
    start: i * 10,
    end: i * 10 + 8,
  }));

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    const other = await makeTeam(t.db);
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    tom = await makeUser(t.db, team, { name: 'Tom' });
    outsider = await makeUser(t.db, other, { name: 'Otto' });
    roadmap = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Roadmap <review>',
      participants: [{ email: pat.email, name: 'Pat' }],
      sentences,
      summary: {
        overview: 'The team agreed the launch budget.',
        keywords: ['budget', 'launch'],
        action_items: ['Olivia sends the plan'],
        meeting_type: 'planning',
      },
    });
    await t.db('speaker_analytics').insert(
      ['Olivia', 'Pat'].map((name, i) => ({
        meeting_id: roadmap.id,
        speaker_id: i,
        name,
        duration: 400 - i * 100,
        word_count: 900,
        longest_monologue: 40,
        monologues_count: 3,
        filler_words: 2,
        questions: 1,
        duration_pct: i === 0 ? 57.1 : 42.9,
        words_per_minute: 130,
        positive_pct: 40,
        neutral_pct: 50,
        negative_pct: 10,
      })),
    );
    secret = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Salary talk',
      privacy: 'owner',
      sentences: [{ speaker: 'Olivia', text: 'Confidential numbers follow.', start: 0, end: 3 }],
    });
    live = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Standup now',
      isLive: true,
      liveState: 'active',
      sentences: [{ speaker: 'Olivia', text: 'Good morning.', start: 0, end: 2 }],
    });
    const clip = async (privacies: string[]) =>
      (
        await createSoundbite(t.db, mcp.config, olivia.principal, {
          transcriptId: roadmap.id,
          startTime: 770,
          endTime: 790,
          name: `Budget decision (${privacies[0]})`,
          privacies,
        })
      ).id;
    const embedder = await testEmbedder();
    for (const m of [roadmap, secret]) await embedMeeting(t.db, embedder, m.id);
    mcp = await startMcp(t.db, {}, { embedder });
    base = mcp.url.replace(/\/mcp$/, '');
    clips = { public: await clip(['public']), team: await clip(['team']), participants: await clip(['participants']) };
    browser = await chromium.launch({ executablePath: browserPath(), args: CHROMIUM_ARGS });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await t?.drop();
  });

  async function signedIn(user: TestUser): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    await page.goto('/signin');
    await page.fill('#api_key', user.key);
    await Promise.all([page.waitForURL(/\/meetings/), page.click('form.signin button')]);
    return { context, page };
  }

  async function noSeriousViolations(page: Page): Promise<void> {
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const r = await (
        globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
      ).axe.run();
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
    expect(violations).toEqual([]);
  }

  it('opens a transcript_url from a real svc_get_transcripts answer: summary, speakers, sentences; #t= scrolls to the moment', async () => {
    const answer = await mcp.call(olivia.key, 'svc_get_transcripts', { format: 'json', keyword: 'roadmap' });
    const link: string = answer.data.meetings.find((m: { id: string }) => m.id === roadmap.id).transcript_url;
    expect(link).toBe(`${mcp.config.publicBaseUrl}/meetings/${roadmap.id}`);
    const { context, page } = await signedIn(olivia);
    await page.goto(`${base}${new URL(link).pathname}`);
    expect(await page.locator('h1').textContent()).toBe('Roadmap <review>');
    expect(await page.locator('.overview').textContent()).toContain('launch budget');
    expect(await page.locator('#s-1 .speaker').textContent()).toBe('Pat');
    expect(await page.locator('#s-2 .speaker').textContent()).toBe('Guest <b>');
    // What people wrote is shown as text, never run.
    expect(await page.locator('#s-0 p').textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('svg.chart rect.talk').count()).toBe(2);
    await noSeriousViolations(page);
    if (SHOTS)
      await page.screenshot({
        path: join(SHOTS, 'meeting.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: 1700 },
      });

    await page.goto(`${base}/meetings/${roadmap.id}#t=775`);
    await page.waitForSelector('#s-77.current');
    const inView = await page.locator('#s-77').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
    });
    expect(inView).toBe(true);
    expect(await page.locator('#s-77 p').textContent()).toBe('We decided the budget is 40k for the launch.');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'meeting-moment.png') });
    await context.close();
  });

  it('says who wrote the notes and when: the latest summary run, the model by its name', async () => {
    const { team_id } = await t.db('meetings').where({ id: roadmap.id }).first('team_id');
    const run = (id: string, at: string, extra: object) => ({
      id,
      meeting_id: roadmap.id,
      team_id,
      created_at: at,
      fallback_fields: JSON.stringify([]),
      ...extra,
    });
    await t.db('summary_runs').insert([
      run('run-1', '2026-11-20T09:00:00Z', { trigger: 'transcription', source: 'extractive' }),
      run('run-2', '2026-11-21T10:30:00Z', {
        trigger: 'resummary',
        source: 'llm',
        model: 'qwen<2.5>',
        fallback_fields: JSON.stringify(['topics_discussed']),
      }),
    ]);
    const { context, page } = await signedIn(olivia);
    await page.goto(`${base}/meetings/${roadmap.id}`);
    expect((await page.locator('.notes-by').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      "Notes written again by the chat model qwen<2.5>, 2026-11-21 10:30 UTC; the built-in summarizer's for topics discussed.",
    );
    await page.goto(`${base}/meetings/${secret.id}`);
    expect(await page.locator('h1').textContent()).toBe('Salary talk');
    expect(await page.locator('.notes-by').count()).toBe(0);
    await context.close();
    await t.db('summary_runs').where({ meeting_id: roadmap.id }).delete();
  });

  it("lists the person's meetings newest first and searches with the svc_search grammar", async () => {
    const { context, page } = await signedIn(olivia);
    const titles = await page.locator('ul.meetings .title').allTextContents();
    expect(titles).toEqual(expect.arrayContaining(['Roadmap <review>', 'Salary talk', 'Standup now']));
    await page.fill('#q', 'keyword:"budget is 40k" scope:sentences');
    await Promise.all([page.waitForURL(/q=/), page.click('form.search:has(#q) button')]);
    expect(await page.locator('ul.meetings .title').allTextContents()).toEqual(['Roadmap <review>']);
    // The matching moment, its words marked, linking to that moment of the meeting.
    const moment = page.locator('ol.moments li').first();
    expect(await moment.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['budget']));
    expect(await moment.locator('a.time').getAttribute('href')).toBe(`/meetings/${roadmap.id}#t=770`);
    await noSeriousViolations(page);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'meetings.png') });
    await context.close();
  });

  it('answers a question in the Ask box with the moment, its link and the sentences around it', async () => {
    const { context, page } = await signedIn(olivia);
    await page.fill('#ask', 'How much money is there for the release?');
    await Promise.all([page.waitForURL(/ask=/), page.click('form.search:has(#ask) button')]);
    const first = page.locator('ol.answers li').first();
    expect(await first.locator('a.title').getAttribute('href')).toBe(`/meetings/${roadmap.id}#t=770`);
    expect(await first.locator('a.title').textContent()).toBe('Roadmap <review>, 12:50');
    expect(await first.locator('blockquote p').nth(1).textContent()).toBe(
      'Guest <b> We decided the budget is 40k for the launch.',
    );
    expect(await first.locator('p.context').count()).toBe(2);
    await noSeriousViolations(page);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'answers.png') });
    await context.close();
  });

  it('gives a teammate the not-found page for a meeting they may not read, with nothing of it in the HTML', async () => {
    const { context, page } = await signedIn(tom);
    const res = await page.goto(`${base}/meetings/${secret.id}`);
    expect(res!.status()).toBe(404);
    const body = await page.content();
    expect(body).not.toContain('Salary talk');
    expect(body).not.toContain('Confidential');
    expect(body).not.toContain('Olivia');
    const unknown = await page.goto(`${base}/meetings/01NOSUCHMEETING0000000000`);
    expect(unknown!.status()).toBe(404);
    expect(await page.locator('main').innerHTML()).toBe(
      await (async () => {
        await page.goto(`${base}/meetings/${secret.id}`);
        return page.locator('main').innerHTML();
      })(),
    );
    await noSeriousViolations(page);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'not-found.png') });
    await context.close();
  });

  it('opens a public soundbite signed out, and hides a team-only one behind the not-found page', async () => {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const open = await page.goto(`/soundbites/${clips.public}`);
    expect(open!.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Budget decision (public)');
    expect(await page.locator('ol.transcript').textContent()).toContain('budget is 40k');
    // Signed out, nobody may be sent into the meeting.
    expect(await page.locator('a', { hasText: 'Open this moment' }).count()).toBe(0);
    await noSeriousViolations(page);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'soundbite.png') });

    const hidden = await page.goto(`/soundbites/${clips.team}`);
    expect(hidden!.status()).toBe(404);
    const html = await page.content();
    expect(html).not.toContain('Budget decision');
    expect(html).not.toContain('40k');
    expect(html).not.toContain('Roadmap');
    await context.close();
  });

  it('asks to sign in for a participants-only soundbite, then opens it for a participant only', async () => {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const res = await page.goto(`/soundbites/${clips.participants}`);
    expect(res!.status()).toBe(404);
    await Promise.all([page.waitForURL(/\/signin/), page.click('main a[href$="/signin"]')]);
    await context.close();

    const asPat = await signedIn(pat);
    const opened = await asPat.page.goto(`${base}/soundbites/${clips.participants}`);
    expect(opened!.status()).toBe(200);
    expect(await asPat.page.locator('h1').textContent()).toBe('Budget decision (participants)');
    const moment = await asPat.page.locator('a', { hasText: 'Open this moment' }).getAttribute('href');
    expect(moment).toBe(`${mcp.config.publicBaseUrl}/meetings/${roadmap.id}#t=770`);
    await asPat.context.close();

    const asOutsider = await signedIn(outsider);
    expect((await asOutsider.page.goto(`${base}/soundbites/${clips.participants}`))!.status()).toBe(404);
    expect((await asOutsider.page.goto(`${base}/soundbites/${clips.team}`))!.status()).toBe(404);
    await asOutsider.context.close();
  });

  it('shows a sentence appended to a live meeting while its page is open', async () => {
    const { context, page } = await signedIn(olivia);
    await page.goto(`${base}/meetings/${live.id}`);
    expect(await page.locator('ol.transcript li').count()).toBe(1);
    await appendLiveSentences({ db: t.db, config: mcp.config }, olivia.principal, live.id, [
      { speaker_name: 'Pat', text: 'Yesterday I shipped the importer.', start_time: 3, end_time: 6, chunk_id: 'c-2' },
    ]);
    await page.waitForSelector('#s-1', { timeout: 10_000 });
    expect(await page.locator('#s-1 p').textContent()).toBe('Yesterday I shipped the importer.');
    await noSeriousViolations(page);
    await context.close();
  });

  it('says when a meeting is still being processed, and why one failed', async () => {
    const processing = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Fresh upload',
      status: 'processing',
      sentences: [],
    });
    const failed = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Broken upload',
      status: 'failed',
      sentences: [],
    });
    await t.db('meetings').where({ id: failed.id }).update({ failure_reason: 'url: the server answered 404' });
    const { context, page } = await signedIn(olivia);
    await page.goto(`${base}/meetings/${processing.id}`);
    expect(await page.locator('[role=status]').textContent()).toContain('still being processed');
    await page.goto(`${base}/meetings/${failed.id}`);
    expect(await page.locator('[role=status]').textContent()).toContain('failed');
    expect(await page.locator('[role=status]').textContent()).toContain('404');
    await context.close();
  });

  it('sends no inline script, forbids shared caching, and signs out for good', async () => {
    const { context, page } = await signedIn(olivia);
    const res = await page.goto(`${base}/meetings/${roadmap.id}`);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['cache-control']).toBe('private, no-store');
    expect(await page.locator('script:not([src])').count()).toBe(0);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'mi_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');

    await Promise.all([page.waitForURL(/\/signin/), page.click('header form button')]);
    // The old cookie is worthless now, even if someone kept it.
    const replay = await fetch(`${base}/meetings/${roadmap.id}`, {
      headers: { cookie: `mi_session=${session.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    await context.close();
  });

  it("refuses a form post without the session's CSRF value, and a session whose API key was revoked", async () => {
    const { context, page } = await signedIn(pat);
    const session = (await context.cookies()).find((c) => c.name === 'mi_session')!;
    const forged = await fetch(`${base}/signout`, {
      method: 'POST',
      headers: { cookie: `mi_session=${session.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=wrong',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect((await page.goto(`${base}/meetings`))!.status()).toBe(200);

    await revokeApiKey(t.db, pat.key.split('_')[1]);
    const after = await fetch(`${base}/meetings`, {
      headers: { cookie: `mi_session=${session.value}` },
      redirect: 'manual',
    });
    expect(after.status).toBe(303);
    await context.close();
  });
});
