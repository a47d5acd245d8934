/**
 * A meeting as files people take away: subtitles (WebVTT, SRT), plain text, Markdown notes and a Word
 * document. Pure functions of what was read (read.ts); the subtitle files are written by `subtitle`,
 * the same library that reads uploaded captions, and the Word document by `docx`, loaded when the first
 * document is written: the mcp role serves the pages that offer it, and holding the library from the
 * start cost every pod resident memory for a download few ask for.
 */
import { stringifySync, type NodeList } from 'subtitle';

export const EXPORT_FORMATS = ['vtt', 'srt', 'txt', 'md', 'docx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export interface ExportSentence {
  index: number;
  speaker_name: string;
  text: string;
  start_time: number;
  end_time: number;
}

export interface ExportActionItem {
  text: string;
  owner_name: string | null;
  due_date: string | null;
  status: string;
  start_time: number;
  link: string;
}

export interface MeetingForExport {
  id: string;
  title: string;
  /** ISO 8601. */
  date: string;
  participants: string[];
  transcriptUrl: string;
  summary: { short_summary: string; overview: string; keywords: string[] } | null;
  actionItems: ExportActionItem[];
  sentences: ExportSentence[];
}

/** mm:ss, or h:mm:ss past an hour. */
function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** One line: a cue or a list entry must not hold a blank line (it would end the cue). */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const ms = (seconds: number) => Math.round(seconds * 1000);

function cues(m: MeetingForExport, text: (s: ExportSentence) => string): NodeList {
  return m.sentences.map((s) => ({
    type: 'cue' as const,
    data: { start: ms(s.start_time), end: Math.max(ms(s.end_time), ms(s.start_time)), text: text(s) },
  }));
}

/** WebVTT escapes &, < and > in cue text; the speaker is the cue's voice (`<v Name>`). */
const vttEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function toWebVtt(m: MeetingForExport): string {
  return stringifySync(
    cues(m, (s) => `<v ${oneLine(s.speaker_name).replace(/[<>]/g, '')}>${vttEscape(oneLine(s.text))}`),
    { format: 'WebVTT' },
  );
}

export function toSrt(m: MeetingForExport): string {
  return stringifySync(
    cues(m, (s) => `${oneLine(s.speaker_name)}: ${oneLine(s.text)}`),
    { format: 'SRT' },
  );
}

export function toPlainText(m: MeetingForExport): string {
  const head = [
    m.title,
    `${m.date.slice(0, 10)} ${m.date.slice(11, 16)} UTC`,
    `Participants: ${m.participants.join(', ') || '(none)'}`,
    '',
  ];
  return (
    [
      ...head,
      ...m.sentences.map((s) => `[${clock(s.start_time)}] ${oneLine(s.speaker_name)}: ${oneLine(s.text)}`),
    ].join('\n') + '\n'
  );
}

/** Markdown's own characters in text are escaped, so a sentence reads as said. */
const mdEscape = (s: string) => oneLine(s).replace(/([\\`*_[\]<>#|~])/g, '\\$1');

export function toMarkdown(m: MeetingForExport): string {
  const out = [
    `# ${mdEscape(m.title)}`,
    '',
    `${m.date.slice(0, 10)} ${m.date.slice(11, 16)} UTC · [open the meeting](${m.transcriptUrl})`,
    '',
  ];
  if (m.participants.length) out.push(`Participants: ${m.participants.map(mdEscape).join(', ')}`, '');
  out.push('## Summary', '');
  if (m.summary) {
    out.push(mdEscape(m.summary.short_summary || '(none)'), '');
    if (m.summary.overview) out.push(mdEscape(m.summary.overview), '');
    if (m.summary.keywords.length) out.push(`Keywords: ${m.summary.keywords.map(mdEscape).join(', ')}`, '');
  } else out.push('No summary.', '');
  out.push('## Action items', '');
  if (m.actionItems.length === 0) out.push('None.', '');
  for (const a of m.actionItems) {
    const who = [a.owner_name ? `owner ${mdEscape(a.owner_name)}` : null, a.due_date ? `due ${a.due_date}` : null]
      .filter(Boolean)
      .join(', ');
    out.push(
      `- [${a.status === 'done' ? 'x' : ' '}] ${mdEscape(a.text)}${who ? ` (${who})` : ''} [${clock(a.start_time)}](${a.link})`,
    );
  }
  if (m.actionItems.length) out.push('');
  out.push('## Transcript', '');
  for (const s of m.sentences)
    out.push(
      `**${mdEscape(s.speaker_name)}** [${clock(s.start_time)}](${m.transcriptUrl}#t=${Math.floor(s.start_time)}): ${mdEscape(s.text)}`,
      '',
    );
  return out.join('\n');
}

export async function toDocx(m: MeetingForExport): Promise<Buffer> {
  const { AlignmentType, Document, ExternalHyperlink, HeadingLevel, Packer, Paragraph, TextRun } = await import('docx');
  const p = (text: string, opts: { bold?: boolean } = {}) =>
    new Paragraph({ children: [new TextRun({ text, bold: opts.bold })] });
  const children: InstanceType<typeof Paragraph>[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(m.title)] }),
    new Paragraph({
      alignment: AlignmentType.LEFT,
      children: [new TextRun(`${m.date.slice(0, 10)} ${m.date.slice(11, 16)} UTC`)],
    }),
  ];
  if (m.participants.length) children.push(p(`Participants: ${m.participants.join(', ')}`));
  children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Summary')] }));
  if (m.summary) {
    children.push(p(m.summary.short_summary || '(none)'));
    if (m.summary.overview) children.push(p(m.summary.overview));
    if (m.summary.keywords.length) children.push(p(`Keywords: ${m.summary.keywords.join(', ')}`));
  } else children.push(p('No summary.'));
  children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Action items')] }));
  if (m.actionItems.length === 0) children.push(p('None.'));
  for (const a of m.actionItems) {
    const who = [
      a.owner_name ? `owner ${a.owner_name}` : null,
      a.due_date ? `due ${a.due_date}` : null,
      a.status === 'done' ? 'done' : null,
    ]
      .filter(Boolean)
      .join(', ');
    children.push(
      new Paragraph({
        bullet: { level: 0 },
        children: [
          new TextRun(oneLine(a.text) + (who ? ` (${who}) ` : ' ')),
          new ExternalHyperlink({
            link: a.link,
            children: [new TextRun({ text: clock(a.start_time), style: 'Hyperlink' })],
          }),
        ],
      }),
    );
  }
  children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Transcript')] }));
  for (const s of m.sentences) {
    children.push(
      new Paragraph({
        children: [
          new TextRun({ text: `${oneLine(s.speaker_name)} [${clock(s.start_time)}]: `, bold: true }),
          new TextRun(oneLine(s.text)),
        ],
      }),
    );
  }
  return Packer.toBuffer(new Document({ title: m.title, sections: [{ children }] }));
}
