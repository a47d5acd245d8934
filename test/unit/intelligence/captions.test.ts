import { ServiceError } from '../../../services/platform/errors';
import { detectCaptionFormat, parseCaptions, UNKNOWN_SPEAKER } from '../../../services/intelligence/captions';

const brief = (text: string | Buffer) =>
  parseCaptions(text).sentences.map((s) => [s.speaker_id, s.speaker_name, s.text, s.start_time, s.end_time]);

describe('detectCaptionFormat', () => {
  it.each([
    ['WEBVTT\n\n00:01.000 --> 00:02.000\nHi', 'vtt'],
    ['\uFEFFWEBVTT - Kind: captions\n\n00:01.000 --> 00:02.000\nHi', 'vtt'],
    ['\n\n1\n00:00:01,000 --> 00:00:02,000\nHi', 'srt'],
    ['1\r\n00:00:01,000 --> 00:00:02,000\r\nHi', 'srt'],
    ['00:00:01,000 --> 00:00:02,000\nHi', 'srt'],
    ['WEBVTTX\n\n00:01.000 --> 00:02.000\nHi', undefined],
    ['Hello, this is a text file.', undefined],
    ['1\nnot a timestamp', undefined],
  ])('%j is %s', (text, format) => {
    expect(detectCaptionFormat(text)).toBe(format);
  });
});

describe('parseCaptions: WebVTT', () => {
  it('reads speakers from voice tags, with or without a class, and keeps the cue text as raw_text', () => {
    const vtt = [
      'WEBVTT',
      '',
      '1',
      '00:00:01.000 --> 00:00:04.500',
      '<v Ada Park>Hello <b>everyone</b> &amp; welcome.</v>',
      '',
      '2',
      '00:00:05.000 --> 00:00:07.250 align:start position:10%',
      '<v.loud Grace Okafor>Thanks, Ada!</v>',
      '',
      '00:01:08.000 --> 00:01:10.000',
      '<v Ada Park>Shall we start?',
    ].join('\n');
    const parsed = parseCaptions(vtt);
    expect(parsed.format).toBe('vtt');
    expect(parsed.duration_seconds).toBe(70);
    expect(parsed.sentences).toEqual([
      {
        index: 0,
        speaker_id: 0,
        speaker_name: 'Ada Park',
        text: 'Hello everyone & welcome.',
        raw_text: '<v Ada Park>Hello <b>everyone</b> &amp; welcome.</v>',
        start_time: 1,
        end_time: 4.5,
      },
      {
        index: 1,
        speaker_id: 1,
        speaker_name: 'Grace Okafor',
        text: 'Thanks, Ada!',
        raw_text: '<v.loud Grace Okafor>Thanks, Ada!</v>',
        start_time: 5,
        end_time: 7.25,
      },
      {
        index: 2,
        speaker_id: 0,
        speaker_name: 'Ada Park',
        text: 'Shall we start?',
        raw_text: '<v Ada Park>Shall we start?',
        start_time: 68,
        end_time: 70,
      },
    ]);
  });

  it('reads "Name:" prefixes and carries the last speaker into cues without a name', () => {
    const vtt =
      'WEBVTT\n\n00:01.000 --> 00:03.000\nTom Becker: Hi Rachel,\nthanks for joining.\n\n00:03.500 --> 00:05.000\nit has been a while.\n\n00:06.000 --> 00:07.000\nRachel Kim: Hi Tom.';
    expect(brief(vtt)).toEqual([
      [0, 'Tom Becker', 'Hi Rachel, thanks for joining.', 1, 3],
      [0, 'Tom Becker', 'it has been a while.', 3.5, 5],
      [1, 'Rachel Kim', 'Hi Tom.', 6, 7],
    ]);
  });

  it('splits a cue shared by two voices and divides its time by text length', () => {
    const vtt = 'WEBVTT\n\n00:00:10.000 --> 00:00:12.000\n<v Ada>Thanks!</v> <v Ben>See you, Ada.</v>';
    const [a, b] = parseCaptions(vtt).sentences;
    expect([a.speaker_name, a.text, a.start_time, a.end_time, a.raw_text]).toEqual([
      'Ada',
      'Thanks!',
      10,
      10.7,
      '<v Ada>Thanks!</v>',
    ]);
    expect([b.speaker_name, b.text, b.start_time, b.end_time]).toEqual(['Ben', 'See you, Ada.', 10.7, 12]);
  });

  it('skips NOTE, STYLE and REGION blocks and tolerates text cue identifiers', () => {
    const vtt = [
      'WEBVTT',
      '',
      'NOTE exported by a meeting tool',
      'with two lines',
      '',
      'STYLE',
      '::cue { color: yellow }',
      '',
      'REGION',
      'id:speaker width:40%',
      '',
      'df510182-9fc6-4000-8000-1c8620496df3/10-0',
      '00:00:01.768 --> 00:00:04.593',
      '<v Sam Okoro>Can everyone see my screen?</v>',
      '',
      'intro-2',
      '00:00:05.934 --> 00:00:08.129',
      '<v Priya Raman>Yes, we can see it.</v>',
    ].join('\n');
    expect(brief(vtt)).toEqual([
      [0, 'Sam Okoro', 'Can everyone see my screen?', 1.768, 4.593],
      [1, 'Priya Raman', 'Yes, we can see it.', 5.934, 8.129],
    ]);
  });

  it('names cues before any speaker label "Unknown speaker"', () => {
    expect(brief('WEBVTT\n\n00:01.000 --> 00:02.000\n[music]\n\n00:02.000 --> 00:03.000\nAda: Hi.')).toEqual([
      [0, UNKNOWN_SPEAKER, '[music]', 1, 2],
      [1, 'Ada', 'Hi.', 2, 3],
    ]);
  });
});

