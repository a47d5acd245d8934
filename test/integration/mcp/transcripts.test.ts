import { countTokens } from 'gpt-tokenizer';
import { createTestDatabase, TestDatabase } from '../../support/testDb';
import { makeMeeting, makeTeam, makeUser, TestUser } from '../../support/factory';
import { McpHarness, startMcp } from '../../support/mcp';
import { authenticateApiKey } from '../../../services/core/people';
import { getTranscript, TRANSCRIPT_TOKENS } from '../../../services/core/meetings';
import { setProgress } from '../../../services/core/ingest';

const SENTENCE_KEYS = ['end_time', 'index', 'raw_text', 'speaker_id', 'speaker_name', 'start_time', 'text'];
const SPEAKER_KEYS = [
  'duration',
  'duration_pct',
  'filler_words',
  'longest_monologue',
  'monologues_count',
  'name',
  'negative_pct',
  'neutral_pct',
  'positive_pct',
  'questions',
  'speaker_id',
  'word_count',
  'words_per_minute',
];
const TRANSCRIPT_KEYS = [
  'analytics',
  'date',
  'dateString',
  'duration',
  'has_more',
  'id',
  'is_live',
  'meeting_analytics',
  'meeting_info',
  'next_index',
  'organizer_email',
  'participants',
  'privacy',
  'sentences',
  'status',
  'title',
  'transcript_url',
];
const SUMMARY_KEYS = [
  'action_items',
  'keywords',
  'meeting_type',
  'notes',
  'outline',
  'overview',
  'overview_lines',
  'short_summary',
  'topics_discussed',
];

const TOPICS = [
  'the quarterly budget',
  'hiring for the platform team',
  'the release checklist',
  'customer escalations',
  'the migration plan',
];

/** A long, varied meeting: n sentences by three speakers, about 4 seconds each. */
function longSentences(n: number, names: string[]) {
  return Array.from({ length: n }, (_, i) => ({
    speaker: names[i % names.length],
    text: `Point ${i}: I think we should revisit ${TOPICS[i % TOPICS.length]} before Friday, and ${i % 7 === 0 ? 'who owns the follow-up?' : 'write down the decision.'}`,
    start: i * 4 + 0.25,
    end: i * 4 + 3.75,
  }));
}

