/** Exports: a meeting as WebVTT, SRT, plain text, Markdown or DOCX, read under the usual visibility and audit. What other layers may import of this domain. */
export { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, toDocx, toMarkdown, toPlainText, toSrt, toWebVtt } from './formats';
export type { ExportActionItem, ExportFormat, ExportSentence, MeetingForExport } from './formats';
export { checkExportFormat, exportMeeting } from './read';
export type { MeetingExport } from './read';