describe('parseCaptions: SRT', () => {
  it('reads numbered cues with CRLF line endings, a BOM, formatting tags and "Name:" prefixes', () => {
    const srt =
      '\uFEFF1\r\n00:00:01,000 --> 00:00:04,000\r\nAda Park: <i>Hello</i> there,\r\nBen.\r\n\r\n2\r\n00:00:05,000 --> 00:00:07,500\r\n{\\an8}Ben Ode: Hi!\r\n\r\n3\r\n00:00:08,000 --> 00:00:09,000\r\nNote: this stays Ben.\r\n';
    expect(brief(srt)).toEqual([
      [0, 'Ada Park', 'Hello there, Ben.', 1, 4],
      [1, 'Ben Ode', 'Hi!', 5, 7.5],
      [1, 'Ben Ode', 'Note: this stays Ben.', 8, 9],
    ]);
  });

  it('does not take content labels ("Action Item:", "Step 2:") for speakers', () => {
    const srt =
      '1\n00:00:01,000 --> 00:00:03,000\nAda: Two things.\n\n2\n00:00:03,000 --> 00:00:05,000\nAction Item: Ben sends the deck.\n\n3\n00:00:05,000 --> 00:00:07,000\nStep 2: open the page.\n';
    expect(brief(srt).map(([id, name, text]) => [id, name, text])).toEqual([
      [0, 'Ada', 'Two things.'],
      [0, 'Ada', 'Action Item: Ben sends the deck.'],
      [0, 'Ada', 'Step 2: open the page.'],
    ]);
  });

  it('splits dialogue-dash cues into one sentence per speaker', () => {
    const srt = '1\n00:00:01,000 --> 00:00:03,000\n- Ada: Ready?\n- Ben: Ready!\n';
    expect(brief(srt)).toEqual([
      [0, 'Ada', 'Ready?', 1, 2],
      [1, 'Ben', 'Ready!', 2, 3],
    ]);
  });

  it('accepts a UTF-16 file from a Windows tool', () => {
    const srt = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nZoë: Grüß dich.\n', 'utf16le'),
    ]);
    expect(brief(srt)).toEqual([[0, 'Zoë', 'Grüß dich.', 1, 2]]);
  });

  it('sorts cues that are out of order by start time', () => {
    const srt = '2\n00:00:05,000 --> 00:00:06,000\nB: second\n\n1\n00:00:01,000 --> 00:00:02,000\nA: first\n';
    expect(brief(srt).map((s) => s[2])).toEqual(['first', 'second']);
  });
});

describe('parseCaptions: refusals', () => {
  it.each([
    ['plain text', 'Hello, this is a letter.'],
    ['JSON', '{"segments": []}'],
    ['empty', ''],
  ])('refuses %s with invalid_arguments naming both formats', (_what, text) => {
    let error: unknown;
    try {
      parseCaptions(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('invalid_arguments');
    expect((error as ServiceError).message).toMatch(/neither WebVTT .* nor SRT/);
    expect((error as ServiceError).details).toEqual({ field: 'file', rule: 'unsupported_caption_format' });
  });

  it('refuses a caption file without any cue text', () => {
    expect(() => parseCaptions('WEBVTT\n\nNOTE nothing here\n')).toThrow(/no cues with text/);
  });
});
