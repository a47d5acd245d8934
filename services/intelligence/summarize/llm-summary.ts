import type { Sentence } from '../types';
import { resolveDue } from './due-dates';
import type { CheckedNotes, NotesField } from './llm-notes';
import type { ActionItem, Citation, OutlineSection, SummarizeOptions, Summary, SummaryField } from './types';

/**
 * The checked notes as a Summary: every line cites the stored sentences it rests on (index and start
 * time), and a field the model did not give usably is the extractive summary's, with `notes[field]`
 * saying why.
 */

export const SUMMARY_FIELD: Record<NotesField, SummaryField> = {
  meeting_type: 'meeting_type',
  short_summary: 'short_summary',
  overview: 'overview',
  topics: 'topics_discussed',
  keywords: 'keywords',
  action_items: 'action_items',
  outline: 'outline',
};

export function notesToSummary(
  notes: CheckedNotes,
  sentences: readonly Sentence[],
  options: SummarizeOptions,
  extractive: () => Summary,
): { summary: Summary; fallback_fields: string[]; dropped_lines: number } {
  const byIndex = new Map(sentences.map((s) => [s.index, s]));
  const cite = (n: number): Citation => ({ index: n, start_time: byIndex.get(n)!.start_time });
  const end = sentences.reduce((t, s) => Math.max(t, s.end_time), 0);

  const action_items: ActionItem[] = notes.action_items.map((a) => {
    const first = byIndex.get(a.cites[0])!;
    const isoDate = a.due && /^\d{4}-\d{2}-\d{2}$/.test(a.due) ? a.due : null;
    return {
      text: a.text,
      // Who promises or offers is the speaker unless the model named someone; a request names who is asked.
      assignee: a.owner ?? (a.kind === 'request' ? null : first.speaker_name),
      due: a.due,
      due_date: isoDate ?? (a.due ? resolveDue(a.due, options.meetingDate) : null),
      speaker_name: first.speaker_name,
      start_time: first.start_time,
      index: first.index,
      kind: a.kind,
      moments: a.cites.map(cite),
    };
  });
  const outline: OutlineSection[] = notes.outline.map((o, i) => {
    const s = byIndex.get(o.cite)!;
    const next = notes.outline[i + 1];
    return {
      title: o.title,
      start_time: s.start_time,
      end_time: next ? byIndex.get(next.cite)!.start_time : end,
      summary: s.text,
      index: s.index,
    };
  });
  const overview_lines = notes.overview.map((l) => ({ text: l.text, ...cite(l.cites[0]) }));

  const summary: Summary = {
    keywords: notes.keywords,
    action_items,
    overview: overview_lines.map((l) => l.text).join('\n'),
    overview_lines,
    short_summary: notes.short_summary ?? '',
    topics_discussed: notes.topics,
    meeting_type: notes.meeting_type ?? 'general',
    outline,
    notes: {},
    source: 'llm',
  };

  const usable: Record<NotesField, boolean> = {
    meeting_type: notes.meeting_type !== undefined,
    short_summary: !!notes.short_summary,
    overview: overview_lines.length > 0,
    topics: notes.topics.length > 0,
    keywords: notes.keywords.length > 0,
    action_items: action_items.length > 0,
    outline: outline.length > 0,
  };
  const fallback_fields: string[] = [];
  let dropped_lines = 0;
  for (const field of Object.keys(usable) as NotesField[]) {
    const name = SUMMARY_FIELD[field];
    const dropped = notes.dropped[field] ?? 0;
    dropped_lines += dropped;
    if (usable[field]) {
      if (dropped)
        summary.notes[name] = `${dropped} of the chat model's lines were left out: their citations do not hold`;
      continue;
    }
    const why =
      notes.failed[field] ??
      (dropped ? `the citations of its ${dropped} lines do not hold` : 'the chat model gave none');
    const ex = extractive();
    if (field === 'action_items' && ex.action_items.length === 0) {
      summary.notes.action_items = 'neither the chat model nor the built-in summarizer found any';
      continue;
    }
    fallback_fields.push(name);
    summary.notes[name] = `${why}; these are the built-in summarizer's`;
    if (field === 'overview') {
      summary.overview = ex.overview;
      summary.overview_lines = ex.overview_lines;
    } else (summary as unknown as Record<string, unknown>)[name] = ex[name];
  }
  if (notes.unknown_owners.length && !fallback_fields.includes('action_items')) {
    const names = [...new Set(notes.unknown_owners)].map((n) => JSON.stringify(n)).join(', ');
    const owners = `the owner${notes.unknown_owners.length > 1 ? 's' : ''} ${names} the chat model named never appear among the speakers or participants and were left out`;
    summary.notes.action_items = summary.notes.action_items ? `${summary.notes.action_items}; ${owners}` : owners;
  }
  return { summary, fallback_fields, dropped_lines };
}
