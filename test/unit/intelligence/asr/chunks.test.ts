/**
 * The chunk plan and the stitching of chunk transcripts (services/intelligence/asr/chunks.ts): cuts at
 * silences within the limits, offsets, the overlap's repeated words dropped, channels interleaved.
 */
import { maxChunkSeconds, planChunks, stitchChunks, toSentences } from '../../../../services/intelligence/asr/chunks';
import { requestTranscription } from '../../../../services/intelligence/asr/openai-compatible';

const limits = {
  maxSeconds: 600,
  maxBytes: 24 * 1024 * 1024,
  bytesPerSecond: 32_000,
  headerBytes: 44,
  overlapSeconds: 1,
};

describe('planChunks', () => {
  it('keeps a short recording whole', () => {
    expect(planChunks(120, [], limits)).toEqual([{ index: 0, start: 0, end: 120, ownStart: 0, ownEnd: 120 }]);
  });

  it('takes the smaller of the duration and size limits', () => {
    expect(maxChunkSeconds(limits)).toBe(600);
    expect(maxChunkSeconds({ ...limits, maxBytes: 32_000 * 300 + 44 })).toBe(300);
  });

  it('cuts at the latest silence of the second half, each chunk after the first starting 1 s before the cut', () => {
    const chunks = planChunks(
      1500,
      [
        { start: 200, end: 202 },
        { start: 500, end: 502 },
        { start: 590, end: 600 },
        { start: 1000, end: 1004 },
      ],
      limits,
    );
    expect(chunks).toEqual([
      { index: 0, start: 0, end: 595, ownStart: 0, ownEnd: 595 },
      { index: 1, start: 594, end: 1002, ownStart: 595, ownEnd: 1002 },
      { index: 2, start: 1001, end: 1500, ownStart: 1002, ownEnd: 1500 },
    ]);
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(600);
  });

  it('cuts hard at the limit where there is no silence', () => {
    const chunks = planChunks(1300, [], limits);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 600],
      [599, 1199],
      [1198, 1300],
    ]);
  });
});

describe('stitchChunks', () => {
  it('puts segments on the recording timeline, keeps each in the chunk owning its middle, completes a word cut in half', () => {
    const a = { index: 0, start: 0, end: 600, ownStart: 0, ownEnd: 600 };
    const b = { index: 1, start: 599, end: 900, ownStart: 600, ownEnd: 900 };
    const out = stitchChunks([
      // Given out of order: chunks are put back by index.
      {
        chunk: b,
        segments: [
          { start: 0, end: 3, text: 'the quote by Friday. Thanks.' },
          { start: 10, end: 12, text: 'Next item.' },
        ],
      },
      {
        chunk: a,
        segments: [
          { start: 590, end: 594, text: 'Good.' },
          { start: 596, end: 600, text: 'I will send the quote by Fri' },
        ],
      },
    ]);
    expect(out).toEqual([
      { start: 590, end: 594, text: 'Good.', speaker: 'Speaker 1' },
      { start: 596, end: 600, text: 'I will send the quote by Friday.', speaker: 'Speaker 1' },
      { start: 599, end: 602, text: 'Thanks.', speaker: 'Speaker 1' },
      { start: 609, end: 611, text: 'Next item.', speaker: 'Speaker 1' },
    ]);
  });

  it('drops a segment of the overlap whose middle the previous chunk owns', () => {
    const a = { index: 0, start: 0, end: 600, ownStart: 0, ownEnd: 600 };
    const b = { index: 1, start: 599, end: 900, ownStart: 600, ownEnd: 900 };
    const out = stitchChunks([
      { chunk: a, segments: [{ start: 598, end: 599.6, text: 'Right.' }] },
      {
        chunk: b,
        segments: [
          { start: 0, end: 0.6, text: 'ight.' },
          { start: 2, end: 4, text: 'Next.' },
        ],
      },
    ]);
    expect(out.map((s) => s.text)).toEqual(['Right.', 'Next.']);
  });

  it('drops the words of the overlap the next chunk repeats', () => {
    const a = { index: 0, start: 0, end: 600, ownStart: 0, ownEnd: 600 };
    const b = { index: 1, start: 599, end: 900, ownStart: 600, ownEnd: 900 };
    const out = stitchChunks([
      { chunk: a, segments: [{ start: 595, end: 599.9, text: 'I will send the revised' }] },
      { chunk: b, segments: [{ start: 0.8, end: 4, text: 'send the revised quote by Friday.' }] },
    ]);
    expect(out.map((s) => [s.start, s.text])).toEqual([
      [595, 'I will send the revised'],
      [599.8, 'quote by Friday.'],
    ]);
  });

  it('labels channels and interleaves them by time, speakers numbered in order of appearance', () => {
    const c = { index: 0, start: 0, end: 20, ownStart: 0, ownEnd: 20 };
    const left = stitchChunks(
      [
        {
          chunk: c,
          segments: [
            { start: 1, end: 3, text: 'Hello.' },
            { start: 9, end: 10, text: 'Bye.' },
          ],
        },
      ],
      { speaker: 'Alice' },
    );
    const right = stitchChunks([{ chunk: c, segments: [{ start: 4, end: 6, text: 'Hi Alice.' }] }], { speaker: 'Bob' });
    expect(toSentences([left, right]).map((s) => [s.index, s.speaker_name, s.speaker_id, s.text])).toEqual([
      [0, 'Alice', 0, 'Hello.'],
      [1, 'Bob', 1, 'Hi Alice.'],
      [2, 'Alice', 0, 'Bye.'],
    ]);
  });
});

describe('requestTranscription answer formats', () => {
  const answering = (body: unknown) =>
    (async () =>
      new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
  const settings = { url: 'http://asr.test', apiKey: '', model: 'm' };
  const file = new Blob([Buffer.alloc(10)], { type: 'audio/wav' });

  it('reads json (text only) as one segment over the chunk', async () => {
    const segs = await requestTranscription(
      { ...settings, responseFormat: 'json', fetchImpl: answering({ text: ' Hello there. ' }) },
      file,
      'c.wav',
      12.5,
    );
    expect(segs).toEqual([{ start: 0, end: 12.5, text: ' Hello there. ' }]);
  });

  it('reads diarized_json segments with their speaker', async () => {
    const body = {
      text: 'Hi. Yes.',
      segments: [
        { type: 'transcript.text.segment', id: 's0', start: 0.5, end: 1.2, text: 'Hi.', speaker: 'A' },
        { type: 'transcript.text.segment', id: 's1', start: 2, end: 3, text: 'Yes.', speaker: 'agent' },
      ],
    };
    const segs = await requestTranscription(
      { ...settings, responseFormat: 'diarized_json', fetchImpl: answering(body) },
      file,
      'c.wav',
      3,
    );
    expect(segs).toEqual([
      { start: 0.5, end: 1.2, text: 'Hi.', speaker: 'A' },
      { start: 2, end: 3, text: 'Yes.', speaker: 'agent' },
    ]);
  });

  it('reads verbose_json with and without a speaker', async () => {
    const body = {
      text: 'a b',
      segments: [
        { start: 0, end: 1, text: 'a', speaker: 'SPEAKER_01' },
        { start: 1, end: 2, text: 'b' },
      ],
    };
    const segs = await requestTranscription({ ...settings, fetchImpl: answering(body) }, file, 'c.wav', 2);
    expect(
      stitchChunks([{ chunk: { index: 0, start: 0, end: 2, ownStart: 0, ownEnd: 2 }, segments: segs }]).map(
        (s) => s.speaker,
      ),
    ).toEqual(['Speaker 2', 'Speaker 1']);
  });
});
