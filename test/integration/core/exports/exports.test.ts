/**
 * Exports of a meeting (services/core/exports) through the meeting page's download links and the
 * GraphQL field: subtitles read back by parsers (WebVTT by the W3C validator's parser, independent of
 * the writer; SRT by `subtitle`) with cue times equal to the sentences', the Word document read back by mammoth,
 * Markdown holding every sentence; the same visibility and read audit as any read.
 */
import { readFileSync } from 'node:fs';
import mammoth from 'mammoth';
import { parseSync } from 'subtitle';
import { WebVTTParser, type VttNode } from 'webvtt-parser';
import { analyze } from '../../../../services/intelligence/analytics';
import { summarize } from '../../../../services/intelligence/summarize';
import type { Sentence } from '../../../../services/intelligence/types';
import { persistTranscript } from '../../../../services/core/ingest';
import { flushReads } from '../../../../services/core/audit';
import { startSession } from '../../../../services/core/people';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../../support/factory';
import { GraphqlHarness, startGraphql } from '../../../support/graphql';
import { McpHarness, startMcp } from '../../../support/mcp';
import { createTestDatabase, TestDatabase } from '../../../support/testDb';

const LINES: [string, string][] = [
  ['Ada Park', 'Welcome everyone, this is the Q4 review.'],
  ['Tom Berg', 'Revenue is up 12% & churn < 3%, which is *great*.'],
  ['Ada Park', 'Tom, can you send the board deck by Friday?'],
  ['Tom Berg', 'Sure, I will do that.'],
  ['Guest', 'One question: what about [the] #launch_plan?'],
  ['Ada Park', 'We ship it next quarter, no later than the 15th.'],
];
/** Start times with milliseconds, one past an hour: the cues must carry them exactly. */
const STARTS = [0, 4.25, 9.5, 15.125, 3601.004, 3610.5];

function sentencesOf(): Sentence[] {
  const speakers = [...new Set(LINES.map(([s]) => s))];
  return LINES.map(([speaker, text], i) => ({
    index: i,
    speaker_name: speaker,
    speaker_id: speakers.indexOf(speaker),
    text,
    raw_text: text,
    start_time: STARTS[i],
    end_time: STARTS[i] + 3.75,
  }));
}

/** The full table of named character references, for the parser's spec-compliant decoding (its README). */
const ENTITIES = JSON.parse(readFileSync(require.resolve('webvtt-parser/html-entities.json'), 'utf8'));
const ms = (s: number) => Math.round(s * 1000);
const textOf = (nodes: VttNode[]): string =>
  nodes.map((n) => (n.type === 'text' ? (n.value ?? '') : textOf(n.children ?? []))).join('');

