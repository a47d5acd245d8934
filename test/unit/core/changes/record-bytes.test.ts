/**
 * The changes page's token budget counts each record's JSON bytes without making the text
 * (recordJsonBytes): the count must be exactly what JSON.stringify would give, for every kind of
 * value a record holds, or a page could pass its budget.
 */
import { recordJsonBytes, type ChangeRecord } from '../../../../services/core/changes/feed';

const visible: ChangeRecord = {
  meeting_id: '01KXWQVHCR6Y72RZGN9QK5HH9D',
  changed: 'title,transcript',
  changed_at: '2026-11-20T18:00:00.123Z',
  removed: false,
  reason: null,
  title: 'Weekly sync',
  dateString: '2026-11-20T17:00:00.000Z',
  status: 'completed',
  privacy: 'teammates',
  channel_id: null,
  organizer_email: 'ana@example.com',
  duration: 31.5,
  is_live: false,
};

const removed: ChangeRecord = {
  ...visible,
  removed: true,
  reason: 'not_visible',
  title: null,
  dateString: null,
  status: null,
  privacy: null,
  organizer_email: null,
  duration: null,
  is_live: null,
};

const bytes = (r: ChangeRecord) => Buffer.byteLength(JSON.stringify(r), 'utf8');

describe('recordJsonBytes', () => {
  it.each([
    ['a visible meeting', visible],
    ['a removed one', removed],
    ['a title with quotes and a backslash', { ...visible, title: 'The "Q4" plan \\ draft' }],
    ['a title with control characters', { ...visible, title: 'Line\none\ttab\u0001' }],
    ['a title in other scripts and emoji', { ...visible, title: 'Réunion 会议 🎉 — notes' }],
    ['a lone surrogate', { ...visible, title: 'half \ud83d pair' }],
    ['a live meeting of no length', { ...visible, is_live: true, duration: 0 }],
    ['a long duration', { ...visible, duration: 1234.7 }],
    ['an empty title', { ...visible, title: '' }],
  ])('counts %s exactly', (_name, r) => {
    expect(recordJsonBytes(r as ChangeRecord)).toBe(bytes(r as ChangeRecord));
  });
});
