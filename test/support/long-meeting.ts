/**
 * A three-hour meeting made of the labelled meetings (test/fixtures/notes), one after another and
 * again from the first, with the pauses between sentences shortened to those of a busy meeting: as
 * a WebVTT file to upload, with the labelled commitments at their new sentence numbers, so a test
 * can ask whether the notes of the whole cover its last hour.
 */
import { loadLabelledSet } from './notes-score';

export interface LongMeeting {
  vtt: string;
  sentences: { index: number; speaker: string; text: string; start: number; end: number }[];
  /** The labelled commitments, requests and offers, by their sentence in the long meeting. */
  items: { index: number; owner: string | string[] | null }[];
  /** Where each labelled meeting starts, by name. */
  meetings: { name: string; first: number }[];
  people: string[];
}

const PAUSE = 0.4;

function stamp(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

export function longMeeting(seconds = 3 * 3600): LongMeeting {
  const set = loadLabelledSet();
  const out: LongMeeting = { vtt: '', sentences: [], items: [], meetings: [], people: [] };
  let at = 0;
  for (let round = 0; at < seconds; round++) {
    const m = set[round % set.length];
    const first = out.sentences.length;
    out.meetings.push({ name: m.name, first });
    for (const s of m.sentences) {
      const length = s.end_time - s.start_time;
      out.sentences.push({
        index: out.sentences.length,
        speaker: s.speaker_name,
        text: s.text,
        start: at,
        end: at + length,
      });
      at += length + PAUSE;
    }
    for (const item of m.labels.items) out.items.push({ index: first + item.index, owner: item.owner });
  }
  out.people = [...new Set(out.sentences.map((s) => s.speaker))];
  out.vtt = [
    'WEBVTT',
    '',
    ...out.sentences.flatMap((s) => [
      String(s.index + 1),
      `${stamp(s.start)} --> ${stamp(s.end)}`,
      `<v ${s.speaker}>${s.text}</v>`,
      '',
    ]),
  ].join('\n');
  return out;
}
