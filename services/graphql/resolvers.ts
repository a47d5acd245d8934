/**
 * Resolvers: thin. Each calls one core function with the caller's principal; core holds every limit
 * and permission rule. Errors naming a field are re-named as the GraphQL caller wrote them.
 */
import { getUser } from '../core/people';
import { listMeetings, MeetingFilters } from '../core/meetings';
import type { Principal, ReadContext } from '../core/access';
import { getSummary, getTranscript, SummaryResult, TranscriptPage } from '../core/meetings';
import { uploadAudio, UploadInput } from '../core/uploads';
import { withFieldPrefix } from './errors';
import { required } from '../core/input';
import { readContext, readingAs } from '../core/audit';
import type { ServiceDeps } from '../core/ports';

/** What the resolvers hand to core: the service's deps, the request's logger among them. */
export type GraphqlDeps = ServiceDeps;

export interface GraphqlContext {
  principal: Principal;
  deps: GraphqlDeps;
}

/**
 * The read-audit context of one GraphQL operation (a context object per request): the meetings it
 * reads are recorded once each under the top-level field that read them (`graphql:transcript`), a
 * transcript's summary field included.
 */
const operationReads = new WeakMap<GraphqlContext, ReadContext>();
export function readerOf(ctx: GraphqlContext, field: string): Principal {
  let rc = operationReads.get(ctx);
  if (!rc) operationReads.set(ctx, (rc = readContext(`graphql:${field}`)));
  return readingAs(ctx.principal, rc);
}

/** GraphQL passes absent optional arguments as missing and explicit nulls as null; core wants neither. */
function withoutNulls<T extends object>(args: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A cited moment ({index, start_time, link}), or null when the stored one lacks a field. */
function moment(v: unknown): { index: number; start_time: number; link: string } | null {
  const r = record(v);
  const index = num(r.index);
  const start = num(r.start_time);
  return index === null || start === null || typeof r.link !== 'string'
    ? null
    : { index, start_time: start, link: r.link };
}

/** Summary items are JSON written by the summarizer; shape them defensively for the typed schema. */
function summaryForGraphql(s: SummaryResult) {
  if (s.summary_status !== 'processed') {
    return {
      summary_status: s.summary_status,
      message: s.message,
      keywords: [],
      action_items: [],
      overview: null,
      overview_lines: [],
      short_summary: null,
      topics_discussed: [],
      meeting_type: null,
      outline: [],
      notes: [],
    };
  }
  return {
    summary_status: s.summary_status,
    message: null,
    keywords: s.keywords,
    action_items: s.action_items.map((a) => {
      if (typeof a === 'string') return { text: a };
      const r = record(a);
      return {
        text: String(r.text ?? ''),
        assignee: str(r.assignee),
        due: str(r.due),
        due_date: str(r.due_date),
        speaker_name: str(r.speaker_name),
        start_time: num(r.start_time),
        index: num(r.index),
        kind: str(r.kind),
        link: str(r.link),
        moments: (Array.isArray(r.moments) ? r.moments : []).map(moment).filter((m) => m !== null),
      };
    }),
    overview: s.overview,
    overview_lines: s.overview_lines
      .map((l) => {
        const m = moment(l);
        return m ? { ...m, text: String(record(l).text ?? '') } : null;
      })
      .filter((l) => l !== null),
    short_summary: s.short_summary,
    topics_discussed: s.topics_discussed.map((t) =>
      typeof t === 'string' ? t : String(record(t).title ?? record(t).name ?? JSON.stringify(t)),
    ),
    meeting_type: s.meeting_type,
    outline: s.outline.map((o) => {
      const r = record(o);
      return {
        title: String(r.title ?? ''),
        start_time: num(r.start_time),
        end_time: num(r.end_time),
        summary: str(r.summary),
        index: num(r.index),
        link: str(r.link),
      };
    }),
    notes: Object.entries(s.notes).map(([field, message]) => ({ field, message })),
  };
}

interface TranscriptsArgs {
  keyword?: string | null;
  question?: string | null;
  scope?: 'title' | 'sentences' | 'all' | null;
  fromDate?: string | null;
  toDate?: string | null;
  limit?: number | null;
  skip?: number | null;
  organizers?: string[] | null;
  participants?: string[] | null;
  mine?: boolean | null;
  channelId?: string | null;
}

export const resolvers = {
  Query: {
    me: (_: unknown, __: unknown, ctx: GraphqlContext) => getUser(ctx.deps.db, ctx.principal),

    transcript: (
      _: unknown,
      args: { id: string; fromIndex?: number | null; maxTokens?: number | null },
      ctx: GraphqlContext,
    ) =>
      getTranscript(
        ctx.deps.db,
        ctx.deps.config,
        readerOf(ctx, 'transcript'),
        args.id,
        withoutNulls({ fromIndex: args.fromIndex, maxTokens: args.maxTokens }),
      ).catch(withFieldPrefix('', { transcriptId: 'id' })),

    transcripts: (_: unknown, args: TranscriptsArgs, ctx: GraphqlContext) =>
      // A keyword's moments are not carried (TranscriptList has a question's moments only).
      listMeetings(
        ctx.deps.db,
        ctx.deps.config,
        ctx.principal,
        { ...(withoutNulls(args) as MeetingFilters), ...(args.question == null ? { moments: 0 } : {}) },
        ctx.deps.embedder,
      ),
  },

  Mutation: {
    // input is nullable in the schema (the public API declares $input: AudioUploadInput); absent is refused here.
    uploadAudio: async (_: unknown, args: { input?: UploadInput | null }, ctx: GraphqlContext) => {
      if (!args.input) throw required('input', 'an AudioUploadInput with at least url, the address of the recording');
      return uploadAudio(ctx.deps, ctx.principal, args.input).catch(withFieldPrefix('input'));
    },
  },

  Transcript: {
    // Read only when selected: a polling app asking for status does not pay for the summary.
    summary: (parent: TranscriptPage, _: unknown, ctx: GraphqlContext) =>
      getSummary(ctx.deps.db, ctx.deps.config, readerOf(ctx, 'transcript'), parent.id).then(summaryForGraphql),
  },
};
