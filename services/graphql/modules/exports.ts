/**
 * Exports over GraphQL: a meeting's transcript as WebVTT, SRT, plain text, Markdown or DOCX
 * (services/core/exports), read under the same visibility and read audit as transcript(id).
 */
import { exportMeeting } from '../../core/exports';
import { OPERATION_ALLOWLIST } from '../metrics-plugin';
import { readerOf, type GraphqlContext } from '../resolvers';
import type { GraphqlModule } from './index';

OPERATION_ALLOWLIST.add('exportTranscript');

const typeDefs = /* GraphQL */ `
  extend type Query {
    """
    A meeting as a file: vtt (WebVTT subtitles, the speaker as each cue's voice), srt (SubRip,
    "Speaker: text"), txt, md (summary, action items and the transcript with speakers and times) or
    docx (the same as a Word document). Text formats answer the file's text; docx answers it in base64.
    """
    exportTranscript(id: ID!, format: ExportFormat!): TranscriptExport!
  }

  enum ExportFormat {
    vtt
    srt
    txt
    md
    docx
  }

  type TranscriptExport {
    "A file name from the title and the meeting's date."
    filename: String!
    content_type: String!
    "utf8 for the text formats, base64 for docx."
    encoding: String!
    content: String!
  }
`;

const resolvers = {
  Query: {
    exportTranscript: async (_: unknown, a: { id: string; format: string }, ctx: GraphqlContext) => {
      const file = await exportMeeting(ctx.deps.db, ctx.deps.config, readerOf(ctx, 'exportTranscript'), a.id, a.format);
      const binary = !file.contentType.startsWith('text/') && !file.contentType.startsWith('application/x-subrip');
      return {
        filename: file.filename,
        content_type: file.contentType,
        encoding: binary ? 'base64' : 'utf8',
        content: file.body.toString(binary ? 'base64' : 'utf8'),
      };
    },
  },
};

export const exportsModule: GraphqlModule = { typeDefs, resolvers };