describe('transcript tools: svc_get_transcript, svc_fetch, svc_get_summary', () => {
  let t: TestDatabase;
  let mcp: McpHarness;
  let admin: TestUser;
  let olivia: TestUser;
  let pat: TestUser;
  let tom: TestUser;
  let outsider: TestUser;
  let noFetch: TestUser;
  let main: { id: string };
  let long: { id: string };
  let terse: { id: string };

  beforeAll(async () => {
    t = await createTestDatabase();
    const team = await makeTeam(t.db, { flags: ['search', 'fetch'] });
    const other = await makeTeam(t.db, { flags: ['fetch'] });
    const plain = await makeTeam(t.db, { flags: [] });
    admin = await makeUser(t.db, team, { role: 'admin', name: 'Ada Admin' });
    olivia = await makeUser(t.db, team, { name: 'Olivia' });
    pat = await makeUser(t.db, team, { name: 'Pat' });
    tom = await makeUser(t.db, team, { name: 'Tom' });
    outsider = await makeUser(t.db, other, { role: 'super_admin' });
    noFetch = await makeUser(t.db, plain);

    main = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Roadmap review',
      participants: [{ email: pat.email, name: 'Pat' }],
      sentences: [
        { speaker: 'Olivia', text: 'Welcome everyone, let us review the roadmap.', start: 0, end: 4 },
        { speaker: 'Pat', text: 'Sounds good. What is the budget?', start: 4.5, end: 7.25 },
        { speaker: 'Olivia', text: 'Forty thousand, "roughly", for Q3.', start: 65, end: 70 },
      ],
      summary: {
        overview: 'The team reviewed the roadmap and the budget.',
        keywords: ['roadmap', 'budget'],
        action_items: ['Pat: send the budget sheet'],
      },
    });
    await t.db('speaker_analytics').insert([
      {
        meeting_id: main.id,
        speaker_id: 0,
        name: 'Olivia',
        duration: 9,
        word_count: 13,
        words_per_minute: 86.7,
        filler_words: 0,
        questions: 0,
        monologues_count: 0,
        longest_monologue: 5,
        duration_pct: 76.6,
        positive_pct: 50,
        neutral_pct: 50,
        negative_pct: 0,
      },
      {
        meeting_id: main.id,
        speaker_id: 1,
        name: 'Pat',
        duration: 2.75,
        word_count: 6,
        words_per_minute: 130.9,
        filler_words: 0,
        questions: 1,
        monologues_count: 0,
        longest_monologue: 2.75,
        duration_pct: 23.4,
        positive_pct: 100,
        neutral_pct: 0,
        negative_pct: 0,
      },
    ]);
    await t.db('meeting_analytics').insert({
      meeting_id: main.id,
      duration_seconds: 70,
      silence_seconds: 58.25,
      talk_listen_ratio: 3.27,
      positive_pct: 66.67,
      neutral_pct: 33.33,
      negative_pct: 0,
    });
    long = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'All-hands marathon',
      sentences: longSentences(2000, ['Olivia', 'Pat', 'Tom']),
    });
    terse = await makeMeeting(t.db, {
      organizer: olivia,
      title: 'Quick-fire review',
      sentences: Array.from({ length: 2000 }, (_, i) => ({
        speaker: i % 2 ? 'Pat' : 'Olivia',
        text: i % 3 ? 'Yes.' : 'OK, "done".',
        start: 3600 + i * 1.237,
        end: 3600 + i * 1.237 + 0.981,
      })),
    });
    mcp = await startMcp(t.db);
  });
  afterAll(async () => {
    await mcp.close();
    await t.drop();
  });

  describe('svc_get_transcript', () => {
    it('answers metadata, sentences and per-speaker analytics, and no summary; TOON decodes to the JSON result', async () => {
      const json = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id, format: 'json' });
      const toon = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id });
      expect(json.isError).toBe(false);
      expect(toon.isError).toBe(false);
      expect(toon.data).toEqual(json.data);

      const d = json.data;
      expect(Object.keys(d).sort()).toEqual(TRANSCRIPT_KEYS);
      expect(d).toMatchObject({
        id: main.id,
        title: 'Roadmap review',
        dateString: '2026-11-02T15:00:00.000Z',
        duration: 1.2,
        organizer_email: olivia.email,
        privacy: 'teammatesandparticipants',
        is_live: false,
        status: 'completed',
        meeting_info: { summary_status: 'processed' },
        has_more: false,
        next_index: null,
        transcript_url: `${mcp.config.publicBaseUrl}/meetings/${main.id}`,
      });
      expect(d.participants.split(', ').sort()).toEqual([olivia.email, pat.email].sort());
      expect(d.sentences).toHaveLength(3);
      for (const s of d.sentences) expect(Object.keys(s).sort()).toEqual(SENTENCE_KEYS);
      expect(d.sentences[1]).toEqual({
        index: 1,
        speaker_name: 'Pat',
        speaker_id: 1,
        text: 'Sounds good. What is the budget?',
        raw_text: null,
        start_time: 4.5,
        end_time: 7.25,
      });
      expect(d.analytics).toHaveLength(2);
      for (const a of d.analytics) expect(Object.keys(a).sort()).toEqual(SPEAKER_KEYS);
      expect(d.analytics[1]).toMatchObject({ name: 'Pat', questions: 1, words_per_minute: 130.9, positive_pct: 100 });
      expect(d.meeting_analytics).toEqual({
        duration_seconds: 70,
        silence_seconds: 58.25,
        talk_listen_ratio: 3.27,
        positive_pct: 66.67,
        neutral_pct: 33.33,
        negative_pct: 0,
      });
      // No summary content in a transcript answer.
      expect(json.text).not.toMatch(/overview|keywords|action_items|send the budget sheet/);
    });

    it('renders sentences and speakers as tab-separated TOON tables (one row each), so commas in speech need no quotes', async () => {
      const toon = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id });
      expect(toon.text).toMatch(
        /^sentences\[3\t\]\{index\tspeaker_name\tspeaker_id\ttext\traw_text\tstart_time\tend_time\}:$/m,
      );
      expect(toon.text).toMatch(/^analytics\[2\t\]\{speaker_id\tname\tduration\tword_count\t/m);
      expect(toon.text).toContain('0\tOlivia\t0\tWelcome everyone, let us review the roadmap.\tnull\t0\t4');
      expect(toon.text).toContain('1\tPat\t1\tSounds good. What is the budget?\tnull\t4.5\t7.25');
      expect(toon.text).toContain('2\tOlivia\t0\t"Forty thousand, \\"roughly\\", for Q3."\tnull');
    });

    it("sends raw_text only where clean-up changed the words; the default read (GraphQL's) keeps every raw_text", async () => {
      const m = await makeMeeting(t.db, {
        organizer: olivia,
        title: 'Cleaned',
        sentences: [
          { speaker: 'Olivia', text: 'We ship on Friday.', start: 0, end: 2 },
          { speaker: 'Pat', text: 'Agreed.', start: 2, end: 3 },
        ],
      });
      await t.db('sentences').where({ meeting_id: m.id, idx: 0 }).update({ raw_text: 'Um, we, uh, ship on Friday.' });
      for (const tool of ['svc_get_transcript', 'svc_fetch']) {
        const r = await mcp.call(
          olivia.key,
          tool,
          tool === 'svc_fetch' ? { id: m.id, format: 'json' } : { transcriptId: m.id, format: 'json' },
        );
        expect(r.data.sentences.map((s: { raw_text: string | null }) => s.raw_text)).toEqual([
          'Um, we, uh, ship on Friday.',
          null,
        ]);
      }
      const page = await getTranscript(t.db, mcp.config, await authenticateApiKey(t.db, olivia.key), m.id);
      expect(page.sentences.map((s) => s.raw_text)).toEqual(['Um, we, uh, ship on Friday.', 'Agreed.']);
    });

    it('renders text as a header line then one "[mm:ss - mm:ss] Speaker: text" line per sentence', async () => {
      const res = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id, format: 'text' });
      expect(res.isError).toBe(false);
      const lines = res.text.split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).toContain('Roadmap review');
      expect(lines[0]).toContain(main.id);
      expect(lines.slice(1)).toEqual([
        '[00:00 - 00:04] Olivia: Welcome everyone, let us review the roadmap.',
        '[00:04 - 00:07] Pat: Sounds good. What is the budget?',
        '[01:05 - 01:10] Olivia: Forty thousand, "roughly", for Q3.',
      ]);
    });

    it('ends a text page that has more with the fromIndex to read on', async () => {
      const res = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: long.id,
        format: 'text',
        maxTokens: 500,
      });
      const lines = res.text.split('\n');
      const json = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: long.id,
        format: 'json',
        maxTokens: 500,
      });
      expect(lines).toHaveLength(1 + json.data.sentences.length + 1);
      expect(lines[lines.length - 1]).toBe(
        `(more sentences follow: call svc_get_transcript with transcriptId "${long.id}" and fromIndex ${json.data.next_index})`,
      );
    });

    it.each([
      ['long sentences', () => long.id, 2000],
      ['short sentences hours in', () => terse.id, 1000],
    ])(
      'pages a 2,000-sentence transcript (%s) via next_index with no gap or overlap, each page under its budget',
      async (_label, idOf, maxTokens) => {
        const id = idOf();
        const seen: number[] = [];
        let fromIndex: number | undefined = 0;
        let pages = 0;
        while (fromIndex !== undefined) {
          const res = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: id, fromIndex, maxTokens });
          expect(res.isError).toBe(false);
          expect(countTokens(res.text)).toBeLessThanOrEqual(maxTokens);
          const page = res.data;
          expect(page.sentences.length).toBeGreaterThan(0);
          expect(page.sentences[0].index).toBe(fromIndex);
          seen.push(...page.sentences.map((s: { index: number }) => s.index));
          if (page.has_more) {
            expect(page.next_index).toBe(page.sentences[page.sentences.length - 1].index + 1);
            fromIndex = page.next_index;
          } else {
            expect(page.next_index).toBeNull();
            fromIndex = undefined;
          }
          pages += 1;
          expect(pages).toBeLessThan(200);
        }
        expect(seen).toEqual(Array.from({ length: 2000 }, (_, i) => i));
        // The budget is used, not wasted: pages are not tiny.
        expect(pages).toBeLessThan(2000 / 10);
      },
    );

    it('caps a page at the server default budget when maxTokens is omitted', async () => {
      const res = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: long.id });
      expect(res.data.has_more).toBe(true);
      expect(res.data.next_index).toBe(res.data.sentences.length);
      const tokens = countTokens(res.text);
      expect(tokens).toBeLessThanOrEqual(mcp.config.mcpMaxTranscriptTokens);
      expect(tokens).toBeGreaterThan(mcp.config.mcpMaxTranscriptTokens / 2);
    });

    it(`accepts maxTokens 500 and ${TRANSCRIPT_TOKENS.max} (the answer, in every format, under clients' 25,000-token cap and within the budget), refuses 499 and ${TRANSCRIPT_TOKENS.max + 1}`, async () => {
      expect(TRANSCRIPT_TOKENS.max).toBeLessThanOrEqual(24_000);
      const small = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: long.id,
        maxTokens: 500,
        format: 'json',
      });
      expect(small.isError).toBe(false);
      expect(small.data.has_more).toBe(true);
      for (const format of ['toon', 'json', 'text']) {
        const big = await mcp.call(olivia.key, 'svc_get_transcript', {
          transcriptId: long.id,
          maxTokens: TRANSCRIPT_TOKENS.max,
          format,
        });
        expect(big.isError).toBe(false);
        const tokens = countTokens(big.text);
        // Pages are sized for the JSON form (the structuredContent), so every format keeps the budget.
        expect(tokens).toBeLessThanOrEqual(TRANSCRIPT_TOKENS.max);
        expect(tokens).toBeGreaterThan(TRANSCRIPT_TOKENS.max * (format === 'json' ? 0.6 : 0.4));
        if (format === 'json') {
          expect(big.data.has_more).toBe(true);
          expect(big.data.sentences.length).toBeGreaterThan(small.data.sentences.length);
        }
      }
      for (const maxTokens of [499, TRANSCRIPT_TOKENS.max + 1, 100000]) {
        const bad = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: long.id, maxTokens });
        expect(bad.isError).toBe(true);
        expect(bad.data.error).toMatchObject({ code: 'invalid_arguments', field: 'maxTokens' });
      }
      // The description tells a model the bound.
      const { tools } = await (await mcp.client(olivia.key)).listTools();
      const tool = tools.find((t) => t.name === 'svc_get_transcript')!;
      expect((tool.inputSchema.properties as Record<string, { maximum: number }>).maxTokens.maximum).toBe(
        TRANSCRIPT_TOKENS.max,
      );
      expect(tool.description).toContain(TRANSCRIPT_TOKENS.max.toLocaleString('en-US'));
      // A fraction is refused naming the field (its code is the server's mapping of zod's integer check).
      const fraction = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: long.id, maxTokens: 1500.5 });
      expect(fraction.isError).toBe(true);
      expect(fraction.data.error.field).toBe('maxTokens');
    });

    it('accepts fromIndex 0 and past the end, refuses -1 and fractions', async () => {
      const zero = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: main.id,
        fromIndex: 0,
        format: 'json',
      });
      expect(zero.data.sentences).toHaveLength(3);
      const tail = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: main.id,
        fromIndex: 2,
        format: 'json',
      });
      expect(tail.data.sentences.map((s: { index: number }) => s.index)).toEqual([2]);
      const past = await mcp.call(olivia.key, 'svc_get_transcript', {
        transcriptId: main.id,
        fromIndex: 3,
        format: 'json',
      });
      expect(past.data).toMatchObject({ sentences: [], has_more: false, next_index: null });
      const negative = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id, fromIndex: -1 });
      expect(negative.data.error).toMatchObject({ code: 'invalid_arguments', field: 'fromIndex' });
      const fraction = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: main.id, fromIndex: 0.5 });
      expect(fraction.isError).toBe(true);
      expect(fraction.data.error.field).toBe('fromIndex');
    });

    it('returns a point-in-time snapshot of a live meeting, with is_live true', async () => {
      const live = await makeMeeting(t.db, {
        organizer: olivia,
        title: 'Live standup',
        isLive: true,
        liveState: 'active',
        sentences: [
          { speaker: 'Olivia', text: 'Morning all.', start: 0, end: 1.5 },
          { speaker: 'Tom', text: 'Yesterday I fixed the login bug.', start: 2, end: 5 },
        ],
      });
      const json = await mcp.call(tom.key, 'svc_get_transcript', { transcriptId: live.id, format: 'json' });
      const toon = await mcp.call(tom.key, 'svc_get_transcript', { transcriptId: live.id });
      expect(toon.data).toEqual(json.data);
      expect(json.data).toMatchObject({
        is_live: true,
        status: 'live',
        has_more: false,
        meeting_info: { summary_status: 'pending' },
      });
      expect(json.data.meeting_info.message).toMatch(/snapshot/);
      expect(json.data.sentences.map((s: { text: string }) => s.text)).toEqual([
        'Morning all.',
        'Yesterday I fixed the login bug.',
      ]);
      const text = await mcp.call(tom.key, 'svc_get_transcript', { transcriptId: live.id, format: 'text' });
      expect(text.text.split('\n')[0]).toMatch(/LIVE/);

      // A sentence appended after the snapshot shows up in the next read, not retroactively in the old one.
      await t.db('sentences').insert({
        meeting_id: live.id,
        idx: 2,
        speaker_name: 'Olivia',
        speaker_id: 0,
        text: 'Thanks Tom.',
        raw_text: 'Thanks Tom.',
        start_time: 5.5,
        end_time: 6.5,
      });
      const again = await mcp.call(tom.key, 'svc_get_transcript', { transcriptId: live.id, format: 'json' });
      expect(again.data.sentences).toHaveLength(3);
      expect(json.data.sentences).toHaveLength(2);
    });

    it('reads a live meeting consistently while sentences are appended concurrently', async () => {
      const live = await makeMeeting(t.db, {
        organizer: olivia,
        title: 'Live planning',
        isLive: true,
        liveState: 'active',
        sentences: [],
      });
      let appended = 0;
      const writer = (async () => {
        for (let i = 0; i < 60; i++) {
          await t.db('sentences').insert({
            meeting_id: live.id,
            idx: i,
            speaker_name: 'Olivia',
            speaker_id: 0,
            text: `Line ${i}.`,
            raw_text: `Line ${i}.`,
            start_time: i,
            end_time: i + 0.9,
          });
          appended = i + 1;
        }
      })();
      const reads: number[][] = [];
      do {
        const res = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: live.id, format: 'json' });
        reads.push(res.data.sentences.map((s: { index: number }) => s.index));
      } while (appended < 60);
      await writer;
      // Every snapshot is a prefix of the meeting: nothing skipped, nothing half-read.
      for (const r of reads) expect(r).toEqual(Array.from({ length: r.length }, (_, i) => i));
      const final = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: live.id, format: 'json' });
      expect(final.data.sentences).toHaveLength(60);
    });

    it('never shows sentences of a meeting still processing, and says why a failed one has none', async () => {
      const processing = await makeMeeting(t.db, { organizer: olivia, status: 'processing' });
      const res = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: processing.id, format: 'json' });
      expect(res.isError).toBe(false);
      expect(res.data).toMatchObject({
        status: 'processing',
        sentences: [],
        has_more: false,
        meeting_info: { summary_status: 'processing' },
      });
      expect(res.data.meeting_info.message).toMatch(/still being processed/);
      expect(res.data.meeting_info.progress).toBeUndefined();

      // Where processing is, as the worker reports it: structured beside the message, chunks only when chunked.
      await setProgress(t.db, processing.id, { stage: 'transcribing', percent: 46.6, chunks_done: 3, chunks_total: 7 });
      const mid = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: processing.id, format: 'json' });
      expect(mid.data.meeting_info.progress).toEqual({
        stage: 'transcribing',
        percent: 47,
        chunks_done: 3,
        chunks_total: 7,
      });
      expect(mid.data.meeting_info.message).toContain('Progress: transcribing, 47%, 3 of 7 chunks transcribed.');
      await setProgress(t.db, processing.id, { stage: 'downloading', percent: 0 });
      const early = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: processing.id });
      expect(early.isError).toBe(false);
      expect(early.data.meeting_info.progress).toEqual({ stage: 'downloading', percent: 0 });

      const failed = await makeMeeting(t.db, { organizer: olivia, status: 'failed', sentences: [] });
      await t.db('meetings').where({ id: failed.id }).update({ failure_reason: 'the media file could not be decoded' });
      const f = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: failed.id, format: 'json' });
      expect(f.data).toMatchObject({ status: 'failed', sentences: [], meeting_info: { summary_status: 'failed' } });
      expect(f.data.meeting_info.message).toContain('the media file could not be decoded');
    });

    it('lets the organizer, a participant, a teammate and an admin read; another team, even its admin, gets object_not_found', async () => {
      for (const u of [olivia, pat, tom, admin]) {
        const res = await mcp.call(u.key, 'svc_get_transcript', { transcriptId: main.id, format: 'json' });
        expect(res.isError).toBe(false);
        expect(res.data.id).toBe(main.id);
      }
      const foreign = await mcp.call(outsider.key, 'svc_get_transcript', { transcriptId: main.id });
      expect(foreign.isError).toBe(true);
      expect(foreign.data.error.code).toBe('object_not_found');
      const missing = await mcp.call(outsider.key, 'svc_get_transcript', { transcriptId: 'NO_SUCH_MEETING' });
      // The same answer as for a meeting that does not exist: existence is not revealed.
      expect(foreign.data.error.message.replace(main.id, 'X')).toBe(
        missing.data.error.message.replace('NO_SUCH_MEETING', 'X'),
      );
    });

    it('hides an owner-only meeting from teammates and participants but not from an admin', async () => {
      const secret = await makeMeeting(t.db, {
        organizer: olivia,
        privacy: 'owner',
        participants: [{ email: pat.email }],
      });
      for (const u of [pat, tom]) {
        const res = await mcp.call(u.key, 'svc_get_transcript', { transcriptId: secret.id });
        expect(res.data.error.code).toBe('object_not_found');
      }
      expect((await mcp.call(admin.key, 'svc_get_transcript', { transcriptId: secret.id })).isError).toBe(false);
    });

    it('names a missing transcriptId and an empty one', async () => {
      const missing = await mcp.call(olivia.key, 'svc_get_transcript', {});
      expect(missing.data.error).toMatchObject({ code: 'args_required', field: 'transcriptId' });
      const empty = await mcp.call(olivia.key, 'svc_get_transcript', { transcriptId: '' });
      expect(empty.data.error).toMatchObject({ code: 'invalid_arguments', field: 'transcriptId' });
    });
  });

  describe('svc_get_summary', () => {
    it('answers the summary fields with notes for empty ones, and no transcript', async () => {
      const res = await mcp.call(pat.key, 'svc_get_summary', { transcriptId: main.id });
      expect(res.isError).toBe(false);
      const d = res.data;
      expect(Object.keys(d).sort()).toEqual(['dateString', 'id', 'summary_status', 'title', ...SUMMARY_KEYS].sort());
      expect(d).toMatchObject({
        id: main.id,
        title: 'Roadmap review',
        summary_status: 'processed',
        keywords: ['roadmap', 'budget'],
        action_items: ['Pat: send the budget sheet'],
        overview: 'The team reviewed the roadmap and the budget.',
        short_summary: 'Roadmap review.',
        meeting_type: 'planning',
        topics_discussed: [],
        outline: [],
      });
      expect(Object.keys(d.notes).sort()).toEqual(['outline', 'topics_discussed']);
      expect(d.notes.topics_discussed).toMatch(/no distinct topics/);
      expect(res.text).not.toContain('Welcome everyone');
    });

    it('says why there is no summary: processing, live, failed, or never produced', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ status: 'processing' }, 'processing'],
        [{ isLive: true, liveState: 'active' }, 'pending'],
        [{ status: 'failed' }, 'failed'],
        [{}, 'unavailable'],
      ];
      for (const [spec, status] of cases) {
        const m = await makeMeeting(t.db, { organizer: olivia, ...spec });
        const res = await mcp.call(olivia.key, 'svc_get_summary', { transcriptId: m.id });
        expect(res.isError).toBe(false);
        expect(res.data).toMatchObject({ id: m.id, summary_status: status });
        expect(res.data.message.length).toBeGreaterThan(10);
        expect(res.data.keywords).toBeUndefined();
      }
    });

    it('is not found for another team, even its admin', async () => {
      const res = await mcp.call(outsider.key, 'svc_get_summary', { transcriptId: main.id });
      expect(res.data.error.code).toBe('object_not_found');
    });
  });

  describe('svc_fetch', () => {
    it('answers metadata, summary, analytics and sentences in one; TOON decodes to the JSON result', async () => {
      const json = await mcp.call(tom.key, 'svc_fetch', { id: main.id, format: 'json' });
      const toon = await mcp.call(tom.key, 'svc_fetch', { id: main.id });
      expect(json.isError).toBe(false);
      expect(toon.data).toEqual(json.data);
      expect(Object.keys(json.data).sort()).toEqual([...TRANSCRIPT_KEYS, 'summary'].sort());
      expect(Object.keys(json.data.summary).sort()).toEqual(SUMMARY_KEYS);
      expect(json.data.summary.overview).toBe('The team reviewed the roadmap and the budget.');
      expect(json.data.sentences).toHaveLength(3);
      expect(json.data.analytics).toHaveLength(2);
    });

    it('renders text with the summary and then the transcript lines', async () => {
      const res = await mcp.call(tom.key, 'svc_fetch', { id: main.id, format: 'text' });
      const lines = res.text.split('\n');
      expect(lines[0]).toContain('Roadmap review');
      expect(lines).toContain('Overview: The team reviewed the roadmap and the budget.');
      expect(lines).toContain('- Pat: send the budget sheet');
      expect(lines.slice(-3)).toEqual([
        '[00:00 - 00:04] Olivia: Welcome everyone, let us review the roadmap.',
        '[00:04 - 00:07] Pat: Sounds good. What is the budget?',
        '[01:05 - 01:10] Olivia: Forty thousand, "roughly", for Q3.',
      ]);
    });

    it('keeps the sentences of a long meeting within the budget and points to svc_get_transcript for the rest', async () => {
      const res = await mcp.call(olivia.key, 'svc_fetch', { id: long.id });
      expect(res.data.has_more).toBe(true);
      expect(countTokens(res.text)).toBeLessThanOrEqual(mcp.config.mcpMaxTranscriptTokens);
      const text = await mcp.call(olivia.key, 'svc_fetch', { id: long.id, format: 'text' });
      expect(text.text.split('\n').pop()).toBe(
        `(more sentences follow: call svc_get_transcript with transcriptId "${long.id}" and fromIndex ${res.data.next_index})`,
      );
    });

    it('is experimental: a team without the fetch flag gets feature_unavailable; another team object_not_found', async () => {
      const res = await mcp.call(noFetch.key, 'svc_fetch', { id: main.id });
      expect(res.data.error.code).toBe('feature_unavailable');
      const foreign = await mcp.call(outsider.key, 'svc_fetch', { id: main.id });
      expect(foreign.data.error.code).toBe('object_not_found');
    });
  });
});