describe('exports', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let gql: GraphqlHarness;
  let ada: TestUser;
  let mia: TestUser;
  let meetingId: string;
  let pages: string;
  let cookie: string;
  const sentences = sentencesOf();

  const download = (format: string, as = cookie, id = meetingId) =>
    fetch(`${pages}/meetings/${id}/export.${format}`, { headers: { cookie: `mi_session=${as}` }, redirect: 'manual' });

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db);
    ada = await makeUser(t.db, team, { name: 'Ada Park' });
    await makeUser(t.db, team, { name: 'Tom Berg' });
    mia = await makeUser(t.db, team, { name: 'Mia Chen' });
    meetingId = (
      await makeMeeting(t.db, {
        organizer: ada,
        title: 'Q4 review: numbers & plans',
        date: '2026-11-02T15:00:00Z',
        privacy: 'owner',
        sentences: [],
        status: 'processing',
      })
    ).id;
    const summary = summarize(sentences, {
      meetingDate: '2026-11-02T15:00:00Z',
      participants: [{ name: 'Ada Park' }, { name: 'Tom Berg' }],
    });
    await persistTranscript(t.db, {
      meetingId,
      sentences,
      durationSeconds: 3620,
      analytics: analyze(sentences),
      summary,
    });
    mcp = await startMcp(t.db);
    gql = await startGraphql(t.db);
    pages = mcp.url.replace(/\/mcp$/, '') + new URL(mcp.config.publicBaseUrl).pathname.replace(/\/+$/, '');
    cookie = (await startSession(t.db, ada.principal, { method: 'api_key', apiKeyId: null, ttlMs: 600_000 })).token;
  });
  afterAll(async () => {
    await mcp.close();
    await gql.close();
    await t.drop();
  });

  it('WebVTT: valid to the W3C parser, one cue per sentence at its times, the speaker as the voice', async () => {
    const res = await download('vtt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="Q4-review-numbers-plans-2026-11-02.vtt"',
    );
    const parsed = new WebVTTParser(ENTITIES).parse(await res.text(), 'metadata');
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((c) => [ms(c.startTime), ms(c.endTime)])).toEqual(
      sentences.map((s) => [ms(s.start_time), ms(s.end_time)]),
    );
    expect(parsed.cues.map((c) => c.tree.children.map((n) => [n.name, n.value]))).toEqual(
      sentences.map((s) => [['v', s.speaker_name]]),
    );
    expect(parsed.cues.map((c) => textOf(c.tree.children))).toEqual(sentences.map((s) => s.text));
  });

  it('SRT: one numbered cue per sentence at its times, "Speaker: text"', async () => {
    const res = await download('srt');
    expect(res.headers.get('content-type')).toBe('application/x-subrip; charset=utf-8');
    const text = await res.text();
    expect(text.split('\n\n')[1].split('\n')[0]).toBe('2');
    const cues = parseSync(text).flatMap((n) => (n.type === 'cue' ? [n.data] : []));
    expect(cues.map((c) => [c.start, c.end, c.text])).toEqual(
      sentences.map((s) => [ms(s.start_time), ms(s.end_time), `${s.speaker_name}: ${s.text}`]),
    );
  });

  it('Markdown holds the summary, the action items with their moments, and every sentence with its speaker and time', async () => {
    const md = await (await download('md')).text();
    const plain = md.replace(/\\(.)/g, '$1');
    for (const s of sentences) expect(plain).toContain(`${s.speaker_name}** [`);
    for (const s of sentences) expect(plain).toContain(`: ${s.text}`);
    expect(md).toContain(`**Ada Park** [1:00:10](${mcp.config.publicBaseUrl}/meetings/${meetingId}#t=3610)`);
    expect(md).toMatch(
      /## Action items\n\n- \[ \] Tom, can you send the board deck by Friday\? \(owner Tom Berg, due 2026-11-06\) \[00:09\]\(.*#t=9\)/,
    );
    const txt = await (await download('txt')).text();
    expect(txt.split('\n').filter((l) => l.startsWith('['))).toEqual(
      sentences.map((s) => expect.stringContaining(`] ${s.speaker_name}: ${s.text}`)),
    );
  });

  it('DOCX reads back (mammoth) with the summary, the action items and every sentence', async () => {
    const res = await download('docx');
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(await res.arrayBuffer()) });
    expect(value).toContain('Q4 review: numbers & plans');
    expect(value).toContain('Tom, can you send the board deck by Friday? (owner Tom Berg, due 2026-11-06)');
    for (const s of sentences) expect(value).toContain(`${s.speaker_name} [`);
    for (const s of sentences) expect(value).toContain(s.text);
  });

  it('the meeting page links every download and shows the items with their status', async () => {
    const page = await (
      await fetch(`${pages}/meetings/${meetingId}`, { headers: { cookie: `mi_session=${cookie}` } })
    ).text();
    for (const f of ['vtt', 'srt', 'txt', 'md', 'docx']) expect(page).toContain(`/meetings/${meetingId}/export.${f}`);
    expect(page).toMatch(
      /data-status="open">\s*<span class="badge">open<\/span> Tom, can you send the board deck by Friday\?/,
    );
  });

  it('the GraphQL field answers the same files, docx in base64', async () => {
    const q =
      'query($id: ID!, $f: ExportFormat!) { exportTranscript(id: $id, format: $f) { filename content_type encoding content } }';
    const vtt = (await gql.request(ada.key, q, { id: meetingId, f: 'vtt' })).body.data.exportTranscript;
    expect(vtt).toMatchObject({ encoding: 'utf8', content_type: 'text/vtt; charset=utf-8' });
    expect(vtt.content).toBe(await (await download('vtt')).text());
    const docx = (await gql.request(ada.key, q, { id: meetingId, f: 'docx' })).body.data.exportTranscript;
    expect(docx.encoding).toBe('base64');
    expect((await mammoth.extractRawText({ buffer: Buffer.from(docx.content, 'base64') })).value).toContain(
      sentences[4].text,
    );
  });

  it('refuses a meeting the reader may not read exactly as a missing one, and records each read', async () => {
    const miaCookie = (await startSession(t.db, mia.principal, { method: 'api_key', apiKeyId: null, ttlMs: 600_000 }))
      .token;
    const refused = await download('vtt', miaCookie);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain('Welcome everyone');
    const g = await gql.request(mia.key, 'query($id: ID!) { exportTranscript(id: $id, format: md) { content } }', {
      id: meetingId,
    });
    expect(g.body.errors![0].extensions).toMatchObject({ code: 'object_not_found' });
    expect((await download('pdf')).status).toBe(404);
    await flushReads(t.db);
    const reads = await t.db('read_audit').where({ meeting_id: meetingId }).select('user_id', 'surface');
    expect(reads.filter((r) => r.surface === 'page:/meetings/:id/export').length).toBeGreaterThanOrEqual(5);
    expect(reads.some((r) => r.surface === 'graphql:exportTranscript' && r.user_id === ada.id)).toBe(true);
    expect(reads.some((r) => r.user_id === mia.id)).toBe(false);
  });
});
