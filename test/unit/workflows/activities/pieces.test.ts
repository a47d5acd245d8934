/**
 * The small pieces the pipeline leans on, checked directly: sealing of download secrets, the title
 * taken from a URL, the literal-address guard, the stage directory, and the failure reason a person reads.
 */
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { titleFromUrl } from '../../../../services/core/uploads/validate';
import { isPrivateLiteralHost } from '../../../../services/net/address-policy';
import { openJson, sealJson } from '../../../../services/platform/sealing';
import { NetError } from '../../../../services/net/errors';
import { invalid } from '../../../../services/platform/errors';
import { toFailure } from '../../../../workflows/activities/context';
import { sha256, Stage, sweepStages } from '../../../../workflows/activities/stage';
import { failureReason } from '../../../../workflows/transcription';

const key = Buffer.alloc(32, 7);

describe('sealed download secrets', () => {
  it('round-trip, and refuse a tampered value or another key', () => {
    const secret = { url: 'https://s3.example.com/a.mp3?sig=x', auth: { type: 'bearer_token', token: 't0k' } };
    const sealed = sealJson(key, secret);
    expect(sealed).not.toContain('t0k');
    expect(sealed).not.toContain('sig=x');
    expect(openJson(key, sealed)).toEqual(secret);
    // A fresh IV each time: the same secret never seals to the same text.
    expect(sealJson(key, secret)).not.toBe(sealed);
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = `${v}.${iv}.${tag}.${body.slice(0, -2)}${body.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => openJson(key, flipped)).toThrow();
    expect(() => openJson(Buffer.alloc(32, 8), sealed)).toThrow();
    expect(() => sealJson(undefined, secret)).toThrow(/SECRETS_KEY is not configured/);
  });
});

describe('title from the URL', () => {
  it.each([
    ['https://x.example/recordings/weekly_sync-2026.mp3', 'weekly sync-2026'],
    ['https://x.example/a/Team%20Review.m4a?sig=1', 'Team Review'],
    ['https://x.example/', 'Upload from x.example'],
    ['https://x.example/%E0%A4%A.mp3', '%E0%A4%A'],
  ])('%s → %s', (url, title) => {
    expect(titleFromUrl(new URL(url))).toBe(title);
  });

  it('is cut to the 256-character title limit', () => {
    expect(titleFromUrl(new URL(`https://x.example/${'n'.repeat(300)}.vtt`))).toBe('n'.repeat(256));
  });
});

describe('literal private addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['[::1]', true],
    ['10.1.2.3', true],
    ['192.168.0.10', true],
    ['169.254.169.254', true],
    ['[::ffff:127.0.0.1]', true],
    ['localhost', true],
    ['LOCALHOST.', true],
    ['api.localhost', true],
    ['93.184.216.34', false],
    ['[2606:4700::1111]', false],
    ['media.example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isPrivateLiteralHost(host)).toBe(expected);
  });
});

describe('stage', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'mi-stage-test-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps JSON and media per meeting, and returns media only when it is exactly the file described', async () => {
    const stage = new Stage(root, '01M7Z2NEJKYVCHKC8J0YAY6NZK');
    expect(await stage.readJson('sentences')).toBeUndefined();
    await stage.writeJson('sentences', { digest: 'd', sentences: [1, 2] });
    expect(await stage.readJson('sentences')).toEqual({ digest: 'd', sentences: [1, 2] });
    const bytes = Buffer.from('WEBVTT\n');
    await stage.writeMedia(bytes);
    expect(await stage.readMedia({ bytes: bytes.length, sha256: sha256(bytes) })).toEqual(bytes);
    expect(await stage.readMedia({ bytes: bytes.length, sha256: sha256('other') })).toBeUndefined();
    await stage.remove();
    expect(await stage.readJson('sentences')).toBeUndefined();
  });

  it('refuses anything but a meeting id as a directory name', () => {
    expect(() => new Stage(root, '../../etc')).toThrow(/not a meeting id/);
  });

  it('sweeps stages older than the limit and keeps recent ones', async () => {
    await new Stage(root, 'old').writeJson('x', 1);
    await new Stage(root, 'new').writeJson('x', 1);
    const past = new Date(Date.now() - 48 * 3600_000);
    utimesSync(join(root, 'old'), past, past);
    expect(await sweepStages(root)).toBe(1);
    expect(await new Stage(root, 'new').readJson('x')).toBe(1);
    expect(await new Stage(root, 'old').readJson('x')).toBeUndefined();
  });
});

describe('failures', () => {
  it('bad input is never retried; our own failures are, and say nothing internal', () => {
    expect(
      toFailure('fetch_media', new NetError('url: server answered 404', { retryable: false, rule: 'http_status' })),
    ).toMatchObject({ nonRetryable: true, type: 'NonRetryableNetError', message: 'url: server answered 404' });
    expect(
      toFailure('fetch_media', new NetError('url: could not connect', { retryable: true, rule: 'connect' })),
    ).toMatchObject({ nonRetryable: false, type: 'RetryableNetError' });
    expect(toFailure('transcribe', invalid('url', 'asr_not_configured', 'set ASR_URL'))).toMatchObject({
      nonRetryable: true,
      type: 'BadInput',
      message: 'set ASR_URL',
    });
    const internal = toFailure('persist', new Error('duplicate key value violates unique constraint "sentences_pkey"'));
    expect(internal).toMatchObject({ nonRetryable: false, type: 'InternalError' });
    expect(internal.message).not.toMatch(/sentences_pkey/);
  });

  it("the reason is the activity's own message, unwrapped", () => {
    const cause = ApplicationFailure.nonRetryable('url: server answered 404', 'NonRetryableNetError');
    const wrapped = new ActivityFailure(
      'Activity task failed',
      'fetchMedia',
      '1',
      undefined as never,
      'identity',
      cause,
    );
    expect(failureReason(wrapped)).toBe('url: server answered 404');
    expect(failureReason(undefined)).toBe('transcription failed for an unknown reason');
  });
});
