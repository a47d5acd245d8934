/**
 * Exporting a meeting: the same read as any other (access/rules.ts visibleTo; a meeting the caller may not
 * read is not found), recorded in the read audit, then rendered in the asked format. Only a completed
 * or live meeting has sentences to export; one still processing or failed is refused with the reason.
 */
import type { Knex } from 'knex';
import type { Config } from '../../platform/config';
import { invalid, notFound, ServiceError } from '../../platform/errors';
import { visibleTo, type Principal } from '../access';
import { recordRead } from '../audit';
import { transcriptUrl } from '../meetings';
import { momentLink } from '../action-items';
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_FORMATS,
  toDocx,
  toMarkdown,
  toPlainText,
  toSrt,
  toWebVtt,
  type ExportFormat,
  type MeetingForExport,
} from './formats';

export interface MeetingExport {
  filename: string;
  contentType: string;
  body: Buffer;
}

/** A file name from the title: letters, digits and dashes, at most 80 characters, then the date. */
function filenameOf(title: string, date: Date, format: ExportFormat): string {
  const slug =
    title
      .normalize('NFKD')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'meeting';
  return `${slug}-${date.toISOString().slice(0, 10)}.${format}`;
}

export function checkExportFormat(field: string, v: string): ExportFormat {
  if (!(EXPORT_FORMATS as readonly string[]).includes(v))
    throw invalid(
      field,
      `one of ${EXPORT_FORMATS.join(', ')}`,
      `${field} must be one of ${EXPORT_FORMATS.join(', ')}; got ${JSON.stringify(v)}`,
    );
  return v as ExportFormat;
}

export async function exportMeeting(
  db: Knex,
  config: Pick<Config, 'publicBaseUrl'>,
  p: Principal,
  id: string,
  rawFormat: string,
): Promise<MeetingExport> {
  const format = checkExportFormat('format', rawFormat);
  const m = await db('meetings as m')
    .modify(visibleTo(p, 'm'))
    .where('m.id', id)
    .first('m.id', 'm.team_id', 'm.title', 'm.date', 'm.status', 'm.is_live');
  if (!m) throw notFound('meeting', id);
  if (m.status !== 'completed' && !m.is_live) {
    throw new ServiceError(
      'invalid_arguments',
      `meeting ${JSON.stringify(id)} has no transcript to export yet: it is ${m.status}`,
      { field: 'id', rule: 'a completed meeting' },
    );
  }
  const [sentences, summary, items, participants] = await Promise.all([
    db('sentences')
      .where({ meeting_id: id })
      .orderBy('idx')
      .select('idx as index', 'speaker_name', 'text', 'start_time', 'end_time'),
    db('summaries').where({ meeting_id: id }).first('short_summary', 'overview', 'keywords'),
    db('action_items')
      .where({ meeting_id: id })
      .orderBy(['sentence_index', 'id'])
      .select('text', 'owner_name', db.raw('due_date::text as due_date'), 'status', 'start_time'),
    db('meeting_participants').where({ meeting_id: id }).orderBy('email').pluck('email'),
  ]);
  recordRead(db, p, { id: m.id, teamId: m.team_id });
  const meeting: MeetingForExport = {
    id: m.id,
    title: m.title,
    date: new Date(m.date).toISOString(),
    participants,
    transcriptUrl: transcriptUrl(config, m.id),
    summary: summary
      ? {
          short_summary: summary.short_summary,
          overview: summary.overview,
          keywords: Array.isArray(summary.keywords) ? summary.keywords.map(String) : [],
        }
      : null,
    actionItems: items.map(
      (a: {
        text: string;
        owner_name: string | null;
        due_date: string | null;
        status: string;
        start_time: number;
      }) => ({
        ...a,
        start_time: Number(a.start_time),
        link: momentLink(config, m.id, Number(a.start_time)),
      }),
    ),
    sentences: sentences.map(
      (s: { index: number; speaker_name: string; text: string; start_time: number; end_time: number }) => ({
        ...s,
        start_time: Number(s.start_time),
        end_time: Number(s.end_time),
      }),
    ),
  };
  const render: Record<ExportFormat, () => Promise<Buffer> | Buffer> = {
    vtt: () => Buffer.from(toWebVtt(meeting), 'utf8'),
    srt: () => Buffer.from(toSrt(meeting), 'utf8'),
    txt: () => Buffer.from(toPlainText(meeting), 'utf8'),
    md: () => Buffer.from(toMarkdown(meeting), 'utf8'),
    docx: () => toDocx(meeting),
  };
  return {
    filename: filenameOf(m.title, new Date(m.date), format),
    contentType: EXPORT_CONTENT_TYPES[format],
    body: await render[format](),
  };
}
